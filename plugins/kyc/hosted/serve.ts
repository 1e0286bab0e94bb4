import QRCode from 'qrcode';
import { LedgerError } from '../../../node/errors.js';
import type { HttpServer } from '../../../node/http/server.js';
import { HttpProblem, sendProblem } from '../../common/http/problems.js';
import { findStaticDir, loadStaticBundle, pageHeaders, pageSecurityPolicy, routeStaticAssets } from '../../common/static-assets.js';

/**
 * The hosted end-user page (`sessionUrl` = `<publicUrl>/v/s/<sessionToken>`): one HTML page, its
 * ES modules (app.js and what it imports, the words in strings.<lang>.js) and one stylesheet from
 * `static/`, read once at mount. The page reads the token from its own path and talks to the
 * hosted JSON routes `/v1/verifications/s/<token>…`; the only JSON this module serves are QR
 * codes, rendered here so the page needs no QR library: the credential offer, and the session's
 * own URL for continuing on a phone (`handoff.json`).
 *
 * Headers: a Content-Security-Policy without inline script or style and with nothing but this
 * origin, `nosniff`, and `Referrer-Policy: no-referrer` because the page URL carries the token.
 * The HTML and the offer are never cached; the assets are cached for a year under the `?v=<hash>`
 * the HTML links to, and revalidated by ETag otherwise (plugins/common/static-assets.ts).
 */

export interface HostedOffer {
  /** the OpenID4VCI credential offer (`openid-credential-offer://…` or an https offer URL) */
  uri: string;
  /** the PIN the wallet asks for, when offers need a tx_code */
  txCode?: string;
}

export interface HostedPageOptions {
  /** the base of Problem `type` URIs (plugins.kyc.errorsBase) */
  errorsBase: string;
  /** the offer of a completed session, by its token; null when the token is unknown or has none */
  offer(sessionToken: string): Promise<HostedOffer | null>;
  /** the session's page URL (`<publicUrl>/v/s/<token>`), by its token; null when the token is unknown */
  sessionUrl(sessionToken: string): Promise<string | null>;
  log?: { error(obj: object, msg?: string): void };
  /** where index.html, its modules and app.css are; default: `static/` beside this module */
  staticDir?: string;
}

/** camera frames and photos are blob: URLs */
export const CONTENT_SECURITY_POLICY = pageSecurityPolicy({ 'img-src': "'self' data: blob:", 'media-src': "'self' blob:" });

const SECURITY_HEADERS = pageHeaders(CONTENT_SECURITY_POLICY, { camera: true });

const JS = 'text/javascript; charset=utf-8';

/** the page's assets: app.js and the modules it imports; a language is one more strings.<lang>.js */
const ASSETS: Readonly<Record<string, string>> = {
  'app.js': JS,
  'steps.js': JS,
  'media.js': JS,
  'messages.js': JS,
  'brand.js': JS,
  'i18n.js': JS,
  'strings.en.js': JS,
  'app.css': 'text/css; charset=utf-8',
};

/** a session token as the page and the routes take it: `sess_tok_…`, URL-safe */
const TOKEN = '[A-Za-z0-9_-]{1,256}';
const MAX_OFFER_URI = 4096;

const qrCode = (text: string) => QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, width: 320 });

/** `static/` beside this module; when running the compiled copy, the source tree's when the build did not copy it. */
export function defaultStaticDir(): string {
  return findStaticDir(new URL('./static/', import.meta.url), new URL('../../../../plugins/kyc/hosted/static/', import.meta.url));
}

export function mountHostedPage(http: Pick<HttpServer, 'route'>, opts: HostedPageOptions): void {
  const bundle = loadStaticBundle({
    dir: opts.staticDir ?? defaultStaticDir(),
    assets: ASSETS,
    prefix: '/v/assets/',
    label: 'the hosted page',
    source: 'plugins/kyc/hosted/static',
    code: 'KYC_HOSTED_ASSETS',
  });
  const problems = { errorsBase: opts.errorsBase, realm: 'kyc', ...(opts.log ? { log: opts.log } : {}) };

  http.route('GET', new RegExp(`^/v/s/(?<token>${TOKEN})/?$`), (ctx) => {
    ctx.send(200, bundle.page.body, bundle.page.type, { ...SECURITY_HEADERS, 'cache-control': 'no-store' });
  });

  routeStaticAssets(http, bundle, '/v/assets/', SECURITY_HEADERS, (ctx) => sendProblem(ctx, problems, new HttpProblem('not-found', `no asset ${ctx.path.slice(0, 120)}`)));

  http.route('GET', new RegExp(`^/v/s/(?<token>${TOKEN})/offer\\.json$`), async (ctx) => {
    try {
      const offer = await opts.offer(ctx.groups['token'] ?? '');
      if (!offer) throw new HttpProblem('not-found', 'this verification has no credential offer (yet)');
      if (offer.uri.length > MAX_OFFER_URI) throw new LedgerError('KYC_OFFER_TOO_LONG', `the credential offer is longer than ${MAX_OFFER_URI} characters`, 'internal');
      const qr = await qrCode(offer.uri);
      const body = { uri: offer.uri, qr, ...(offer.txCode !== undefined ? { txCode: offer.txCode } : {}) };
      ctx.json(200, body, { ...SECURITY_HEADERS, 'cache-control': 'no-store' });
    } catch (err) {
      sendProblem(ctx, problems, err);
    }
  });

  // continuing on a phone: the QR code holds the session's page URL and nothing else
  http.route('GET', new RegExp(`^/v/s/(?<token>${TOKEN})/handoff\\.json$`), async (ctx) => {
    try {
      const url = await opts.sessionUrl(ctx.groups['token'] ?? '');
      if (!url) throw new HttpProblem('not-found', 'no verification session for this link');
      ctx.json(200, { url, qr: await qrCode(url) }, { ...SECURITY_HEADERS, 'cache-control': 'no-store' });
    } catch (err) {
      sendProblem(ctx, problems, err);
    }
  });
}
