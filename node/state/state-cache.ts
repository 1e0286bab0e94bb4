import type { StateChange, StateReader } from '../execution/overlay.js';
import { toHex } from '../protocol/bytes.js';

/**
 * Committed state values (and known absences) in memory, in front of LevelDB: every admission to
 * the mempool and every block reads the same hot accounts, and a LevelDB get costs far more than
 * a map lookup. Commits write through (`apply`). A read that started before a commit may return
 * the value from before it, so a read only fills the cache when no commit happened meanwhile.
 */
export class StateCache implements StateReader {
  private readonly values = new Map<string, Uint8Array | null>();
  private generation = 0;

  constructor(
    private readonly source: StateReader,
    private readonly maxEntries = 200_000,
  ) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const k = toHex(key);
    const hit = this.values.get(k);
    if (hit !== undefined) return hit ?? undefined;
    const generation = this.generation;
    const value = await this.source.get(key);
    if (generation === this.generation) this.put(k, value ?? null);
    return value;
  }

  /** After a commit is durable: its changes become the cached values. */
  apply(changes: readonly StateChange[]): void {
    this.generation++;
    for (const c of changes) this.put(toHex(c.key), c.value);
  }

  private put(k: string, v: Uint8Array | null): void {
    if (this.values.size >= this.maxEntries && !this.values.has(k)) {
      // drop the oldest entry (Map keeps insertion order)
      this.values.delete(this.values.keys().next().value!);
    }
    this.values.set(k, v);
  }
}
