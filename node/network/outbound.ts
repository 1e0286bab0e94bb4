import type { Stream } from '@libp2p/interface';

/**
 * One long-lived outbound stream to one peer for one protocol. Frames sent while the stream opens
 * wait in a bounded queue; beyond the bound, or while a failed open backs off, they are dropped
 * and counted: consensus retransmits what matters, and an unbounded queue is a memory leak.
 */

export const OPEN_RETRY_MS = 1_000;

export interface OutboundHooks {
  open(): Promise<Stream>;
  sent(bytes: number): void;
  drop(reason: string, count?: number): void;
  openFailed(err: unknown): void;
}

export class Outbound {
  private stream: Stream | undefined;
  private opening = false;
  private queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private retryAt = 0;

  constructor(
    private readonly maxQueuedBytes: number,
    private readonly hooks: OutboundHooks,
  ) {}

  send(frame: Uint8Array): void {
    const s = this.stream;
    if (s && s.status === 'open' && s.writeStatus === 'writable' && this.queue.length === 0) {
      if (s.writeBufferLength + frame.length > this.maxQueuedBytes) return this.hooks.drop('backpressure');
      this.write(s, frame);
      return;
    }
    if (!this.opening && Date.now() < this.retryAt) return this.hooks.drop('stream-unavailable');
    if (this.queuedBytes + frame.length > this.maxQueuedBytes) return this.hooks.drop('backpressure');
    this.queue.push(frame);
    this.queuedBytes += frame.length;
    if (!this.opening) void this.open();
  }

  private write(stream: Stream, frame: Uint8Array): void {
    try {
      // false only asks us to slow down; yamux buffers the frame, and send() bounds that buffer
      stream.send(frame);
      this.hooks.sent(frame.length);
    } catch {
      this.hooks.drop('stream-closed');
    }
  }

  private async open(): Promise<void> {
    this.opening = true;
    try {
      const stream = await this.hooks.open();
      this.stream = stream;
      stream.addEventListener('close', () => {
        if (this.stream === stream) this.stream = undefined;
      });
      for (const frame of this.queue) this.write(stream, frame);
    } catch (err) {
      this.retryAt = Date.now() + OPEN_RETRY_MS;
      if (this.queue.length > 0) this.hooks.drop('open-failed', this.queue.length);
      this.hooks.openFailed(err);
    } finally {
      this.queue = [];
      this.queuedBytes = 0;
      this.opening = false;
    }
  }
}
