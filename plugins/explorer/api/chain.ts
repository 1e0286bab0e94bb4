import type { RequestContext } from '../../../node/http/server.js';
import type { PluginContext } from '../../../node/plugins/types.js';
import { invalid } from '../../../node/errors.js';
import { parseAddress } from '../../../node/protocol/address.js';
import type { ValidatorRecord } from '../../../node/protocol/records.js';
import { transactionHash } from '../../../node/protocol/transaction.js';
import { txListRow, type AddressRecord } from '../rows.js';
import type { ExplorerReader } from '../store/types.js';
import { addressParam, MAX_TIME, paging, timeParam } from './params.js';

/**
 * The explorer's REST routes under /api/v1 (seed 002), read from the explorer's own index, plus
 * live balance, nonce and validator status from the chain view. A missing item is a 404 whose
 * title is `Not Found`.
 */

/** a transaction's JSON is at most 16 KiB; the body wraps it once more as a string */
const MAX_BROADCAST_BYTES = 64 * 1024;

export function mountApi(ctx: PluginContext, index: ExplorerReader): void {
  const route = (path: string | RegExp, handler: (r: RequestContext) => Promise<void> | void) => ctx.http.route('GET', path, handler);

  route('/health', (r) => r.json(200, { status: 'ok', ts: Date.now() }));

  route('/api/v1/blocks', async (r) => {
    const p = paging(r.query);
    const { data, total } = await index.blocks(p);
    r.json(200, { data, total, page: p.page, limit: p.limit });
  });
  route('/api/v1/blocks/latest', async (r) => {
    const latest = await index.latestBlock();
    if (latest === undefined) return r.problem(404, 'no block is indexed yet');
    r.json(200, latest);
  });
  route(/^\/api\/v1\/blocks\/(\d{1,16})$/, async (r) => {
    const height = Number(r.params[0]);
    const row = await index.block(height);
    const block = row && (await ctx.chain.blockByHeight(height));
    if (!row || !block) return r.problem(404, `no block at height ${height}`);
    const txs = await index.txsByHash(block.transactions.map((tx) => transactionHash(ctx.chainId, tx)));
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
    if (who !== null) addressParam(who);
    const from = timeParam(r.query.get('from_time'), 'from_time');
    const to = timeParam(r.query.get('to_time'), 'to_time');
    const p = paging(r.query);
    if (from !== undefined || to !== undefined) {
      if ((from ?? 0) > (to ?? MAX_TIME)) throw invalid('BAD_QUERY', 'from_time must not be after to_time');
      const { data, total } = await index.txsInWindow(from ?? 0, to ?? MAX_TIME, { ...(type !== null ? { type } : {}), ...(who !== null ? { address: who } : {}) }, p);
      return r.json(200, { data: data.map(txListRow), total, page: p.page, limit: p.limit });
    }
    const { data, total } = await index.txs(who !== null ? { address: who } : type !== null ? { type } : {}, p);
    r.json(200, { data: data.map(txListRow), total, page: p.page, limit: p.limit });
  });

  route(/^\/api\/v1\/txs\/([0-9a-f]{64})$/, async (r) => {
    const row = await index.tx(r.params[0]!);
    if (!row) return r.problem(404, `no transaction ${r.params[0]}`);
    r.json(200, row);
  });

  // any one segment, so that a malformed address is a 400 rather than an unmatched route's 404
  route(/^\/api\/v1\/addresses\/([^/]{1,128})$/, async (r) => {
    const a = addressParam(r.params[0]!);
    const bytes = parseAddress(a);
    const [rec, account, validator, did] = await Promise.all([
      index.address(a),
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
  route(/^\/api\/v1\/addresses\/([1-9A-HJ-NP-Za-km-z]{1,40})\/txs$/, async (r) => {
    const a = addressParam(r.params[0]!);
    const p = paging(r.query);
    const { data, total } = await index.txs({ address: a }, p);
    r.json(200, { data: data.map(txListRow), total, page: p.page, limit: p.limit });
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
