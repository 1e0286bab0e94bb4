import { toHex } from '../protocol/bytes.js';
import { decodeMessage, encodeMessage } from './codec.js';
import type { ConsensusMessage, ConsensusTransport } from './types.js';

/**
 * An in-process transport hub: N engines in one process, or one engine alone. Every message is
 * encoded and decoded with the wire codec (so nothing is shared between nodes) and delivered
 * asynchronously. Tests can drop or delay messages and disconnect nodes.
 */

export interface LoopbackOptions {
  /** delivery delay in ms (default 0: next macrotask) */
  delayMs?: number;
  /** return false to drop a message; return a number to delay it by that many ms */
  filter?: (from: Uint8Array, to: Uint8Array, msg: ConsensusMessage) => boolean | number;
}

export class LoopbackNetwork {
  private readonly handlers = new Map<string, (from: Uint8Array, msg: ConsensusMessage) => void>();
  private readonly members = new Map<string, Uint8Array>();
  private readonly down = new Set<string>();
  filter: LoopbackOptions['filter'];
  delivered = 0;
  dropped = 0;

  constructor(private readonly options: LoopbackOptions = {}) {
    this.filter = options.filter;
  }

  /** The transport of `address`; connecting again replaces the earlier handler (a restarted node). */
  connect(address: Uint8Array): ConsensusTransport {
    const key = toHex(address);
    this.members.set(key, address);
    this.down.delete(key);
    this.handlers.delete(key);
    return {
      broadcast: (msg) => {
        const bytes = encodeMessage(msg);
        for (const [k, to] of this.members) if (k !== key) this.deliver(address, to, bytes, msg);
      },
      send: (to, msg) => this.deliver(address, to, encodeMessage(msg), msg),
      onMessage: (handler) => {
        this.handlers.set(key, handler);
      },
    };
  }

  /** Stop delivering to and from `address` (a crashed or partitioned node). */
  disconnect(address: Uint8Array): void {
    this.down.add(toHex(address));
  }

  reconnect(address: Uint8Array): void {
    this.down.delete(toHex(address));
  }

  /** Deliver a message as if `from` sent it, bypassing the filter (a byzantine node in tests). */
  inject(from: Uint8Array, to: Uint8Array, msg: ConsensusMessage): void {
    this.deliver(from, to, encodeMessage(msg), msg, true);
  }

  private deliver(from: Uint8Array, to: Uint8Array, bytes: Uint8Array, msg: ConsensusMessage, bypass = false): void {
    const verdict = this.filter && !bypass ? this.filter(from, to, msg) : true;
    if (verdict === false || this.down.has(toHex(from)) || this.down.has(toHex(to))) {
      this.dropped++;
      return;
    }
    const delay = typeof verdict === 'number' ? verdict : (this.options.delayMs ?? 0);
    const t = setTimeout(() => {
      const handler = this.handlers.get(toHex(to));
      if (!handler || this.down.has(toHex(to))) return;
      this.delivered++;
      handler(from, decodeMessage(bytes));
    }, delay);
    t.unref?.();
  }
}
