import type { HttpServer } from '../../node/http/server.js';
import { findStaticDir, loadStaticBundle, pageSecurityPolicy, routeStaticAssets, sendStatic } from '../common/static-assets.js';

/**
 * The explorer's web app: `index.html` at `/`, its ES modules and stylesheet under `/assets/`,
 * read once at mount from `web/`. The app routes by the URL's hash (`/#/block/12`), so the server
 * answers one page and never has to know the app's paths. It reads only the public REST API and
 * the `/ws` feed.
 *
 * Caching (plugins/common/static-assets.ts): every asset link carries `?v=<version>`, a hash of
 * all the files, cached for a year; `/` and an asset without the current version are `no-cache`
 * with an ETag (a 304 when unchanged).
 */

export const WEB_CONTENT_SECURITY_POLICY = pageSecurityPolicy();

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': WEB_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** the app's files besides index.html; modules import each other as `'./<name>'` */
export const WEB_ASSETS: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'chain-pages.js': 'text/javascript; charset=utf-8',
  'identity-pages.js': 'text/javascript; charset=utf-8',
  'home.js': 'text/javascript; charset=utf-8',
  'verification-pages.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

export { IMMUTABLE } from '../common/static-assets.js';

/** `web/` beside this module; running the compiled copy without the copied folder, the source tree's. */
export function defaultWebDir(): string {
  return findStaticDir(new URL('./web/', import.meta.url), new URL('../../../plugins/explorer/web/', import.meta.url));
}

export function mountWebApp(http: Pick<HttpServer, 'route'>, dir: string = defaultWebDir()): { version: string } {
  const bundle = loadStaticBundle({ dir, assets: WEB_ASSETS, prefix: '/assets/', label: 'the explorer web app', source: 'plugins/explorer/web', code: 'EXPLORER_WEB_ASSETS', shared: ['dom-core.js'] });
  http.route('GET', '/', (r) => sendStatic(r, bundle, bundle.page, 'no-cache', SECURITY_HEADERS));
  routeStaticAssets(http, bundle, '/assets/', SECURITY_HEADERS, (r, name) => r.problem(404, `no asset ${name}`));
  return { version: bundle.version };
}
