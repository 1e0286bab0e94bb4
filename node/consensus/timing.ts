import { toHex } from '../protocol/bytes.js';

/**
 * When each uncommitted block was first seen here and when its QC became known, for the latency
 * metrics (proposal to QC, QC to commit, proposal to commit), and for the leader's pacing
 * (pacing.ts). Never used for safety.
 */
export class BlockTimes {
  private readonly seen = new Map<string, number>();
  private readonly certified = new Map<string, number>();

  markSeen(hash: Uint8Array, now: number): void {
    this.seen.set(toHex(hash), now);
  }

  /** When the block was first seen here; undefined when it was not (committed, or before a restart). */
  seenAt(hash: Uint8Array): number | undefined {
    return this.seen.get(toHex(hash));
  }

  /** The first QC for a block seen here: the wait since it was seen; undefined otherwise. */
  markCertified(hash: Uint8Array, now: number): number | undefined {
    const key = toHex(hash);
    const seen = this.seen.get(key);
    if (seen === undefined || this.certified.has(key)) return undefined;
    this.certified.set(key, now);
    return now - seen;
  }

  /** Latencies of a committed block; forgets it and every other block that left the tree. */
  committed(hash: Uint8Array, now: number, gone: Uint8Array[]): { latencyMs?: number; qcToCommitMs?: number } {
    const key = toHex(hash);
    const seen = this.seen.get(key);
    const certified = this.certified.get(key);
    this.forget([...gone, hash]);
    return { latencyMs: seen === undefined ? undefined : now - seen, qcToCommitMs: certified === undefined ? undefined : now - certified };
  }

  forget(hashes: Uint8Array[]): void {
    for (const h of hashes) {
      this.seen.delete(toHex(h));
      this.certified.delete(toHex(h));
    }
  }
}
