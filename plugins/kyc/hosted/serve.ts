import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import QRCode from 'qrcode';
import { LedgerError } from '../../../node/errors.js';
import type { HttpServer, RequestContext } from '../../../node/http/server.js';
import { HttpProblem, sendProblem } from '../../common/http/problems.js';

/**
 * The hosted end-user page (`sessionUrl` = `<publicUrl>/v/s/<sessionToken>`): one HTML page, its
 * ES module (app.js, importing media.js) and one stylesheet from `static/`, read once at mount. The page reads the token from
 * its own path and talks to the hosted JSON routes `/v1/verifications/s/<token>…`; the only JSON
 * this module serves is the credential offer with its QR code, rendered here so the page needs
 * no QR library.
 *
 * Headers: a Content-Security-Policy without inline script or style and with nothing but this
 * origin, `nosniff`, and `Referrer-Policy: no-referrer` because the page URL carries the token.
 * The HTML and the offer are never cached; the assets are cached for a year under a `?v=<hash>`
 * the HTML links to, and revalidated by ETag otherwise.
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
  log?: { error(obj: object, msg?: string): void };
  /** where index.html, app.js, media.js and app.css are; default: `static/` beside this module */
  staticDir?: string;
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(self), microphone=(), geolocation=()',
};

/** the page's files, each after the ones it imports (their links carry the imported file's hash) */
const ASSETS: ReadonlyArray<readonly [string, string]> = [
  ['media.js', 'text/javascript; charset=utf-8'],
  ['app.js', 'text/javascript; charset=utf-8'],
  ['app.css', 'text/css; charset=utf-8'],
];

/** a session token as the page and the routes take it: `sess_tok_…`, URL-safe */
const TOKEN = '[A-Za-z0-9_-]{1,256}';
const MAX_OFFER_URI = 4096;

interface Asset {
  body: Buffer;
  type: string;
  hash: string;
  etag: string;
}

/** `static/` beside this module; when running the compiled copy, the source tree's when the build did not copy it. */
export function defaultStaticDir(): string {
  const here = fileURLToPath(new URL('./static/', import.meta.url));
  if (existsSync(join(here, 'index.html'))) return here;
  const source = fileURLToPath(new URL('../../../../plugins/kyc/hosted/static/', import.meta.url));
  return existsSync(join(source, 'index.html')) ? source : here;
}

function read(dir: string, name: string): Buffer {
  try {
    return readFileSync(join(dir, name));
  } catch {
    throw new LedgerError('KYC_HOSTED_ASSETS', `the hosted page's ${name} is missing from ${dir}: the build must copy plugins/kyc/hosted/static`, 'internal');
  }
}

function asset(body: Buffer, type: string): Asset {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { body, type, hash, etag: `"${hash}"` };
}

/**
 * Links `ref` (as written in the text, quoted) to its hashed URL; every file must be linked from
 * the page or from a module that imports it.
 */
function link(text: string, ref: string, hash: string): string {
  return text.replaceAll(`"${ref}"`, `"${ref}?v=${hash}"`).replaceAll(`'${ref}'`, `'${ref}?v=${hash}'`);
}

export function mountHostedPage(http: Pick<HttpServer, 'route'>, opts: HostedPageOptions): void {
  const dir = opts.staticDir ?? defaultStaticDir();
  const assets = new Map<string, Asset>();
  let html = read(dir, 'index.html').toString('utf8');
  for (const [name, type] of ASSETS) {
    let text = read(dir, name).toString('utf8');
    for (const [dep, a] of assets) text = link(text, `./${dep}`, a.hash);
    assets.set(name, asset(Buffer.from(text, 'utf8'), type));
  }
  const texts = () => [html, ...[...assets.values()].map((a) => a.body.toString('utf8'))].join('\n');
  for (const [name, a] of assets) {
    html = link(html, `/v/assets/${name}`, a.hash);
    if (!texts().includes(`${name}?v=${a.hash}`)) throw new LedgerError('KYC_HOSTED_ASSETS', `nothing in the hosted page links /v/assets/${name}`, 'internal');
  }
  const page = Buffer.from(html, 'utf8');
  const problems = { errorsBase: opts.errorsBase, realm: 'kyc', ...(opts.log ? { log: opts.log } : {}) };

  http.route('GET', new RegExp(`^/v/s/(?<token>${TOKEN})/?$`), (ctx) => {
    ctx.send(200, page, 'text/html; charset=utf-8', { ...SECURITY_HEADERS, 'cache-control': 'no-store' });
  });

  http.route('GET', /^\/v\/assets\/(?<name>[a-z0-9.-]{1,40})$/, (ctx) => {
    const asset = assets.get(ctx.groups['name'] ?? '');
    if (!asset) return sendProblem(ctx, problems, new HttpProblem('not-found', `no asset ${ctx.path.slice(0, 120)}`));
    const versioned = ctx.query.get('v') === asset.hash;
    const headers = {
      ...SECURITY_HEADERS,
      etag: asset.etag,
      'cache-control': versioned ? 'public, max-age=31536000, immutable' : 'no-cache',
    };
    if (ifNoneMatch(ctx, asset.etag)) return ctx.send(304, '', undefined, headers);
    ctx.send(200, asset.body, asset.type, headers);
  });

  http.route('GET', new RegExp(`^/v/s/(?<token>${TOKEN})/offer\\.json$`), async (ctx) => {
    try {
      const offer = await opts.offer(ctx.groups['token'] ?? '');
      if (!offer) throw new HttpProblem('not-found', 'this verification has no credential offer (yet)');
      if (offer.uri.length > MAX_OFFER_URI) throw new LedgerError('KYC_OFFER_TOO_LONG', `the credential offer is longer than ${MAX_OFFER_URI} characters`, 'internal');
      const qr = await QRCode.toDataURL(offer.uri, { errorCorrectionLevel: 'M', margin: 2, width: 320 });
      const body = { uri: offer.uri, qr, ...(offer.txCode !== undefined ? { txCode: offer.txCode } : {}) };
      ctx.json(200, body, { ...SECURITY_HEADERS, 'cache-control': 'no-store' });
    } catch (err) {
      sendProblem(ctx, problems, err);
    }
  });
}

function ifNoneMatch(ctx: RequestContext, etag: string): boolean {
  const header = ctx.req.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
