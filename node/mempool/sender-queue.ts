import type { Transaction } from '../protocol/transaction.js';

/** One pending transaction, as the mempool holds it. */
export interface PendingTx {
  readonly tx: Transaction;
  /** hex of the transaction hash (transactionHash) */
  readonly hash: string;
  /** the sender's 20-byte address */
  readonly sender: Uint8Array;
  readonly nonce: bigint;
  /** length of the canonical encoding (encodeTransaction); what the byte limits count */
  readonly size: number;
  /** amount + fee: what the transaction can take out of the sender's balance */
  readonly cost: bigint;
  /** admission sequence number; larger is newer */
  readonly arrival: number;
  /** when it was admitted, by the mempool's clock (for the mempool-to-proposal metric only) */
  readonly admittedAtMs: number;
}

/**
 * The pending transactions of one sender, sorted by nonce, with the sender's committed account as
 * last read. `ready` counts the contiguous run of nonces starting at the committed next nonce:
 * those can go into the next block in order; anything after the first gap cannot.
 */
export class SenderQueue {
  readonly entries: PendingTx[] = [];
  ready = 0;
  /** sum of the entries' costs */
  totalCost = 0n;

  constructor(
    readonly key: string,
    readonly address: Uint8Array,
    /** the committed next nonce, as last read */
    public nonce: bigint,
    /** the committed balance, as last read */
    public balance: bigint,
  ) {}

  get length(): number {
    return this.entries.length;
  }

  get gapped(): boolean {
    return this.entries.length > this.ready;
  }

  /** The nonce that would extend the ready run. */
  get nextReadyNonce(): bigint {
    return this.nonce + BigInt(this.ready);
  }

  private indexOf(nonce: bigint): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.nonce < nonce) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first nonce from `from` on that no entry holds: the end of the contiguous run starting at `from`. */
  runEnd(from: bigint): bigint {
    if (from === this.nonce) return this.nextReadyNonce;
    let next = from;
    for (let i = this.indexOf(from); i < this.entries.length && this.entries[i]!.nonce === next; i++) next++;
    return next;
  }

  find(nonce: bigint): PendingTx | undefined {
    const e = this.entries[this.indexOf(nonce)];
    return e && e.nonce === nonce ? e : undefined;
  }

  /** Entries with a nonce below `nonce`, in nonce order. */
  before(nonce: bigint): PendingTx[] {
    return this.entries.slice(0, this.indexOf(nonce));
  }

  /** Total cost of the entries with a nonce above `nonce`; O(those entries), usually none. */
  costAfter(nonce: bigint): bigint {
    let sum = 0n;
    for (let i = this.indexOf(nonce + 1n); i < this.entries.length; i++) sum += this.entries[i]!.cost;
    return sum;
  }

  insert(e: PendingTx): void {
    const i = this.indexOf(e.nonce);
    this.entries.splice(i, 0, e);
    this.totalCost += e.cost;
    if (i <= this.ready) this.extendReady();
  }

  remove(e: PendingTx): boolean {
    const i = this.indexOf(e.nonce);
    if (this.entries[i] !== e) return false;
    this.entries.splice(i, 1);
    this.totalCost -= e.cost;
    if (i < this.ready) this.ready = i;
    return true;
  }

  /** Sets the committed account and recounts the ready run; returns entries whose nonce is now used. */
  setCommitted(nonce: bigint, balance: bigint): PendingTx[] {
    this.balance = balance;
    this.nonce = nonce;
    const stale = this.entries.splice(0, this.indexOf(nonce));
    for (const e of stale) this.totalCost -= e.cost;
    this.ready = 0;
    this.extendReady();
    return stale;
  }

  private extendReady(): void {
    while (this.ready < this.entries.length && this.entries[this.ready]!.nonce === this.nonce + BigInt(this.ready)) this.ready++;
  }
}
