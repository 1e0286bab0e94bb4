import { invalid } from '../../node/errors.js';
import type { PluginContext } from '../../node/plugins/types.js';
import { addressRow, isValidator, paging } from './api.js';
import type { AddressRecord } from './indexer.js';
import type { BlockRow } from './rows.js';
import { listedValidators } from './validators-api.js';
import { getJson, getNumber, listNewest, pad, scan } from './store.js';
import { verificationStats } from './verification-api.js';

/**
 * /api/v1/stats/network (cached 30 s, as seed 002 says), /api/v1/stats/charts, and the
 * /api/v1/addresses list with its two sorts.
 */

export const STATS_CACHE_MS = 30_000;
const RANGES = { '1h': [3_600_000, 60_000], '24h': [86_400_000, 3_600_000], '7d': [604_800_000, 21_600_000], '30d': [2_592_000_000, 86_400_000] } as const;
const METRICS = { blocks: 'blocktime', transactions: 'txtime', txs: 'txtime', dids: 'didtime' } as const;

export function mountStatsApi(ctx: PluginContext, now: () => number = Date.now): void {
  const store = ctx.store;
  let cached: { at: number; body: unknown } | undefined;

  ctx.http.route('GET', '/api/v1/stats/network', async (r) => {
    if (!cached || now() - cached.at >= STATS_CACHE_MS) cached = { at: now(), body: await networkStats(ctx) };
    r.json(200, { ...(cached.body as object), cached_at: new Date(cached.at).toISOString() });
  });

  ctx.http.route('GET', '/api/v1/stats/charts', async (r) => {
    const metric = r.query.get('metric') ?? 'blocks';
    const range = r.query.get('range') ?? '24h';
    if (!Object.hasOwn(METRICS, metric)) throw invalid('BAD_QUERY', `metric must be one of ${Object.keys(METRICS).join(', ')}`);
    if (!Object.hasOwn(RANGES, range)) throw invalid('BAD_QUERY', `range must be one of ${Object.keys(RANGES).join(', ')}`);
    const [span, bucketMs] = RANGES[range as keyof typeof RANGES];
    const end = Math.floor(now() / bucketMs) * bucketMs + bucketMs;
    const start = end - span;
    const counts = new Map<number, number>();
    for (let b = start; b < end; b += bucketMs) counts.set(b, 0);
    const prefix = METRICS[metric as keyof typeof METRICS];
    for await (const [k] of scan(store, `${prefix}:${pad(start, 16)}`, `${prefix}:${pad(end, 16)}`)) {
      const t = Number(k.slice(prefix.length + 1, prefix.length + 17));
      const bucket = start + Math.floor((t - start) / bucketMs) * bucketMs;
      counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    }
    r.json(200, { metric, range, bucket_ms: bucketMs, data: [...counts].map(([bucket, count]) => ({ bucket, count })) });
  });

  ctx.http.route('GET', '/api/v1/addresses', async (r) => {
    const p = paging(r.query);
    const sort = r.query.get('sort') ?? 'tx_count';
    if (sort !== 'tx_count' && sort !== 'first_seen') throw invalid('BAD_QUERY', 'sort must be tx_count or first_seen');
    // most transactions first; or the newest address first
    const addresses = await listNewest(store, sort === 'tx_count' ? 'addrcount:' : 'addrfirst:', p.offset, p.limit);
    const data = await Promise.all(
      addresses.map(async (a) => {
        const rec = (await getJson<AddressRecord>(store, `addr:${a}`))!;
        return addressRow(rec, await isValidator(ctx, a));
      }),
    );
    r.json(200, { data, total: await getNumber(store, 'count:addresses'), page: p.page, limit: p.limit });
  });
}

async function networkStats(ctx: PluginContext) {
  const store = ctx.store;
  const n = (name: string) => getNumber(store, `count:${name}`);
  const [latest] = await listNewest(store, 'block:', 0, 1);
  const block = latest === undefined ? undefined : (JSON.parse(latest) as BlockRow);
  const validators = await listedValidators(ctx);
  return {
    blocks: { total_blocks: await n('blocks'), latest_height: block ? Number(block.height) : null, latest_timestamp: block ? Number(block.timestamp_ms) : null },
    transactions: { total_transactions: await n('txs'), unique_senders: await n('senders') },
    addresses: { total_addresses: await n('addresses') },
    dids: { total_dids: await n('dids'), active_dids: await n('dids_active') },
    credentials: { total_credentials: await n('credentials'), active_credentials: await n('credentials_active') },
    validators: {
      total_validators: validators.length,
      active_validators: validators.filter((v) => v.validator.active).length,
      total_staked: validators.reduce((s, v) => s + v.validator.staked, 0n).toString(),
    },
    verifications: await verificationStats(ctx),
  };
}
