import type { BinarySublevel } from '../../../../node/state/db.js';
import { parseJson, stringifyJson } from '../../../../node/protocol/json.js';

/**
 * The explorer's LevelDB layout, in its own namespace. Keys are ASCII with fixed-width decimal
 * numbers, so key order is numeric order and a reverse range read gives newest first:
 *
 *   cursor                          the next seq to index (written with each block's rows)
 *   count:<name>                    totals: blocks, txs, addresses, proposed, txaddr:<address>,
 *                                   txtype:<type>, proposed:<address>
 *   block:<height 16>               block row
 *   tx:<hash>                       transaction row (detail form)
 *   txseq:<seq 12>:<index 6>        tx hash, every transaction in chain order
 *   txaddr:<address>:<seq>:<index>  tx hash, by sender and by recipient
 *   txtype:<type>:<seq>:<index>     tx hash, by payload type
 *   addr:<address>                  address row
 *   proposed:<address>:<height 16>  height of a block the address proposed (genesis has no proposer)
 *   blockhash:<hash>                height
 *   blocktime:<ms 16>:<height 16>   height; txtime:<ms 16>:<seq>:<index> -> tx hash
 *   sender:<address>                1 once the address has sent a transaction (unique senders)
 *   addrcount:<tx_count 12>:<address>, addrfirst:<first_seen 16>:<address>   the address sorts
 */

const enc = new TextEncoder();
const dec = new TextDecoder();

export const key = (text: string): Uint8Array => enc.encode(text);
export const pad = (n: number, width: number): string => String(n).padStart(width, '0');
export const position = (seq: number, index: number): string => `${pad(seq, 12)}:${pad(index, 6)}`;

export async function getJson<T>(store: BinarySublevel, k: string): Promise<T | undefined> {
  const v = await store.get(key(k));
  return v === undefined ? undefined : (parseJson(dec.decode(v)) as T);
}

export async function getNumber(store: BinarySublevel, k: string): Promise<number> {
  const v = await store.get(key(k));
  return v === undefined ? 0 : Number(dec.decode(v));
}

/** Values of keys `prefix…`, newest (greatest key) first, skipping `offset`. */
export async function listNewest(store: BinarySublevel, prefix: string, offset: number, limit: number): Promise<string[]> {
  const out: string[] = [];
  let skipped = 0;
  for await (const v of store.values({ gte: key(prefix), lt: key(`${prefix}\xff`), reverse: true })) {
    if (skipped++ < offset) continue;
    out.push(dec.decode(v));
    if (out.length >= limit) break;
  }
  return out;
}

/** Keys and values as text: LevelDB encodes them natively, sparing a TextEncoder call and a copy per write. */
const TEXT = { keyEncoding: 'utf8', valueEncoding: 'utf8' } as const;

type Op = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/**
 * The writes of one batch of indexed blocks, written by `write()` in one atomic LevelDB batch.
 * Rows (`put`, `del`) are read through it, so a row written twice in a batch (created, then
 * updated) sees its own first write, and only its last value is encoded and written. Index entries
 * (`append`) are written once and never read back, so they skip that bookkeeping.
 */
export class Batch {
  /** undefined: a deletion */
  private readonly rows = new Map<string, unknown>();
  private readonly entries: Op[] = [];
  private readonly counts = new Map<string, number>();
  /** stored values read ahead by prefetch (raw text; undefined: absent) */
  private readonly loaded = new Map<string, string | undefined>();

  constructor(private readonly store: BinarySublevel) {}

  /** Reads these keys in one round trip, so the gets and adds that follow need none. */
  async prefetch(keys: Iterable<string>): Promise<void> {
    const wanted = [...new Set(keys)].filter((k) => !this.loaded.has(k));
    if (wanted.length === 0) return;
    const values = await this.store.getMany<string, string>(wanted, TEXT);
    wanted.forEach((k, i) => this.loaded.set(k, values[i]));
  }

  private async stored(k: string): Promise<string | undefined> {
    if (this.loaded.has(k)) return this.loaded.get(k);
    const v = await this.store.get<string, string>(k, TEXT);
    this.loaded.set(k, v);
    return v;
  }

  /** A row: its last value in the batch is written. */
  put(k: string, value: unknown): void {
    this.rows.set(k, value);
  }

  del(k: string): void {
    this.rows.set(k, undefined);
  }

  /**
   * An index entry: a key that no other write of the batch touches, with its text value. Entries
   * are written in order, so writing one key twice leaves the second value, as with `put`.
   */
  append(k: string, value: string): void {
    this.entries.push({ type: 'put', key: k, value });
  }

  /** The row as this batch leaves it so far. */
  async get<T>(k: string): Promise<T | undefined> {
    if (this.rows.has(k)) return this.rows.get(k) as T | undefined;
    const text = await this.stored(k);
    return text === undefined ? undefined : (parseJson(text) as T);
  }

  async add(name: string, delta = 1): Promise<void> {
    const known = this.counts.get(name);
    this.counts.set(name, (known ?? Number((await this.stored(`count:${name}`)) ?? 0)) + delta);
  }

  /** Writes everything in one atomic batch; call it once. */
  async write(): Promise<void> {
    const ops = this.entries;
    for (const [k, v] of this.rows) ops.push(v === undefined ? { type: 'del', key: k } : { type: 'put', key: k, value: typeof v === 'string' ? v : stringifyJson(v) });
    for (const [name, n] of this.counts) ops.push({ type: 'put', key: `count:${name}`, value: String(n) });
    await this.store.batch<string, string>(ops, TEXT);
  }
}

/** Keys and values in [gte, lt), oldest (smallest key) first or newest first. */
export async function* scan(store: BinarySublevel, gte: string, lt: string, reverse = false): AsyncGenerator<[string, string]> {
  for await (const [k, v] of store.iterator({ gte: key(gte), lt: key(lt), reverse })) yield [dec.decode(k), dec.decode(v)];
}
