import { randomBytes } from 'node:crypto';

/**
 * Identifiers. A delivery id starts with its creation time, so the outbox's keys sort oldest
 * first and a reverse read lists newest first with no separate time index:
 *
 *   del_<ms since epoch, 12 hex><sequence in that ms, 4 hex><12 random hex>
 */

const DELIVERY_ID = /^del_[0-9a-f]{28}$/;

/** Makes delivery ids that sort in creation order within one process, even within one ms. */
export class DeliveryIds {
  private lastMs = -1;
  private seq = 0;

  next(nowMs: number): string {
    let ms = Math.max(Math.floor(nowMs), 0);
    // A clock that steps back must not reorder ids.
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.seq++;
      if (this.seq > 0xffff) {
        ms++;
        this.seq = 0;
      }
    } else {
      this.seq = 0;
    }
    this.lastMs = ms;
    return `del_${ms.toString(16).padStart(12, '0')}${this.seq.toString(16).padStart(4, '0')}${randomBytes(6).toString('hex')}`;
  }
}

export function isDeliveryId(id: unknown): id is string {
  return typeof id === 'string' && DELIVERY_ID.test(id);
}

/** The creation time (ms) written into a delivery id. */
export function deliveryIdTime(id: string): number {
  return parseInt(id.slice(4, 16), 16);
}

/** A new event id: `evt_` and 24 hex, or `evt_test_` and 24 hex for a test delivery (rule 5). */
export function newEventId(opts: { test?: boolean } = {}): string {
  return `${opts.test ? 'evt_test_' : 'evt_'}${randomBytes(12).toString('hex')}`;
}

export function isTestEventId(id: string): boolean {
  return id.startsWith('evt_test_');
}
