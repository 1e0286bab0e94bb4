import type { HttpServer } from '../../../node/http/server.js';
import { HttpProblem, sendProblem } from '../../common/http/problems.js';
import { findStaticDir, loadStaticBundle, pageHeaders, pageSecurityPolicy, routeStaticAssets } from '../../common/static-assets.js';

/**
 * The organization dashboard at `/dashboard` (docs/kyc.md, "Dashboard"): one HTML page, its ES
 * modules and one stylesheet from `static/`, read once at mount, under `/dashboard/assets/`. The
 * app keeps the account JWT in memory and calls the `/v1` routes with it; the only JSON served
 * here is `/dashboard/config.json`, what the sign-in page needs before anyone signs in: the names
 * of the configured OpenID Connect providers and the explorer's URL (`plugins.kyc.explorerUrl`).
 *
 * Headers: a Content-Security-Policy without inline script or style and with nothing but this
 * origin (images also as blob: URLs, which is how the app shows images it fetched with the
 * token), `nosniff`, `no-referrer`, no framing. The HTML and config.json are never cached; the
 * assets are cached under their `?v=<hash>` (plugins/common/static-assets.ts).
 */

export interface DashboardOptions {
  /** the base of Problem `type` URIs (plugins.kyc.errorsBase) */
  errorsBase: string;
  /** the configured OpenID Connect providers' names (plugins.kyc.providers) */
  providers: readonly string[];
  /** the explorer's public URL, for links to a credential's page; undefined: no links */
  explorerUrl?: string | undefined;
  log?: { error(obj: object, msg?: string): void };
  /** where index.html and the assets are; default: `static/` beside this module */
  staticDir?: string;
}

export const CONTENT_SECURITY_POLICY = pageSecurityPolicy({ 'img-src': "'self' blob: data:" });

const SECURITY_HEADERS = pageHeaders(CONTENT_SECURITY_POLICY);

const JS = 'text/javascript; charset=utf-8';

/** the app's assets; index.html loads app.css and app.js, which imports the rest */
const ASSETS: Readonly<Record<string, string>> = {
  'app.css': 'text/css; charset=utf-8',
  'app.js': JS,
  'api.js': JS,
  'dom.js': JS,
  'auth-pages.js': JS,
  'session-pages.js': JS,
  'review-page.js': JS,
  'credential-pages.js': JS,
  'developer-pages.js': JS,
  'webhook-pages.js': JS,
  'team-pages.js': JS,
};

/** `static/` beside this module; when running the compiled copy, the source tree's when the build did not copy it. */
export function defaultStaticDir(): string {
  return findStaticDir(new URL('./static/', import.meta.url), new URL('../../../../plugins/kyc/dashboard/static/', import.meta.url));
}

export function mountDashboard(http: Pick<HttpServer, 'route'>, opts: DashboardOptions): void {
  const bundle = loadStaticBundle({
    dir: opts.staticDir ?? defaultStaticDir(),
    assets: ASSETS,
    prefix: '/dashboard/assets/',
    label: 'the dashboard',
    source: 'plugins/kyc/dashboard/static',
    code: 'KYC_DASHBOARD_ASSETS',
    shared: ['dom-core.js'],
  });
  const problems = { errorsBase: opts.errorsBase, realm: 'kyc', ...(opts.log ? { log: opts.log } : {}) };
  const config = { providers: [...opts.providers].sort(), explorerUrl: opts.explorerUrl?.replace(/\/+$/, '') ?? null };

  http.route('GET', /^\/dashboard\/?$/, (ctx) => {
    ctx.send(200, bundle.page.body, bundle.page.type, { ...SECURITY_HEADERS, 'cache-control': 'no-store' });
  });
  http.route('GET', /^\/dashboard\/config\.json$/, (ctx) => {
    ctx.json(200, config, { ...SECURITY_HEADERS, 'cache-control': 'no-store' });
  });
  routeStaticAssets(http, bundle, '/dashboard/assets/', SECURITY_HEADERS, (ctx) => sendProblem(ctx, problems, new HttpProblem('not-found', `no asset ${ctx.path.slice(0, 120)}`)));
}
