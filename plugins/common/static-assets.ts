import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LedgerError } from '../../node/errors.js';
import type { HttpServer, RequestContext } from '../../node/http/server.js';

/**
 * A plugin's browser page served from a folder of static files (the explorer's web app, the KYC
 * hosted page): one HTML page and its ES modules and stylesheets, read once at mount.
 *
 * Versioning: `version` is a hash of every file, and every link to an asset (`'./app.js'` in a
 * module, `"/assets/app.css"` in the page) is rewritten to `…?v=<version>`, so a changed file
 * changes every link and a browser never mixes an old module with a new one. An asset under the
 * current version is cached for a year (`immutable`); without it (an old link, a hand-typed URL)
 * it is `no-cache` and revalidated by its ETag, a 304 when unchanged. Every asset must be linked
 * from the page or from a file it loads, so a file the build copies but nothing uses fails the mount.
 */

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * A page's Content-Security-Policy: nothing but this origin, no inline script or style, Trusted
 * Types for the DOM sinks; `extra` adds or replaces directives.
 */
export function pageSecurityPolicy(extra: Readonly<Record<string, string>> = {}): string {
  const directives: Record<string, string> = {
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self'",
    'img-src': "'self' data:",
    'connect-src': "'self'",
    'base-uri': "'none'",
    'form-action': "'none'",
    'frame-ancestors': "'none'",
    'require-trusted-types-for': "'script'",
    ...extra,
  };
  return Object.entries(directives).map(([name, value]) => `${name} ${value}`).join('; ');
}

/**
 * The headers of a page and its assets that hold a credential or personal data (the consoles, the
 * hosted page): its CSP, `nosniff`, no Referer (URLs may carry a token or a code), no framing, a
 * browsing context and resources of its own, and no device access unless `camera` is asked for.
 */
export function pageHeaders(contentSecurityPolicy: string, opts: { camera?: boolean } = {}): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': `camera=${opts.camera ? '(self)' : '()'}, microphone=(), geolocation=()`,
  };
}

export interface StaticBundleOptions {
  /** the folder holding the page and the assets */
  dir: string;
  /** the page's file name */
  page?: string;
  /** the assets by file name, with their content types */
  assets: Readonly<Record<string, string>>;
  /** the URL path the page links assets under, with both slashes (`/assets/`) */
  prefix: string;
  /** what the page is, for messages ("the hosted page") */
  label: string;
  /** the source folder the build copies, for the missing-file message */
  source: string;
  /** the stable LedgerError code of a missing or unlinked file */
  code: string;
  /** modules of plugins/common/static/ the page imports (`'./dom-core.js'`), served under `prefix` too */
  shared?: readonly string[];
}

export interface StaticFile {
  body: Buffer;
  type: string;
}

export interface StaticBundle {
  version: string;
  /** the ETag of every file of this version */
  etag: string;
  page: StaticFile;
  assets: ReadonlyMap<string, StaticFile>;
}

/** `beside` (the folder next to the compiled module) when it holds `page`, else `source` when that does, else `beside`. */
export function findStaticDir(beside: URL, source: URL, page = 'index.html'): string {
  const here = fileURLToPath(beside);
  if (existsSync(join(here, page))) return here;
  const src = fileURLToPath(source);
  return existsSync(join(src, page)) ? src : here;
}

/** plugins/common/static/, the browser modules several plugins' pages share; the source tree's when the build did not copy it. */
export function sharedStaticDir(): string {
  return findStaticDir(new URL('./static/', import.meta.url), new URL('../../../plugins/common/static/', import.meta.url), 'dom-core.js');
}

const SHARED_TYPE = 'text/javascript; charset=utf-8';

export function loadStaticBundle(opts: StaticBundleOptions): StaticBundle {
  const pageName = opts.page ?? 'index.html';
  const read = (dir: string, source: string, name: string): string => {
    try {
      return readFileSync(join(dir, name), 'utf8');
    } catch {
      throw new LedgerError(opts.code, `${opts.label}'s ${name} is missing from ${dir}: the build must copy ${source}`, 'internal');
    }
  };
  const shared = opts.shared ?? [];
  const assetTypes: Record<string, string> = { ...opts.assets };
  for (const name of shared) assetTypes[name] = SHARED_TYPE;
  const sources = new Map<string, string>([[pageName, read(opts.dir, opts.source, pageName)]]);
  for (const name of Object.keys(opts.assets)) sources.set(name, read(opts.dir, opts.source, name));
  for (const name of shared) sources.set(name, read(sharedStaticDir(), 'plugins/common/static', name));
  const hash = createHash('sha256');
  for (const [name, text] of sources) hash.update(name).update('\0').update(text).update('\0');
  const version = hash.digest('base64url').slice(0, 16);

  const link = (text: string): string => {
    let out = text;
    for (const name of Object.keys(assetTypes)) {
      for (const ref of [`./${name}`, `${opts.prefix}${name}`]) {
        out = out.replaceAll(`'${ref}'`, `'${ref}?v=${version}'`).replaceAll(`"${ref}"`, `"${ref}?v=${version}"`);
      }
    }
    return out;
  };
  const page: StaticFile = { body: Buffer.from(link(sources.get(pageName)!)), type: 'text/html; charset=utf-8' };
  const assets = new Map<string, StaticFile>(Object.entries(assetTypes).map(([name, type]) => [name, { body: Buffer.from(link(sources.get(name)!)), type }]));
  const all = [page, ...assets.values()].map((f) => f.body.toString('utf8')).join('\n');
  for (const name of assets.keys()) {
    if (!all.includes(`/${name}?v=${version}`)) throw new LedgerError(opts.code, `nothing in ${opts.label} links ${opts.prefix}${name}`, 'internal');
  }
  return { version, etag: `"${version}"`, page, assets };
}

/** Sends `file` with the bundle's ETag, or a bodiless 304 when the request already holds it. */
export function sendStatic(ctx: RequestContext, bundle: StaticBundle, file: StaticFile, cacheControl: string, headers: Record<string, string>): void {
  const all = { ...headers, etag: bundle.etag, 'cache-control': cacheControl };
  if (ifNoneMatch(ctx.req.headers['if-none-match'], bundle.etag)) return ctx.send(304, '', undefined, all);
  ctx.send(200, file.body, file.type, all);
}

/** Routes `GET <prefix><name>` to the bundle's assets: immutable under the current version, revalidated otherwise. */
export function routeStaticAssets(
  http: Pick<HttpServer, 'route'>,
  bundle: StaticBundle,
  prefix: string,
  headers: Record<string, string>,
  notFound: (ctx: RequestContext, name: string) => void,
): void {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  http.route('GET', new RegExp(`^${escaped}([a-z0-9.-]{1,40})$`), (ctx) => {
    const name = ctx.params[0] ?? '';
    const file = bundle.assets.get(name);
    if (!file) return notFound(ctx, name);
    sendStatic(ctx, bundle, file, ctx.query.get('v') === bundle.version ? IMMUTABLE : 'no-cache', headers);
  });
}

/** If-None-Match against one strong ETag: `*`, the tag, or its weak form, in a list. */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
