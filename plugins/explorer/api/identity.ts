import { invalid } from '../../../node/errors.js';
import type { RequestContext } from '../../../node/http/server.js';
import type { PluginContext } from '../../../node/plugins/types.js';
import { parseCredentialId, formatCredentialId } from '../../../node/protocol/credential-id.js';
import { CREDENTIAL_TYPES } from '../../../node/protocol/credential-types.js';
import { parseDid } from '../../../node/protocol/did.js';
import type { CredentialFilter, ExplorerReader } from '../store/types.js';
import { didParam, paging } from './params.js';

/**
 * /api/v1/dids and /api/v1/credentials (seed 002). `/credentials/issuers` is mounted before
 * `/credentials/<id>`, so "issuers" is never read as an id. Live fields (`live_document`,
 * `verification`) come from the chain view and are null when that read fails.
 */

export function mountIdentityApi(ctx: PluginContext, index: ExplorerReader): void {
  const route = (path: string | RegExp, handler: (r: RequestContext) => Promise<void>) => ctx.http.route('GET', path, handler);

  const credentialList = async (r: RequestContext, filter: CredentialFilter) => {
    const p = paging(r.query);
    const { data, total } = await index.credentials(filter, p);
    r.json(200, { data, total, page: p.page, limit: p.limit });
  };

  route(/^\/api\/v1\/dids\/(did:[^/]{1,200})$/, async (r) => {
    const did = didParam(r.params[0]!, ctx.network);
    const row = await index.did(did);
    if (!row) return r.problem(404, `no DID ${did}`);
    const live = await ctx.chain.resolveDid(parseDid(did).identifier).catch(() => null);
    r.json(200, { ...row, credentials_count: await index.didCredentials(did), live_document: live });
  });
  route(/^\/api\/v1\/dids\/(did:[^/]{1,200})\/credentials$/, async (r) => credentialList(r, { did: didParam(r.params[0]!, ctx.network) }));

  route('/api/v1/credentials', async (r) => {
    const type = r.query.get('type');
    const issuer = r.query.get('issuer');
    const subject = r.query.get('subject');
    if (type !== null && !(CREDENTIAL_TYPES as readonly string[]).includes(type)) throw invalid('BAD_QUERY', `type must be one of ${CREDENTIAL_TYPES.join(', ')}`);
    const given = [type, issuer, subject].filter((v) => v !== null).length;
    if (given > 1) throw invalid('BAD_QUERY', 'filter by one of type, issuer or subject at a time');
    if (issuer !== null) return credentialList(r, { issuer: didParam(issuer, ctx.network) });
    if (subject !== null) return credentialList(r, { subject: didParam(subject, ctx.network) });
    if (type !== null) return credentialList(r, { type });
    return credentialList(r, {});
  });
  route('/api/v1/credentials/issuers', async (r) => {
    const p = paging(r.query);
    const { data, total } = await index.issuers(p);
    r.json(200, { data, total, page: p.page, limit: p.limit });
  });
  route(/^\/api\/v1\/credentials\/issuers\/(did:[^/]{1,200})$/, async (r) => {
    const did = didParam(r.params[0]!, ctx.network);
    const stats = await index.issuer(did);
    if (!stats) return r.problem(404, `no registered credential has the issuer ${did}`);
    r.json(200, stats);
  });
  route(/^\/api\/v1\/credentials\/([^/]{1,100})$/, async (r) => {
    let id: Uint8Array;
    try {
      id = parseCredentialId(r.params[0]);
    } catch (err) {
      throw invalid('BAD_CREDENTIAL_ID', (err as Error).message);
    }
    const urn = formatCredentialId(id);
    const row = await index.credential(urn);
    if (!row) return r.problem(404, `no registered credential ${urn}`);
    r.json(200, { ...row, verification: await ctx.chain.verifyCredential(id).catch(() => null) });
  });
}
