import type { RequestContext } from '../../node/http/server.js';
import type { PluginContext } from '../../node/plugins/types.js';
import { invalid } from '../../node/errors.js';
import { parseAddress } from '../../node/protocol/address.js';
import type { ValidatorRecord } from '../../node/protocol/records.js';
import { transactionHash } from '../../node/protocol/transaction.js';
import type { AddressRecord } from './indexer.js';
import { txListRow, type BlockRow, type TxRow } from './rows.js';
import { getJson, getNumber, listNewest, pad, scan } from './store.js';

/**
 * The explorer's REST routes under /api/v1 (seed 002), read from the explorer's own index, plus
 * live balance, nonce and validator status from the chain view. Lists are `{data, total, page,
 * limit}`; `page` defaults to 1 and `limit` to 20 (at most 100). A bad `page` or `limit` is a 400
 * Problem, a missing item a 404 whose title is `Not Found`.
 */

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;
/** a transaction's JSON is at most 16 KiB; the body wraps it once more as a string */
const MAX_BROADCAST_BYTES = 64 * 1024;

export interface Paging {
  page: number;
  limit: number;
  offset: number;
}

function positiveInt(text: string | null, name: string, max: number, fallback: number): number {
  if (text === null) return fallback;
  if (!/^\d{1,7}$/.test(text) || Number(text) < 1 || Number(text) > max) throw invalid('BAD_QUERY', `${name} must be an integer from 1 to ${max}, got ${JSON.stringify(text.slice(0, 32))}`);
  return Number(text);
}

export function paging(query: URLSearchParams): Paging {
  const page = positiveInt(query.get('page'), 'page', MAX_PAGE, 1);
  const limit = positiveInt(query.get('limit'), 'limit', MAX_LIMIT, DEFAULT_LIMIT);
  return { page, limit, offset: (page - 1) * limit };
}

const MAX_TIME = 9_999_999_999_999_999;

/** Unix ms; undefined when absent. */
function timeParam(text: string | null, name: string): number | undefined {
  if (text === null) return undefined;
  if (!/^\d{1,16}$/.test(text)) throw invalid('BAD_QUERY', `${name} must be Unix milliseconds (an integer), got ${JSON.stringify(text.slice(0, 32))}`);
  return Number(text);
}

function address(text: string): string {
  try {
    parseAddress(text);
    return text;
  } catch {
    throw invalid('BAD_ADDRESS', `not a base58 address of 20 bytes: ${JSON.stringify(text.slice(0, 64))}`);
  }
}

