import type { Subs, Tx } from './level-core.js';
import type { KeylistEntry, Mediation } from './types.js';

/**
 * The LevelDB mediation repository's read cache: `med/<id>`, `key/<key>` and `medDid/<did>` as
 * stored, absent ones included (null), so a forward routes without reading LevelDB. Only this
 * process writes its namespace (one store per namespace), and every write of those sublevels
 * goes through `applied` under the store's write lock once its batch is written, so the cache
 * holds what LevelDB holds. A read that missed stores what it read only if no write was applied
 * while it read (`generation`): LevelDB may have answered it from before that write.
 * Callers get copies: they may change what they are given.
 */

/** entries per map; past it the least recently used is dropped */
export const MEDIATION_CACHE_LIMIT = 10_000;

/** A map that keeps at most `limit` entries, dropping the least recently used. */
class Bounded<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.map.size;
  }

  has(k: string): boolean {
    return this.map.has(k);
  }

  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v === undefined) return undefined;
    this.map.delete(k);
    this.map.set(k, v);
    return v;
  }

  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value!);
  }

  clear(): void {
    this.map.clear();
  }
}

export const copyMediation = (m: Mediation): Mediation => ({ ...m, gate: m.gate && { ...m.gate } });
export const copyEntry = (e: KeylistEntry): KeylistEntry => ({ ...e });

export class MediationCache {
  readonly med: Bounded<Mediation | null>;
  readonly key: Bounded<KeylistEntry | null>;
  /** recipient DID to the id of the mediation last written for it */
  readonly did: Bounded<string | null>;
  /** bumped by every write applied, so a read under way meanwhile keeps its answer out */
  private generation = 0;

  constructor(limit = MEDIATION_CACHE_LIMIT) {
    this.med = new Bounded(limit);
    this.key = new Bounded(limit);
    this.did = new Bounded(limit);
  }

  /** What is cached under `k`, else what `load` reads (kept unless a write was applied meanwhile); null when absent. */
  async read<V>(map: Bounded<V | null>, k: string, load: () => Promise<V | undefined>): Promise<V | null> {
    const hit = map.get(k);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    const v = (await load()) ?? null;
    if (generation === this.generation) map.set(k, v);
    return v;
  }

  /** Applies a written batch: each put or delete of a cached sublevel replaces the entry. Call it under the write lock. */
  applied(tx: Tx, s: Subs): void {
    this.generation++;
    for (const op of tx.ops) {
      const put = op.type === 'put';
      if (op.sublevel === s.med) this.med.set(op.key, put ? copyMediation(op.value as Mediation) : null);
      else if (op.sublevel === s.key) this.key.set(op.key, put ? copyEntry(op.value as KeylistEntry) : null);
      else if (op.sublevel === s.medDid) this.did.set(op.key, put ? (op.value as string) : null);
    }
  }

  /** After a batch that failed: what it left in LevelDB is not known, so everything is read again. */
  drop(): void {
    this.generation++;
    this.med.clear();
    this.key.clear();
    this.did.clear();
  }
}
