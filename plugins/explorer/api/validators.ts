import { invalid } from '../../../node/errors.js';
import type { PluginContext } from '../../../node/plugins/types.js';
import { formatAddress, parseAddress } from '../../../node/protocol/address.js';
import type { ValidatorRecord } from '../../../node/protocol/records.js';
import type { ExplorerReader } from '../store/types.js';
import { paging } from './params.js';

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

export function mountValidatorsApi(ctx: PluginContext, index: ExplorerReader): void {
  const asOf = async () => (await index.latestBlock())?.created_at ?? null;
  const rows = async () => {
    const updatedAt = await asOf();
    const all = await listedValidators(ctx);
    return Promise.all(
      all.map(async ({ address, validator }) => {
        const a = formatAddress(address);
        return validatorRow(a, validator, await index.proposed(a), updatedAt);
      }),
    );
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
        total_blocks_proposed: await index.proposedTotal(),
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
    const recent = await index.recentProposed(a, RECENT);
    r.json(200, { ...validatorRow(a, v, await index.proposed(a), await asOf()), recent_blocks: recent });
  });
}
