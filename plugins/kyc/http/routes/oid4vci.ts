import type { RequestLike } from '@openid4vc/oauth2';
import { isBodyTooLarge } from '../../../../node/http/body.js';
import type { HttpServer, RequestContext } from '../../../../node/http/server.js';
import type { Logger } from '../../../../node/logging.js';
import { notFound } from '../../../common/http/problems.js';
import { AUTHORIZATION_SERVER_METADATA_PATH, CREDENTIAL_PATH, ISSUER_METADATA_PATH, TOKEN_PATH } from '../../oid4vci/metadata.js';
import type { OfferStore } from '../../oid4vci/offers.js';
import type { OauthAnswer, Oid4vciServer } from '../../oid4vci/server.js';
import type { KycRouter } from '../router.js';

/**
 * The OpenID4VCI issuer's routes (issue item 5), no credential but the flow's own:
 *   GET  /.well-known/openid-credential-issuer    issuer metadata
 *   GET  /.well-known/oauth-authorization-server  its authorization server metadata (RFC 8414)
 *   GET  /v1/oid4vci/offers/<id>                  the credential offer (credential_offer_uri)
 *   POST /v1/oid4vci/token                        pre-authorized code grant (form-encoded)
 *   POST /v1/oid4vci/credential                   the credential, with an access token
 * The token and credential endpoints answer OAuth 2.0 error bodies, as wallets expect; they are
 * mounted on the HTTP server directly, so call this before the router's `/v1` fallback.
 */

export interface Oid4vciRouteDeps {
  http: Pick<HttpServer, 'route'>;
  router: KycRouter;
  server: Oid4vciServer;
  offers: OfferStore;
  publicUrl(): string;
  now(): number;
  log: Logger;
}

/** the largest token or credential request read (413 above) */
export const MAX_OID4VCI_BODY = 16 * 1024;
const OFFER_PATH = /^\/v1\/oid4vci\/offers\/(ofr_[A-Za-z0-9_-]{10,64})$/;

function requestLike(ctx: RequestContext, publicUrl: string): RequestLike {
  const headers = new Headers();
  for (const [k, v] of Object.entries(ctx.req.headers)) if (typeof v === 'string') headers.set(k, v);
  return { url: `${publicUrl}${ctx.path}`, method: ctx.method as RequestLike['method'], headers };
}

async function readForm(ctx: RequestContext): Promise<Record<string, unknown>> {
  const raw = (await ctx.readBody(MAX_OID4VCI_BODY)).toString('utf8');
  const type = ctx.req.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const value: unknown = JSON.parse(raw);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SyntaxError('not an object');
    return value as Record<string, unknown>;
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

async function readJsonObject(ctx: RequestContext): Promise<Record<string, unknown>> {
  const value: unknown = JSON.parse((await ctx.readBody(MAX_OID4VCI_BODY)).toString('utf8'));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SyntaxError('not an object');
  return value as Record<string, unknown>;
}

export function mountOid4vci(d: Oid4vciRouteDeps): void {
  d.http.route('GET', ISSUER_METADATA_PATH, (ctx) => ctx.json(200, d.server.issuerMetadata()));
  d.http.route('GET', AUTHORIZATION_SERVER_METADATA_PATH, (ctx) => ctx.json(200, d.server.authorizationServerMetadata()));

  d.router.add('GET', OFFER_PATH, 'none', async (req) => {
    const offer = await d.offers.offers.get(req.params[0]!);
    if (!offer || offer.expiresAt < d.now()) throw notFound('no such credential offer, or it expired');
    return d.offers.offerObject(offer);
  });

  const oauth = (read: (ctx: RequestContext) => Promise<Record<string, unknown>>, handle: (r: RequestLike, body: Record<string, unknown>) => Promise<OauthAnswer>, invalid: string) =>
    async (ctx: RequestContext): Promise<void> => {
      let body: Record<string, unknown>;
      try {
        body = await read(ctx);
      } catch (err) {
        if (isBodyTooLarge(err)) return ctx.json(413, { error: invalid, error_description: `the request body is larger than ${MAX_OID4VCI_BODY} bytes` }, { connection: 'close' });
        return ctx.json(400, { error: invalid, error_description: 'the request body cannot be read' });
      }
      try {
        const answer = await handle(requestLike(ctx, d.publicUrl()), body);
        ctx.json(answer.status, answer.body, answer.headers);
      } catch (err) {
        d.log.error({ err, path: ctx.path }, 'OpenID4VCI request failed');
        ctx.json(500, { error: 'server_error', error_description: 'internal error' });
      }
    };

  d.http.route('POST', TOKEN_PATH, oauth(readForm, (r, b) => d.server.token(r, b), 'invalid_request'));
  d.http.route('POST', CREDENTIAL_PATH, oauth(readJsonObject, (r, b) => d.server.credential(r, b), 'invalid_credential_request'));
}
