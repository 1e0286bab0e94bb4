import { LedgerError } from '../errors.js';

/**
 * Frames on a stream: a u32 big-endian length, then that many bytes. The decoder refuses a length
 * above its cap before buffering anything of the body, so a peer cannot make us hold a huge frame.
 */

export function encodeFrame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length);
  out.set(payload, 4);
  return out;
}

export class FrameDecoder {
  private buf: Uint8Array = new Uint8Array(0);

  constructor(private readonly maxFrameBytes: number) {}

  /** Appends a chunk and returns the complete frames in it; throws FRAME_TOO_LARGE. */
  push(chunk: Uint8Array): Uint8Array[] {
    this.buf = this.buf.length === 0 ? chunk : concat(this.buf, chunk);
    const frames: Uint8Array[] = [];
    let off = 0;
    while (this.buf.length - off >= 4) {
      const len = new DataView(this.buf.buffer, this.buf.byteOffset + off, 4).getUint32(0);
      if (len > this.maxFrameBytes) {
        throw new LedgerError('FRAME_TOO_LARGE', `a frame of ${len} bytes exceeds the limit of ${this.maxFrameBytes}`, 'limit', { size: len, limit: this.maxFrameBytes });
      }
      if (this.buf.length - off - 4 < len) break;
      frames.push(this.buf.slice(off + 4, off + 4 + len));
      off += 4 + len;
    }
    this.buf = off === 0 ? this.buf : this.buf.slice(off);
    return frames;
  }

  /** bytes held for an incomplete frame */
  get pending(): number {
    return this.buf.length;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
