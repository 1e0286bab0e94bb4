import { invalid } from '../../../node/errors.js';
import type { PluginContext } from '../../../node/plugins/types.js';
import type { ChartMetric, ExplorerReader } from '../store/types.js';
import { addressRow, isValidator } from './chain.js';
import { paging } from './params.js';
import { listedValidators } from './validators.js';

/**
 * /api/v1/stats/network (cached 30 s, as seed 002 says), /api/v1/stats/charts, and the
 * /api/v1/addresses list with its two sorts.
 */

export const STATS_CACHE_MS = 30_000;
const RANGES = { '1h': [3_600_000, 60_000], '24h': [86_400_000, 3_600_000], '7d': [604_800_000, 21_600_000], '30d': [2_592_000_000, 86_400_000] } as const;
const METRICS: Record<string, ChartMetric> = { blocks: 'blocks', transactions: 'txs', txs: 'txs', dids: 'dids' };

export function mountStatsApi(ctx: PluginContext, index: ExplorerReader, now: () => number = Date.now): void {
  let cached: { at: number; body: unknown } | undefined;

  ctx.http.route('GET', '/api/v1/stats/network', async (r) => {
    if (!cached || now() - cached.at >= STATS_CACHE_MS) cached = { at: now(), body: await networkStats(ctx, index) };
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
    const found = await index.chart(METRICS[metric]!, start, end, bucketMs);
    const data: Array<{ bucket: number; count: number }> = [];
    for (let b = start; b < end; b += bucketMs) data.push({ bucket: b, count: found.get(b) ?? 0 });
    r.json(200, { metric, range, bucket_ms: bucketMs, data });
  });

  ctx.http.route('GET', '/api/v1/addresses', async (r) => {
    const p = paging(r.query);
    const sort = r.query.get('sort') ?? 'tx_count';
    if (sort !== 'tx_count' && sort !== 'first_seen') throw invalid('BAD_QUERY', 'sort must be tx_count or first_seen');
    // most transactions first; or the newest address first
    const { data, total } = await index.addresses(sort, p);
    const rows = await Promise.all(data.map(async (rec) => addressRow(rec, await isValidator(ctx, rec.address))));
    r.json(200, { data: rows, total, page: p.page, limit: p.limit });
  });
}

async function networkStats(ctx: PluginContext, index: ExplorerReader) {
  const [n, block, validators, v] = await Promise.all([index.totals(), index.latestBlock(), listedValidators(ctx), index.verificationTotals()]);
  return {
    blocks: { total_blocks: n.blocks, latest_height: block ? Number(block.height) : null, latest_timestamp: block ? Number(block.timestamp_ms) : null },
    transactions: { total_transactions: n.txs, unique_senders: n.senders },
    addresses: { total_addresses: n.addresses },
    dids: { total_dids: n.dids, active_dids: n.dids_active },
    credentials: { total_credentials: n.credentials, active_credentials: n.credentials_active },
    validators: {
      total_validators: validators.length,
      active_validators: validators.filter((v) => v.validator.active).length,
      total_staked: validators.reduce((s, v) => s + v.validator.staked, 0n).toString(),
    },
    verifications: { total_requests: v.total, pending: v.pending, final_verified: v.verified, final_not_verified: v.final - v.verified, expired: v.expired },
  };
}
