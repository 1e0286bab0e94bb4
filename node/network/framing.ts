import { LedgerError } from '../errors.js';

/**
 * Frames on a stream: a u32 big-endian length, then that many bytes. The decoder refuses a length
 * above its cap before buffering anything of the body, so a peer cannot make us hold a huge frame.
 * Chunks are kept as a list and copied once per frame: yamux delivers at most 64 KiB at a time,
 * and re-concatenating on every chunk would be quadratic in a 16 MiB sync answer.
 */

export const FRAME_HEADER_BYTES = 4;

export function encodeFrame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER_BYTES + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length);
  out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

export class FrameDecoder {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  /** body length of the frame being read, once its header is complete */
  private want: number | undefined;

  constructor(private readonly maxFrameBytes: number) {}

  /** Appends a chunk and returns the complete frames in it; throws FRAME_TOO_LARGE. */
  push(chunk: Uint8Array): Uint8Array[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const frames: Uint8Array[] = [];
    for (;;) {
      if (this.want === undefined) {
        if (this.buffered < FRAME_HEADER_BYTES) break;
        const header = this.take(FRAME_HEADER_BYTES);
        const len = new DataView(header.buffer, header.byteOffset, FRAME_HEADER_BYTES).getUint32(0);
        if (len > this.maxFrameBytes) {
          throw new LedgerError('FRAME_TOO_LARGE', `a frame of ${len} bytes exceeds the limit of ${this.maxFrameBytes}`, 'limit', { size: len, limit: this.maxFrameBytes });
        }
        this.want = len;
      }
      if (this.buffered < this.want) break;
      frames.push(this.take(this.want));
      this.want = undefined;
    }
    return frames;
  }

  /** bytes held for an incomplete frame */
  get pending(): number {
    return this.buffered + (this.want === undefined ? 0 : FRAME_HEADER_BYTES);
  }

  /** Removes the first `n` buffered bytes (n <= buffered) as one array of its own. */
  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const head = this.chunks[0]!;
      const used = Math.min(head.length, n - off);
      out.set(used === head.length ? head : head.subarray(0, used), off);
      off += used;
      if (used === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(used);
    }
    this.buffered -= n;
    return out;
  }
}
