import type { CommittedBlock } from '../../../node/chain/app.js';
import { invalid, LedgerError } from '../../../node/errors.js';
import { addressFromPublicKey, formatAddress, isAddress } from '../../../node/protocol/address.js';
import type { Payload } from '../../../node/protocol/payloads.js';
import { SUCCESS } from '../../../node/protocol/receipt.js';
import { key, prefix, type Batch, type PluginDb, type Table } from '../../common/store/tables.js';

/**
 * The wallet's transaction history, indexed from the node's committed block stream.
 *
 * It indexes every transaction that touches an account (its sender, and a Transfer's recipient)
 * for ALL addresses, not only those of registered users: a user who imports an existing DID sees
 * the account's full history at once, with no backfill. One row per (transaction, address), keyed
 * so that a forward scan of an address's prefix yields its newest first.
 *
 * Tables (json, in the wallet's namespace):
 *   tx-by-addr   <address> SEP <seq, inverted 12> SEP <index, inverted 6> -> TxRow (that address's view)
 *   tx-rows      <hash> -> TxRow (the sender's view), to look a transaction up by hash
 *   tx-meta      cursor -> the next seq to index
 * The cursor is written in the same batch as the rows, so a crash leaves the index before or
 * after a group of blocks: a restart resumes at the cursor with no gap and no duplicate.
 */

export type TxType = 'send' | 'receive' | 'stake' | 'unstake' | 'credential' | 'did' | 'recovery' | 'validator' | 'other';
export type TxDirection = 'in' | 'out' | 'self';

export interface TxRow {
  hash: string;
  /** the account this row is listed under */
  address: string;
  direction: TxDirection;
  type: TxType;
  /** the payload kind (node/protocol/payloads.ts), e.g. `Transfer` */
  kind: string;
  assetId: 'lgr';
  /** smallest units; null for payloads that move no amount */
  amount: string | null;
  /** the fee the receipt records as paid, smallest units */
  fee: string;
  /** the other account of a Transfer (for a self-transfer: the account itself) */
  counterparty: string | null;
  from: string;
  to: string | null;
  nonce: string;
  height: number;
  seq: number;
  /** position in its block */
  index: number;
  /** block time, ISO 8601 */
  timestamp: string;
  status: 'success' | 'failed';
  /** the receipt's failure reason */
  error?: string;
}

export type DateRange = '30d' | '90d' | '1y' | 'all';

export interface TxFilter {
  dateRange: DateRange;
  /** `all`, `lgr`, or another asset id (this index holds ledger rows only: none match) */
  assetId: string;
  type: 'all' | TxType;
  search?: string;
  /** 1 to 100, default 20 */
  limit?: number;
  /** `nextCursor` of the previous page */
  cursor?: string;
}

export interface TxPage {
  items: TxRow[];
  nextCursor: string | null;
}

export type BlockStream = (fromSeq: number, signal: AbortSignal) => AsyncIterable<CommittedBlock>;

/** Another reader of the indexed blocks: what it writes goes in the batch that moves the cursor. */
export type BlockWatcher = { apply(blocks: readonly CommittedBlock[], batch: Batch): Promise<void> };

