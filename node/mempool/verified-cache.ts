/**
 * Hashes of transactions whose signature verified. A transaction hash covers the chain id, the
 * signed body and the signature, so a hit means exactly this signature over exactly these bytes
 * verified. Bounded: the oldest hash is forgotten first (a Set iterates in insertion order).
 */
export class VerifiedCache {
  private readonly hashes = new Set<string>();

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('the verified cache needs a positive size');
  }

  has(hash: string): boolean {
    return this.hashes.has(hash);
  }

  add(hash: string): void {
    if (this.hashes.has(hash)) return;
    this.hashes.add(hash);
    if (this.hashes.size > this.limit) {
      const oldest = this.hashes.values().next().value as string;
      this.hashes.delete(oldest);
    }
  }

  get size(): number {
    return this.hashes.size;
  }
}
