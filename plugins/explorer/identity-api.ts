import { invalid } from '../../node/errors.js';
import type { RequestContext } from '../../node/http/server.js';
import type { PluginContext } from '../../node/plugins/types.js';
import { parseCredentialId, formatCredentialId } from '../../node/protocol/credential-id.js';
import { CREDENTIAL_TYPES } from '../../node/protocol/credential-types.js';
import { parseDid } from '../../node/protocol/did.js';
import { paging } from './api.js';
import type { CredentialRow, DidRow, IssuerStats } from './identity-index.js';
import { getJson, getNumber, listNewest } from './store.js';

/**
 * /api/v1/dids and /api/v1/credentials (seed 002). `/credentials/issuers` is mounted before
 * `/credentials/<id>`, so "issuers" is never read as an id. Live fields (`live_document`,
 * `verification`) come from the chain view and are null when that read fails.
 */

export function didParam(text: string, network: string): string {
  try {
    const parsed = parseDid(text);
    if (parsed.network !== network) throw new Error(`this chain's DIDs are did:ledger:${network}:…`);
    return parsed.did;
  } catch (err) {
    throw invalid('BAD_DID', (err as Error).message);
  }
}

export function mountIdentityApi(ctx: PluginContext): void {
  const store = ctx.store;
  const route = (path: string | RegExp, handler: (r: RequestContext) => Promise<void>) => ctx.http.route('GET', path, handler);

  /** A page of credential rows from one index, with that index's total. */
  const credentialList = async (r: RequestContext, prefix: string, countKey: string) => {
    const p = paging(r.query);
    const ids = await listNewest(store, prefix, p.offset, p.limit);
    const data = (await Promise.all(ids.map((id) => getJson<CredentialRow>(store, `cred:${id}`)))).filter((c) => c !== undefined);
    r.json(200, { data, total: await getNumber(store, `count:${countKey}`), page: p.page, limit: p.limit });
  };

  route(/^\/api\/v1\/dids\/(did:[^/]{1,200})$/, async (r) => {
    const did = didParam(r.params[0]!, ctx.network);
    const row = await getJson<DidRow>(store, `did:${did}`);
    if (!row) return r.problem(404, `no DID ${did}`);
    const live = await ctx.chain.resolveDid(parseDid(did).identifier).catch(() => null);
    r.json(200, { ...row, credentials_count: await getNumber(store, `count:creddid:${did}`), live_document: live });
  });
  route(/^\/api\/v1\/dids\/(did:[^/]{1,200})\/credentials$/, async (r) => {
    const did = didParam(r.params[0]!, ctx.network);
    return credentialList(r, `creddid:${did}:`, `creddid:${did}`);
  });

  route('/api/v1/credentials', async (r) => {
    const type = r.query.get('type');
    const issuer = r.query.get('issuer');
    const subject = r.query.get('subject');
    if (type !== null && !(CREDENTIAL_TYPES as readonly string[]).includes(type)) throw invalid('BAD_QUERY', `type must be one of ${CREDENTIAL_TYPES.join(', ')}`);
    const given = [type, issuer, subject].filter((v) => v !== null).length;
    if (given > 1) throw invalid('BAD_QUERY', 'filter by one of type, issuer or subject at a time');
    if (issuer !== null) return credentialList(r, `credissuer:${didParam(issuer, ctx.network)}:`, `credissuer:${issuer}`);
    if (subject !== null) return credentialList(r, `credsubject:${didParam(subject, ctx.network)}:`, `credsubject:${subject}`);
    if (type !== null) return credentialList(r, `credtype:${type}:`, `credtype:${type}`);
    return credentialList(r, 'credseq:', 'credentials');
  });
  route('/api/v1/credentials/issuers', async (r) => {
    const p = paging(r.query);
    const dids = await listNewest(store, 'issuerseq:', p.offset, p.limit);
    const data = (await Promise.all(dids.map((did) => getJson<IssuerStats>(store, `issuer:${did}`)))).filter((s) => s !== undefined);
    r.json(200, { data, total: await getNumber(store, 'count:issuers'), page: p.page, limit: p.limit });
  });
  route(/^\/api\/v1\/credentials\/issuers\/(did:[^/]{1,200})$/, async (r) => {
    const did = didParam(r.params[0]!, ctx.network);
    const stats = await getJson<IssuerStats>(store, `issuer:${did}`);
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
    const row = await getJson<CredentialRow>(store, `cred:${urn}`);
    if (!row) return r.problem(404, `no registered credential ${urn}`);
    r.json(200, { ...row, verification: await ctx.chain.verifyCredential(id).catch(() => null) });
  });
}