export function mountApi(ctx: PluginContext): void {
  const store = ctx.store;
  const rows = async <T>(hashesOrKeys: string[], prefix: string) => (await Promise.all(hashesOrKeys.map((h) => getJson<T>(store, `${prefix}${h}`)))).filter((r): r is Awaited<T> & {} => r !== undefined);
  const list = async (r: RequestContext, prefix: string, countKey: string, rowPrefix: string | undefined, shape: (row: never) => unknown = (x) => x) => {
    const p = paging(r.query);
    const values = await listNewest(store, prefix, p.offset, p.limit);
    const data = rowPrefix === undefined ? values.map((v) => JSON.parse(v)) : await rows<TxRow>(values, rowPrefix);
    r.json(200, { data: data.map((d) => shape(d as never)), total: await getNumber(store, `count:${countKey}`), page: p.page, limit: p.limit });
  };
  const route = (path: string | RegExp, handler: (r: RequestContext) => Promise<void> | void) => ctx.http.route('GET', path, handler);

  route('/health', (r) => r.json(200, { status: 'ok', ts: Date.now() }));

  route('/api/v1/blocks', (r) => list(r, 'block:', 'blocks', undefined));
  route('/api/v1/blocks/latest', async (r) => {
    const [latest] = await listNewest(store, 'block:', 0, 1);
    if (latest === undefined) return r.problem(404, 'no block is indexed yet');
    r.json(200, JSON.parse(latest));
  });
  route(/^\/api\/v1\/blocks\/(\d{1,16})$/, async (r) => {
    const height = Number(r.params[0]);
    const row = await getJson<BlockRow>(store, `block:${pad(height, 16)}`);
    const block = row && (await ctx.chain.blockByHeight(height));
    if (!row || !block) return r.problem(404, `no block at height ${height}`);
    const txs = await rows<TxRow>(block.transactions.map((tx) => transactionHash(ctx.chainId, tx)), 'tx:');
    r.json(200, {
      ...row,
      transactions: txs.map((t) => ({ hash: t.hash, tx_index: t.tx_index, sender: t.sender, type: t.type, recipient: t.recipient, amount: t.amount, fee: t.fee, status: t.status, timestamp_ms: t.timestamp_ms })),
    });
  });

  // the one write: relays a signed transaction to the local mempool; the explorer never signs
  ctx.http.route('POST', '/api/v1/txs/broadcast', async (r) => {
    const body = await r.readJson(MAX_BROADCAST_BYTES);
    const tx = (body as { tx?: unknown } | null)?.tx;
    if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof tx !== 'string') {
      throw invalid('BAD_BODY', 'the body is {"tx": "<the JSON text of a signed transaction>"}');
    }
    r.json(200, { tx_hash: await ctx.submit(tx) });
  });

  route('/api/v1/txs', async (r) => {
    const type = r.query.get('type');
    const who = r.query.get('address');
    if (type !== null && !/^[A-Za-z]{1,32}$/.test(type)) throw invalid('BAD_QUERY', 'type must be a payload kind such as Transfer');
    if (who !== null) address(who);
    const from = timeParam(r.query.get('from_time'), 'from_time');
    const to = timeParam(r.query.get('to_time'), 'to_time');
    if (from !== undefined || to !== undefined) return timeWindow(r, from ?? 0, to ?? MAX_TIME, (row) => (type === null || row.type === type) && (who === null || row.sender === who || row.recipient === who));
    if (who !== null) return list(r, `txaddr:${who}:`, `txaddr:${who}`, 'tx:', txListRow);
    if (type !== null) return list(r, `txtype:${type}:`, `txtype:${type}`, 'tx:', txListRow);
    return list(r, 'txseq:', 'txs', 'tx:', txListRow);
  });
  /** Transactions with from ≤ block time ≤ to, newest first, through the time index; `total` counts the matches. */
  const timeWindow = async (r: RequestContext, from: number, to: number, keep: (row: TxRow) => boolean) => {
    if (from > to) throw invalid('BAD_QUERY', 'from_time must not be after to_time');
    const p = paging(r.query);
    const data: TxRow[] = [];
    let total = 0;
    for await (const [, hash] of scan(store, `txtime:${pad(from, 16)}`, `txtime:${pad(to + 1, 16)}`, true)) {
      const row = await getJson<TxRow>(store, `tx:${hash}`);
      if (!row || !keep(row)) continue;
      if (total++ >= p.offset && data.length < p.limit) data.push(row);
    }
    r.json(200, { data: data.map(txListRow), total, page: p.page, limit: p.limit });
  };

  route(/^\/api\/v1\/txs\/([0-9a-f]{64})$/, async (r) => {
    const row = await getJson<TxRow>(store, `tx:${r.params[0]}`);
    if (!row) return r.problem(404, `no transaction ${r.params[0]}`);
    r.json(200, row);
  });

  // any one segment, so that a malformed address is a 400 rather than an unmatched route's 404
  route(/^\/api\/v1\/addresses\/([^/]{1,128})$/, async (r) => {
    const a = address(r.params[0]!);
    const bytes = parseAddress(a);
    const [rec, account, validator, did] = await Promise.all([
      getJson<AddressRecord>(store, `addr:${a}`),
      ctx.chain.account(bytes).catch(() => ({ balance: 0n, nonce: 0n })),
      ctx.chain.validator(bytes).catch(() => undefined),
      ctx.chain.did(bytes).catch(() => undefined),
    ]);
    // a genesis account or a proposer has state but may never appear in a transaction
    const hasState = account.balance > 0n || account.nonce > 0n || validator !== undefined || did !== undefined;
    const row = rec ? addressRow(rec, hasStake(validator)) : hasState ? stateOnlyRow(a, hasStake(validator), did?.did ?? null) : undefined;
    if (!row) return r.problem(404, `the chain holds nothing for ${a}`);
    r.json(200, { ...row, balance: account.balance.toString(), nonce: account.nonce.toString() });
  });
  route(/^\/api\/v1\/addresses\/([1-9A-HJ-NP-Za-km-z]{1,40})\/txs$/, (r) => {
    const a = address(r.params[0]!);
    return list(r, `txaddr:${a}:`, `txaddr:${a}`, 'tx:', txListRow);
  });
}

/** A validator record with stake, read live; false when the read fails. */
export async function isValidator(ctx: PluginContext, address: string): Promise<boolean> {
  return hasStake(await ctx.chain.validator(parseAddress(address)).catch(() => undefined));
}

function hasStake(v: ValidatorRecord | undefined): boolean {
  return v !== undefined && v.staked > 0n;
}

/** The row of an address with chain state but no indexed transaction: no times, no count. */
function stateOnlyRow(address: string, isValidator: boolean, did: string | null) {
  return { address, first_seen: null, last_seen: null, tx_count: 0, is_validator: isValidator, did, created_at: null, updated_at: null };
}

export function addressRow(rec: AddressRecord, isValidator: boolean) {
  return { address: rec.address, first_seen: rec.first_seen, last_seen: rec.last_seen, tx_count: rec.tx_count, is_validator: isValidator, did: rec.did, created_at: rec.created_at, updated_at: rec.updated_at };
}