export interface TxIndexOptions {
  /** where a failed attempt is reported (the plugin's logger) */
  log?: { error(obj: object, msg: string): void };
  /** called after each written group with the next seq (a metrics gauge) */
  onProgress?: (nextSeq: number) => void;
  /** at most this many blocks in one batch while catching up (default 200) */
  maxGroup?: number;
  /** a group is written when the stream yields nothing for this long (default 10 ms) */
  idleMs?: number;
  /** the first retry delay after a failure, doubling up to 30 s (default 1000 ms) */
  retryMs?: number;
  watchers?: BlockWatcher[];
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const DAY_MS = 86_400_000;
const RANGE_DAYS: Record<DateRange, number> = { '30d': 30, '90d': 90, '1y': 365, all: Number.POSITIVE_INFINITY };
const MAX_RETRY_MS = 30_000;
const SEQ_WIDTH = 12;
const INDEX_WIDTH = 6;

const TYPE_OF: Record<string, TxType> = {
  Transfer: 'send',
  Stake: 'stake',
  Unstake: 'unstake',
  CredentialRequest: 'credential',
  CredentialAttest: 'credential',
  CredentialRevoke: 'credential',
  DidCreate: 'did',
  DidDeactivate: 'did',
  SetRecoveryPolicy: 'recovery',
  DidRecover: 'recovery',
  ValidatorRegister: 'validator',
  SubmitEvidence: 'validator',
  ValidatorQualify: 'validator',
};

/** A fixed-width decimal that sorts in reverse: the newest position has the smallest key. */
const inverted = (n: number, width: number): string => String(10 ** width - 1 - n).padStart(width, '0');
const posKey = (address: string, seq: number, index: number): string => key(address, inverted(seq, SEQ_WIDTH), inverted(index, INDEX_WIDTH));

export class TxIndex {
  private readonly byAddr: Table<TxRow>;
  private readonly byHash: Table<TxRow>;
  private readonly meta: Table<number>;
  /** the cursor as last written: this index is its tables' only writer */
  private next: number | undefined;

  constructor(
    private readonly db: PluginDb,
    private readonly o: TxIndexOptions = {},
  ) {
    this.byAddr = db.json<TxRow>('tx-by-addr');
    this.byHash = db.json<TxRow>('tx-rows');
    this.meta = db.json<number>('tx-meta');
  }

  /** The next seq to index. */
  async cursor(): Promise<number> {
    this.next ??= (await this.meta.get('cursor')) ?? 0;
    return this.next;
  }

  /** How many committed blocks (up to `headSeq`) are not indexed yet. */
  async lag(headSeq: number): Promise<number> {
    return Math.max(0, headSeq + 1 - (await this.cursor()));
  }

  /** The sender's row of a transaction, or null when it is not indexed (yet). */
  async get(hash: string): Promise<TxRow | null> {
    return (await this.byHash.get(hash)) ?? null;
  }

  /** Indexes consecutive blocks, starting at the cursor, in one batch with the new cursor; returns the rows written. */
  async applyAll(blocks: readonly CommittedBlock[]): Promise<TxRow[]> {
    let next = await this.cursor();
    const batch = this.db.batch();
    const rows: TxRow[] = [];
    for (const c of blocks) {
      if (c.seq !== next) throw new LedgerError('TX_INDEX_SEQ_GAP', `the wallet transaction index expects seq ${next}, got ${c.seq}`, 'internal', { expected: next, got: c.seq });
      for (const row of rowsOf(c)) {
        rows.push(row);
        batch.put(this.byAddr, posKey(row.address, row.seq, row.index), row);
        if (row.direction !== 'in') batch.put(this.byHash, row.hash, row);
      }
      next = c.seq + 1;
    }
    for (const w of this.o.watchers ?? []) await w.apply(blocks, batch);
    batch.put(this.meta, 'cursor', next);
    await batch.write();
    this.next = next;
    return rows;
  }

  /**
   * Follows the block stream from the stored cursor until `signal` aborts: blocks that arrive
   * back to back (catching up) go in groups of up to maxGroup, a lone live block at once. A
   * failure (store or stream) is logged and the loop resumes from the stored cursor after a delay.
   */
  async run(blocks: BlockStream, signal: AbortSignal): Promise<void> {
    let delay = this.o.retryMs ?? 1_000;
    while (!signal.aborted) {
      const attempt = new AbortController();
      const stop = () => attempt.abort();
      signal.addEventListener('abort', stop, { once: true });
      const from = await this.cursor().catch(() => undefined);
      try {
        if (from === undefined) throw new Error('the wallet transaction index cannot read its cursor');
        await this.follow(blocks(from, attempt.signal));
        if (!signal.aborted) throw new Error('the block stream ended');
      } catch (err) {
        if (signal.aborted) break;
        this.next = undefined; // re-read: a failed write may or may not have landed
        const progressed = from !== undefined && (await this.cursor().catch(() => from)) > from;
        if (progressed) delay = this.o.retryMs ?? 1_000;
        this.o.log?.error({ err, from_seq: from, retry_ms: delay }, 'the wallet transaction index failed; retrying');
        await sleep(delay, signal);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      } finally {
        attempt.abort();
        signal.removeEventListener('abort', stop);
      }
    }
  }

