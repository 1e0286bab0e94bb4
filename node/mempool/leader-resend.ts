/**
 * Which of the transactions this node handed to the coming leaders no block has carried yet, and
 * when each is due to go again. Pure: the gossip feeds it rounds and blocks, and sends what it says.
 *
 * A client's transaction goes to the leaders of the next rounds only (gossip.ts). When neither
 * puts it in its block (its proposal left before the transaction arrived, or the leaders turned
 * out other than predicted), it waited here until this node's own turn came: with 21 validators,
 * about 21 rounds, 9 s at the p90 in a 100 tx/s run (docs/performance.md). So a transaction that
 * no block has carried `RESEND_AFTER_ROUNDS` rounds after it was sent goes to the then-coming
 * leaders again, at most `MAX_RESENDS` times; after that it still waits for this node's turn.
 */

/** Rounds after a send with no block carrying the transaction: the two leaders it went to have both proposed. */
export const RESEND_AFTER_ROUNDS = 2;
export const MAX_RESENDS = 5;
/**
 * At most this many go again in one round, the oldest first. After a slow round every
 * validator's stale transactions would otherwise reach the next leader at once, it would propose
 * them in one block that no replica had checked a signature of, and that round would be slow too.
 */
export const MAX_RESENDS_PER_ROUND = 16;
/** Beyond this many, the oldest are forgotten (they still wait for this node's own turn). */
export const MAX_TRACKED = 50_000;

interface Sent {
  round: number;
  resends: number;
}

export class LeaderResends {
  /** hex hash -> the round of its last send; a Map keeps insertion order, the oldest first */
  private readonly sent = new Map<string, Sent>();

  constructor(private readonly maxTracked: number = MAX_TRACKED) {}

  get size(): number {
    return this.sent.size;
  }

  /** The transaction went to the leaders of `round` and after. */
  sentAt(hash: string, round: number): void {
    this.sent.delete(hash);
    this.sent.set(hash, { round, resends: 0 });
    if (this.sent.size > this.maxTracked) this.sent.delete(this.sent.keys().next().value!);
  }

  /** A block carried these transactions: no need to send them again. */
  proposed(hashes: Iterable<string>): void {
    for (const h of hashes) this.sent.delete(h);
  }

  /**
   * The transactions to send again in `round`, marked as sent in it. `pending` says whether the
   * mempool still holds one; those it does not (committed, evicted, replaced) are forgotten.
   */
  due(round: number, pending: (hash: string) => boolean): string[] {
    const out: string[] = [];
    for (const [hash, s] of this.sent) {
      if (out.length === MAX_RESENDS_PER_ROUND) break;
      if (round - s.round < RESEND_AFTER_ROUNDS) continue;
      if (!pending(hash) || s.resends >= MAX_RESENDS) {
        this.sent.delete(hash);
        continue;
      }
      // sent again: it moves to the newest end, behind those still waiting their turn
      this.sent.delete(hash);
      this.sent.set(hash, { round, resends: s.resends + 1 });
      out.push(hash);
    }
    return out;
  }
}
