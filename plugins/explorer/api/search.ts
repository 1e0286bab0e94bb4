import { invalid } from '../../../node/errors.js';
import type { PluginContext } from '../../../node/plugins/types.js';
import { formatAddress, parseAddress } from '../../../node/protocol/address.js';
import { formatCredentialId, parseCredentialId } from '../../../node/protocol/credential-id.js';
import type { ExplorerReader } from '../store/types.js';
import { validatorRow } from './validators.js';

/**
 * GET /api/v1/search?q=…&type=…: exact lookups, not full text. `q` is matched as each type's
 * identifier: a block by height or hash, a transaction by hash, a validator by address, a DID,
 * a credential by URN or UUID, a verification request by its id. Each hit is `{type, data}`
 * with `data` in the type's row shape (seed 002 leaves the item shape open); the answer is
 * `{data, total}`.
 */

export const SEARCH_TYPES = ['block', 'transaction', 'validator', 'did', 'credential', 'verification'] as const;
type SearchType = (typeof SEARCH_TYPES)[number];
const MAX_Q = 128;

export function mountSearchApi(ctx: PluginContext, index: ExplorerReader): void {
  const finders: Record<SearchType, (q: string) => Promise<unknown>> = {
    block: async (q) => {
      if (/^\d{1,16}$/.test(q)) return index.block(Number(q));
      return /^[0-9a-f]{64}$/.test(q) ? index.blockByHash(q) : undefined;
    },
    transaction: async (q) => (/^[0-9a-f]{64}$/.test(q) ? index.tx(q) : undefined),
    validator: async (q) => {
      let bytes: Uint8Array;
      try {
        bytes = parseAddress(q);
      } catch {
        return undefined;
      }
      const v = await ctx.chain.validator(bytes);
      const a = formatAddress(bytes);
      return v ? validatorRow(a, v, await index.proposed(a), null) : undefined;
    },
    did: async (q) => (q.startsWith('did:') ? index.did(q) : undefined),
    credential: async (q) => {
      let urn: string;
      try {
        urn = formatCredentialId(parseCredentialId(q));
      } catch {
        return undefined;
      }
      return index.credential(urn);
    },
    verification: (q) => index.verification(q),
  };

  ctx.http.route('GET', '/api/v1/search', async (r) => {
    const q = r.query.get('q')?.trim() ?? '';
    if (q.length === 0 || q.length > MAX_Q) throw invalid('BAD_QUERY', `q is required: 1 to ${MAX_Q} characters`);
    const type = r.query.get('type');
    if (type !== null && !(SEARCH_TYPES as readonly string[]).includes(type)) throw invalid('BAD_QUERY', `type must be one of ${SEARCH_TYPES.join(', ')}`);
    const types = type === null ? SEARCH_TYPES : [type as SearchType];
    const data: Array<{ type: SearchType; data: unknown }> = [];
    for (const t of types) {
      const found = await finders[t](q);
      if (found !== undefined) data.push({ type: t, data: found });
    }
    r.json(200, { data, total: data.length });
  });
}