  private async follow(stream: AsyncIterable<CommittedBlock>): Promise<void> {
    const it = stream[Symbol.asyncIterator]();
    const max = this.o.maxGroup ?? 200;
    let group: CommittedBlock[] = [];
    let pending: Promise<IteratorResult<CommittedBlock>> | undefined;
    const flush = async () => {
      const blocks = group;
      group = [];
      await this.applyAll(blocks);
      this.o.onProgress?.(this.next!);
    };
    try {
      for (;;) {
        pending ??= it.next();
        const r = group.length === 0 ? await pending : await idle(pending, this.o.idleMs ?? 10);
        if (r === IDLE) {
          await flush();
          continue;
        }
        pending = undefined;
        if (r.done) break;
        group.push(r.value);
        if (group.length >= max) await flush();
      }
      if (group.length > 0) await flush();
    } finally {
      pending?.catch(() => undefined);
      // not awaited: a stream waiting for the next commit finishes once its signal aborts
      it.return?.()?.catch(() => undefined);
    }
  }

  /**
   * A page of the history of `addresses`, newest first. A transfer between two of them is one
   * row (direction `self`, the sender's view). `now` (Unix ms) anchors `dateRange`.
   */
  async list(addresses: readonly string[], filter: TxFilter, now: number): Promise<TxPage> {
    const limit = filter.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw invalid('LIMIT_INVALID', `limit must be an integer from 1 to ${MAX_LIMIT}`, { limit });
    const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
    if (filter.assetId !== 'all' && filter.assetId !== 'lgr') return { items: [], nextCursor: null };
    const since = now - RANGE_DAYS[filter.dateRange] * DAY_MS;
    const search = filter.search?.trim().toLowerCase() || undefined;

    const owners = [...new Set(addresses)].sort();
    const streams = owners.map((a) => {
      const { lt } = prefix(a);
      // at the cursor's position, the addresses up to its own were listed already
      if (!after) return this.byAddr.entries({ gt: prefix(a).gt, lt });
      const at = posKey(a, after.seq, after.index);
      return this.byAddr.entries(a <= after.address ? { gt: at, lt } : { gte: at, lt });
    });
    const items: TxRow[] = [];
    let last: Position | undefined;
    let more = false;
    try {
      const heads = await Promise.all(streams.map((s) => s.next()));
      for (;;) {
        let newest: TxRow | undefined;
        for (const h of heads) if (!h.done && (!newest || isNewer(h.value[1], newest))) newest = h.value[1];
        if (!newest || Date.parse(newest.timestamp) < since) break; // block times only grow with seq
        const group: TxRow[] = [];
        for (const [k, s] of streams.entries()) {
          const h = heads[k]!;
          if (h.done || h.value[1].seq !== newest.seq || h.value[1].index !== newest.index) continue;
          group.push(h.value[1]);
          heads[k] = await s.next();
        }
        const row = merged(group);
        if (!matches(row, filter.type, search)) continue;
        if (items.length === limit) {
          more = true;
          break;
        }
        items.push(row);
        last = { seq: row.seq, index: row.index, address: group.map((r) => r.address).sort().at(-1)! };
      }
    } finally {
      await Promise.all(streams.map((s) => s.return(undefined)));
    }
    return { items, nextCursor: more && last ? encodeCursor(last) : null };
  }
}

/** One row per account a transaction touches: its sender, and a Transfer's recipient. */
export function rowsOf(c: CommittedBlock): TxRow[] {
  const { block, seq, receipts } = c;
  if (receipts.length !== block.transactions.length) {
    throw new LedgerError('TX_INDEX_RECEIPTS', `block seq ${seq} has ${block.transactions.length} transactions and ${receipts.length} receipts`, 'internal');
  }
  const timestamp = new Date(block.header.timestampMs).toISOString();
  const rows: TxRow[] = [];
  for (const [index, tx] of block.transactions.entries()) {
    const receipt = receipts[index]!;
    const p = tx.payload;
    const from = addressFromPublicKey(tx.senderPubkey);
    const to = p.kind === 'Transfer' ? formatAddress(p.to) : null;
    const failed = receipt.status !== SUCCESS;
    const row = (address: string, direction: TxDirection, type: TxType, counterparty: string | null): TxRow => ({
      hash: receipt.tx_hash,
      address,
      direction,
      type,
      kind: p.kind,
      assetId: 'lgr',
      amount: amountOf(p),
      fee: receipt.fee_paid.toString(),
      counterparty,
      from,
      to,
      nonce: tx.nonce.toString(),
      height: block.header.height,
      seq,
      index,
      timestamp,
      status: failed ? 'failed' : 'success',
      ...(failed ? { error: receipt.status.replace(/^failed: /, '') } : {}),
    });
    if (to === from) {
      rows.push(row(from, 'self', 'send', from));
      continue;
    }
    rows.push(row(from, 'out', TYPE_OF[p.kind] ?? 'other', to));
    if (to !== null) rows.push(row(to, 'in', 'receive', from));
  }
  return rows;
}

/** The amount a payload names: what a Transfer or Stake moves, an Unstake unbonds, a CredentialRequest pays its issuer. */
function amountOf(p: Payload): string | null {
  if (p.kind === 'Transfer' || p.kind === 'Stake' || p.kind === 'Unstake') return p.amount.toString();
  return p.kind === 'CredentialRequest' ? p.fee.toString() : null;
}

function isNewer(a: TxRow, b: TxRow): boolean {
  return a.seq !== b.seq ? a.seq > b.seq : a.index > b.index;
}

/** The rows of one transaction under several of the caller's addresses: the sender's view, as `self`. */
function merged(group: TxRow[]): TxRow {
  if (group.length === 1) return group[0]!;
  const sender = group.find((r) => r.direction !== 'in') ?? group[0]!;
  return { ...sender, direction: 'self' };
}

function matches(row: TxRow, type: TxFilter['type'], search: string | undefined): boolean {
  // a transfer to oneself is both a send and a receive
  const typed = type === 'all' || row.type === type || (type === 'receive' && row.direction === 'self' && row.kind === 'Transfer');
  if (!typed) return false;
  if (search === undefined) return true;
  return [row.hash, row.counterparty, row.from, row.to, row.kind].some((v) => v !== null && v.toLowerCase().includes(search));
}

interface Position {
  seq: number;
  index: number;
  address: string;
}

function encodeCursor(p: Position): string {
  return Buffer.from(`${p.seq}.${p.index}.${p.address}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): Position {
  const bad = () => invalid('CURSOR_INVALID', 'cursor is not a nextCursor this API returned', { cursor });
  if (cursor.length > 128 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^(\d{1,12})\.(\d{1,6})\.(\w+)$/.exec(text);
  if (!m || encodeCursor({ seq: Number(m[1]), index: Number(m[2]), address: m[3]! }) !== cursor || !isAddress(m[3])) throw bad();
  return { seq: Number(m[1]), index: Number(m[2]), address: m[3]! };
}

const IDLE = Symbol('idle');

/** The next stream item, or IDLE when none comes within `ms`. */
async function idle<T>(next: Promise<T>, ms: number): Promise<T | typeof IDLE> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([next, new Promise<typeof IDLE>((resolve) => (timer = setTimeout(() => resolve(IDLE), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
