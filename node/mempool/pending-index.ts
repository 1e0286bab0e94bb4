import { LedgerError } from '../errors.js';
import { toHex } from '../protocol/bytes.js';
import type { PendingTx, SenderQueue } from './sender-queue.js';

export interface PoolLimits {
  maxTransactions: number;
  /** limit on the sum of the canonical encodings' lengths */
  maxBytes: number;
}

/**
 * The pending transactions, by hash and by sender, with the byte total and the indexes eviction
 * needs to pick a victim without a scan. A sender's queue is in the sender map while it holds an
 * entry; one that empties leaves it, so a caller holding it can tell it was dropped.
 *
 * Eviction when full (count or bytes). Only a *ready* transaction (its nonce extends its sender's
 * ready run) may displace others, because a gapped one may never execute and so costs nothing.
 * Victims, one at a time until there is room, each the tail (highest nonce) of its sender, so no
 * sender is left with a gap:
 *   1. a gapped transaction of another sender: it cannot be in the next block anyway;
 *   2. otherwise the tail of the sender with the most pending transactions, and only if that sender
 *      would still hold more than the newcomer's sender after the swap.
 * So a sender can only push others down to its own pending count, one funded, fee-paying, ready
 * transaction per eviction, and a sender with a single pending transaction is never evicted for
 * another ready one. If no victim qualifies, or the room cannot be made, MEMPOOL_FULL and nothing
 * is evicted.
 */
export class PendingIndex {
  private readonly byHash = new Map<string, PendingTx>();
  private readonly senders = new Map<string, SenderQueue>();
  /** senders by pending count, to find the heaviest without a scan */
  private readonly byCount: Array<Set<SenderQueue> | undefined> = [];
  private topCount = 0;
  /** senders whose queue has a nonce gap; their tails are the first victims */
  private readonly gapped = new Set<SenderQueue>();
  private totalBytes = 0;

  constructor(private readonly limits: PoolLimits) {}

  get size(): number {
    return this.byHash.size;
  }

  /** total canonical-encoding bytes of the pending transactions */
  get bytes(): number {
    return this.totalBytes;
  }

  has(hash: string): boolean {
    return this.byHash.has(hash);
  }

  get(hash: string): PendingTx | undefined {
    return this.byHash.get(hash);
  }

  /** The queue of a sender with pending transactions, by its key (hex address). */
  queue(key: string): SenderQueue | undefined {
    return this.senders.get(key);
  }

  /** The queues of every sender with pending transactions. */
  queues(): IterableIterator<SenderQueue> {
    return this.senders.values();
  }

  /** Whether some sender has a ready run; only gapped senders can lack one, so this looks at those alone. */
  hasReady(): boolean {
    let stalled = 0;
    for (const q of this.gapped) if (q.ready === 0) stalled++;
    return this.senders.size > stalled;
  }

  insert(q: SenderQueue, e: PendingTx): void {
    const before = q.length;
    if (before === 0) this.senders.set(q.key, q);
    q.insert(e);
    this.byHash.set(e.hash, e);
    this.totalBytes += e.size;
    this.track(q, before);
  }

  remove(q: SenderQueue, e: PendingTx): void {
    const before = q.length;
    if (!q.remove(e)) return;
    this.byHash.delete(e.hash);
    this.totalBytes -= e.size;
    this.track(q, before);
  }

  /** Removes the pending transaction `hash`; returns its sender's queue, or undefined if it was not pending. */
  removeHash(hash: string): SenderQueue | undefined {
    const e = this.byHash.get(hash);
    if (!e) return undefined;
    const q = this.senders.get(toHex(e.sender))!;
    this.remove(q, e);
    return q;
  }

  /** Records a newer committed account for `q`, dropping entries whose nonce it has used. */
  setCommitted(q: SenderQueue, nonce: bigint, balance: bigint): PendingTx[] {
    const before = q.length;
    const stale = q.setCommitted(nonce, balance);
    for (const e of stale) {
      this.byHash.delete(e.hash);
      this.totalBytes -= e.size;
    }
    this.track(q, before);
    return stale;
  }

  /**
   * Makes room for a transaction of `size` bytes from `own` (which may not hold an entry yet) per
   * the policy above; returns the evicted hashes, or throws MEMPOOL_FULL having evicted nothing.
   */
  makeRoom(own: SenderQueue, size: number, ready: boolean): string[] {
    const { maxTransactions, maxBytes } = this.limits;
    const over = () => this.byHash.size + 1 > maxTransactions || this.totalBytes + size > maxBytes;
    if (!over()) return [];
    const reason = this.byHash.size + 1 > maxTransactions ? 'count' : 'bytes';
    const full = (why: string) =>
      new LedgerError('MEMPOOL_FULL', `mempool is full (${this.byHash.size} transactions, ${this.totalBytes} bytes): ${why}`, 'limit', {
        reason,
        maxTransactions,
        maxBytes,
      });
    if (size > maxBytes) throw full('the transaction is larger than the whole mempool');
    if (!ready) throw full(`only a transaction with the sender's next nonce (${own.nextReadyNonce}) may displace others`);
    const evicted: Array<[SenderQueue, PendingTx]> = [];
    while (over()) {
      const victim = this.gappedVictim(own) ?? this.heavyVictim(own);
      if (!victim) {
        for (const [q, e] of evicted.reverse()) this.insert(q, e);
        throw full('no sender holds more pending transactions than this one');
      }
      this.remove(victim[0], victim[1]);
      evicted.push(victim);
    }
    return evicted.map(([, e]) => e.hash);
  }

  private gappedVictim(own: SenderQueue): [SenderQueue, PendingTx] | undefined {
    for (const q of this.gapped) if (q !== own) return [q, q.entries[q.length - 1]!];
    return undefined;
  }

  private heavyVictim(own: SenderQueue): [SenderQueue, PendingTx] | undefined {
    while (this.topCount > 0 && !this.byCount[this.topCount]?.size) this.topCount--;
    if (this.topCount <= own.length + 1) return undefined;
    const q = this.byCount[this.topCount]!.values().next().value as SenderQueue;
    return [q, q.entries[q.length - 1]!];
  }

  /** Keeps the count buckets, the gapped set and the sender map in step with `q`. */
  private track(q: SenderQueue, before: number): void {
    const after = q.length;
    if (before !== after) {
      if (before > 0) this.byCount[before]?.delete(q);
      if (after > 0) (this.byCount[after] ??= new Set()).add(q);
      if (after > this.topCount) this.topCount = after;
    }
    if (q.gapped) this.gapped.add(q);
    else this.gapped.delete(q);
    if (after === 0) this.senders.delete(q.key);
  }
}
