import { invalid } from '../../node/errors.js';
import type { PluginContext } from '../../node/plugins/types.js';
import { formatAddress, parseAddress } from '../../node/protocol/address.js';
import type { ValidatorRecord } from '../../node/protocol/records.js';
import { paging } from './api.js';
import type { BlockRow } from './rows.js';
import { getJson, getNumber, listNewest, pad } from './store.js';

/**
 * /api/v1/validators: rows from live chain state (stake, unbonding, reputation, active) plus
 * `blocks_proposed` from the index. `updated_at` is the time of the newest indexed block, the
 * point the counts are as of. The detail adds `recent_blocks`: the last 10 blocks it proposed.
 */

const SORTS = ['staked', 'blocks_proposed', 'reputation'] as const;
const RECENT = 10;

export function validatorRow(address: string, v: ValidatorRecord, proposed: number, updatedAt: string | null) {
  return {
    address,
    staked: v.staked.toString(),
    unbonding: v.unbonding.reduce((n, u) => n + u.amount, 0n).toString(),
    reputation: v.reputation,
    active: v.active,
    blocks_proposed: proposed,
    updated_at: updatedAt,
  };
}

/** The records the explorer calls validators: any with stake, stake unbonding, or set membership. */
export async function listedValidators(ctx: PluginContext): Promise<Array<{ address: Uint8Array; validator: ValidatorRecord }>> {
  return (await ctx.chain.validators()).filter(({ validator: v }) => v.staked > 0n || v.unbonding.length > 0 || v.active);
}

export function mountValidatorsApi(ctx: PluginContext): void {
  const store = ctx.store;
  const asOf = async () => {
    const [latest] = await listNewest(store, 'block:', 0, 1);
    return latest === undefined ? null : (JSON.parse(latest) as BlockRow).created_at;
  };
  const rows = async () => {
    const updatedAt = await asOf();
    const all = await listedValidators(ctx);
    return Promise.all(all.map(async ({ address, validator }) => {
      const a = formatAddress(address);
      return validatorRow(a, validator, await getNumber(store, `count:proposed:${a}`), updatedAt);
    }));
  };

  ctx.http.route('GET', '/api/v1/validators', async (r) => {
    const p = paging(r.query);
    const sort = r.query.get('sort') ?? 'staked';
    if (!(SORTS as readonly string[]).includes(sort)) throw invalid('BAD_QUERY', `sort must be one of ${SORTS.join(', ')}`);
    const list = await rows();
    const key = (v: (typeof list)[number]) => (sort === 'staked' ? BigInt(v.staked) : BigInt(sort === 'reputation' ? v.reputation : v.blocks_proposed));
    list.sort((a, b) => (key(a) === key(b) ? a.address.localeCompare(b.address) : key(a) > key(b) ? -1 : 1));
    r.json(200, {
      data: list.slice(p.offset, p.offset + p.limit),
      summary: {
        total_validators: list.length,
        active_validators: list.filter((v) => v.active).length,
        total_staked: list.reduce((n, v) => n + BigInt(v.staked), 0n).toString(),
        total_blocks_proposed: await getNumber(store, 'count:proposed'),
      },
      total: list.length,
      page: p.page,
      limit: p.limit,
    });
  });

  ctx.http.route('GET', /^\/api\/v1\/validators\/([1-9A-HJ-NP-Za-km-z]{1,40})$/, async (r) => {
    let bytes: Uint8Array;
    try {
      bytes = parseAddress(r.params[0]);
    } catch {
      throw invalid('BAD_ADDRESS', `not a base58 address of 20 bytes: ${JSON.stringify(r.params[0]!.slice(0, 64))}`);
    }
    const a = formatAddress(bytes);
    const v = await ctx.chain.validator(bytes);
    if (!v) return r.problem(404, `no validator ${a}`);
    const heights = await listNewest(store, `proposed:${a}:`, 0, RECENT);
    const recent = (await Promise.all(heights.map((h) => getJson<BlockRow>(store, `block:${pad(Number(h), 16)}`)))).filter((b) => b !== undefined);
    r.json(200, { ...validatorRow(a, v, await getNumber(store, `count:proposed:${a}`), await asOf()), recent_blocks: recent });
  });
}
