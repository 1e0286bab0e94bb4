/**
 * Remembers recent (sender, message id) pairs so that a replayed envelope is refused, on one
 * instance. Bounded: ids older than the window, or past the size cap (oldest first), are
 * forgotten. Several instances share the window in Redis instead.
 */
export class ReplayWindow {
  private seen = new Map<string, number>();

  constructor(private readonly opts: { windowMs: number; max: number; now: () => number }) {}

  /** true the first time a pair is seen within the window */
  firstSeen(sender: string | null, id: string): boolean {
    const key = `${sender ?? ''}\u0000${id}`;
    const now = this.opts.now();
    const at = this.seen.get(key);
    if (at !== undefined && now - at < this.opts.windowMs) return false;
    this.seen.delete(key);
    this.seen.set(key, now);
    if (this.seen.size > this.opts.max) {
      for (const [k, t] of this.seen) {
        if (this.seen.size <= this.opts.max && now - t < this.opts.windowMs) break;
        this.seen.delete(k);
      }
    }
    return true;
  }
}
