/**
 * A short-lived in-memory cache of upstream answers that also coalesces: while one load of a key
 * is under way, every other caller of that key waits for it instead of asking the upstream again.
 * Only successes are kept; a failure reaches the callers that were waiting for it, and the next
 * call tries again.
 */

export interface MemoOptions {
  ttlMs: number;
  /** the oldest entries go beyond this many; default 10 000 */
  maxEntries?: number;
  /** wall clock in ms; Date.now unless said */
  now?: () => number;
}

export class Memo<V> {
  private readonly values = new Map<string, { value: V; expires: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: MemoOptions) {
    this.ttlMs = opts.ttlMs;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.values.get(key);
    if (hit && hit.expires > this.now()) return Promise.resolve(hit.value);
    if (hit) this.values.delete(key);
    const pending = this.loading.get(key);
    if (pending) return pending;
    // a load that throws synchronously still fails through the promise
    const started = Promise.resolve().then(load).then(
      (value) => {
        this.loading.delete(key);
        this.keep(key, value);
        return value;
      },
      (err: unknown) => {
        this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, started);
    return started;
  }

  clear(): void {
    this.values.clear();
  }

  private keep(key: string, value: V): void {
    this.values.delete(key);
    this.values.set(key, { value, expires: this.now() + this.ttlMs });
    // a Map iterates in insertion order: the first key is the oldest
    while (this.values.size > this.maxEntries) {
      const oldest = this.values.keys().next();
      if (oldest.done) break;
      this.values.delete(oldest.value);
    }
  }
}
