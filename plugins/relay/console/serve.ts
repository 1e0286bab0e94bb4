import type { HttpServer, RequestContext } from '../../../node/http/server.js';
import { HttpProblem, sendProblem } from '../../common/http/problems.js';
import { findStaticDir, loadStaticBundle, pageHeaders, pageSecurityPolicy, routeStaticAssets } from '../../common/static-assets.js';

/**
 * The operator console (docs/relay.md, "Console"): one HTML page at `/console` (and `/console/`,
 * where the OpenID provider sends the browser back), its ES modules and one stylesheet from
 * `static/`, read once at mount. Every fact the console shows comes from the operator REST under
 * /v1 on this same origin.
 *
 * Headers: a Content-Security-Policy without inline script or style and with nothing but this
 * origin, except `connect-src`, which also names the OpenID provider's origin so the browser can
 * read its discovery document and exchange the code at its token endpoint; `nosniff`;
 * `Referrer-Policy: no-referrer` because the callback URL carries the authorization code. The
 * HTML is never cached; the assets are cached for a year under the `?v=<hash>` the HTML links to.
 */

export interface ConsoleOptions {
  /** the base of Problem `type` URIs (plugins.relay.errorsBase) */
  errorsBase: string;
  /** plugins.relay.oidc's issuer, when operator login is configured: its origin joins connect-src */
  oidcIssuer?: string;
  log?: { error(obj: object, msg?: string): void };
  /** where index.html and the assets are; default: `static/` beside this module */
  staticDir?: string;
}

export const CONSOLE_PATH = '/console';
const ASSET_PREFIX = '/console/assets/';

const JS = 'text/javascript; charset=utf-8';
/** the page's assets: app.js imports the others */
const ASSETS: Readonly<Record<string, string>> = {
  'app.js': JS,
  'api.js': JS,
  'auth.js': JS,
  'dom.js': JS,
  'chart.js': JS,
  'mediations.js': JS,
  'messages.js': JS,
  'access.js': JS,
  'settings.js': JS,
  'app.css': 'text/css; charset=utf-8',
};

/** The console's CSP: the page's own origin, plus the provider's for discovery and the token exchange. */
export function consoleSecurityPolicy(oidcIssuer?: string): string {
  const provider = oidcIssuer ? ` ${new URL(oidcIssuer).origin}` : '';
  return pageSecurityPolicy({ 'connect-src': `'self'${provider}` });
}

/** `static/` beside this module; when running the compiled copy, the source tree's when the build did not copy it. */
export function defaultStaticDir(): string {
  return findStaticDir(new URL('./static/', import.meta.url), new URL('../../../../plugins/relay/console/static/', import.meta.url));
}

export function mountConsole(http: Pick<HttpServer, 'route'>, opts: ConsoleOptions): void {
  const bundle = loadStaticBundle({
    dir: opts.staticDir ?? defaultStaticDir(),
    assets: ASSETS,
    prefix: ASSET_PREFIX,
    label: 'the relay console',
    source: 'plugins/relay/console/static',
    code: 'RELAY_CONSOLE_ASSETS',
    shared: ['dom-core.js'],
  });
  const headers = pageHeaders(consoleSecurityPolicy(opts.oidcIssuer));
  const problems = { errorsBase: opts.errorsBase, realm: 'relay', ...(opts.log ? { log: opts.log } : {}) };
  const notFound = (ctx: RequestContext) =>
    sendProblem(ctx, problems, new HttpProblem('not-found', `the console has no ${ctx.path.slice(0, 120)}: its pages are addressed after the # of ${CONSOLE_PATH}/`));

  http.route('GET', /^\/console\/?$/, (ctx) => {
    ctx.send(200, bundle.page.body, bundle.page.type, { ...headers, 'cache-control': 'no-store' });
  });
  routeStaticAssets(http, bundle, ASSET_PREFIX, headers, notFound);
  http.route('GET', /^\/console\/.+$/, notFound);
}
