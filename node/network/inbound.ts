import type { Stream } from '@libp2p/interface';
import type { LedgerError } from '../errors.js';
import { FRAME_HEADER_BYTES, FrameDecoder } from './framing.js';
import type { TokenBucket } from './limits.js';

/**
 * Reads the frames of one inbound stream as they arrive and applies the peer's rate limits before
 * anything is decoded: a frame above the cap resets the stream, and a frame over the rate is
 * dropped unread.
 */

export interface InboundHooks {
  maxFrameBytes: number;
  frames: TokenBucket;
  bytes: TokenBucket;
  /** true once the network stops: nothing more is delivered */
  stopped(): boolean;
  /** counts a frame as received, limited or not */
  received(bytes: number): void;
  /** a frame above the cap; the stream is already reset */
  oversized(err: LedgerError): void;
  rateLimited(): void;
  frame(payload: Uint8Array): void;
}

export function readFrames(stream: Stream, h: InboundHooks): void {
  const decoder = new FrameDecoder(h.maxFrameBytes);
  // we never write on an inbound stream; closing our end when the sender closes its end frees it
  stream.addEventListener('remoteCloseWrite', () => void stream.close().catch(() => undefined));
  stream.addEventListener('message', (e) => {
    const chunk = e.data instanceof Uint8Array ? e.data : e.data.subarray();
    // a plain view, not a Buffer, so decoded fields compare and serialize like any Uint8Array
    const data = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let frames: Uint8Array[];
    try {
      frames = decoder.push(data);
    } catch (err) {
      stream.abort(err as Error);
      h.oversized(err as LedgerError);
      return;
    }
    for (const frame of frames) {
      // a ban in an earlier frame's handler aborts the connection
      if (h.stopped() || stream.status === 'aborted' || stream.status === 'reset') return;
      h.received(frame.length + FRAME_HEADER_BYTES);
      const now = Date.now();
      if (!h.frames.take(1, now) || !h.bytes.take(frame.length, now)) {
        h.rateLimited();
        continue;
      }
      h.frame(frame);
    }
  });
}
