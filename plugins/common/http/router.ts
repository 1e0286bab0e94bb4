import type { RequestContext, RouteTable } from '../../../node/http/server.js';
import { parseJson } from '../../../node/protocol/json.js';
import { HttpProblem, sendProblem, validation, type ProblemOptions } from './problems.js';

/**
 * A plugin REST surface's routing on its HttpServer: each route has an auth level checked before
 * its handler, every error becomes the surface's Problem Details, and a last catch-all answers
 * unknown paths under a base with a 404 Problem (and a known path with another method with 405
 * and `Allow`), in the same Problem shape.
 */

export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** Checks a request's credential for a route level; throws a Problem (401, 403) when it fails. */
export interface Authenticator<L extends string, C> {
  require(ctx: RequestContext, level: Exclude<L, 'none'>): Promise<C>;
}

export interface RestRequest<C> {
  readonly ctx: RequestContext;
  /** the authenticated caller; null on `none` routes */
  readonly caller: C;
  /** the caller's tenant (organization); null on `none` routes */
  readonly tenantId: C extends null ? null : string;
  readonly params: readonly string[];
  readonly query: URLSearchParams;
  /** the body as a JSON object (400 when it is not one, 413 when too large) */
  body(): Promise<Record<string, unknown>>;
}

export interface RestRouterOptions<C> extends ProblemOptions {
  /** the largest JSON body `body()` reads (413 above) */
  maxBodyBytes: number;
  /** the tenant an authenticated caller belongs to */
  tenantOf(caller: C): string;
}

interface Entry {
  method: string;
  path: string | RegExp;
}

export class RestRouter<L extends string, C> {
  private readonly entries: Entry[] = [];

  constructor(
    private readonly http: RouteTable,
    private readonly auth: Authenticator<L, C>,
    readonly opts: RestRouterOptions<C>,
  ) {
    // the server's own limit refuses larger bodies before any route reads them
    http.raiseBodyLimit?.(opts.maxBodyBytes);
  }

  get errorsBase(): string {
    return this.opts.errorsBase;
  }

  /** A handler's return value is sent as 200 JSON; a `Reply` sets the status and headers. */
  add<Lv extends L>(method: string, path: string | RegExp, level: Lv, handler: (req: RestRequest<Lv extends 'none' ? null : C>) => Promise<unknown> | unknown): this {
    this.entries.push({ method, path });
    this.http.route(method, path, async (ctx) => {
      try {
        const caller = level === 'none' ? null : await this.auth.require(ctx, level as unknown as Exclude<L, 'none'>);
        const req = { ctx, caller, tenantId: caller === null ? null : this.opts.tenantOf(caller as C), params: ctx.params, query: ctx.query, body: () => readObject(ctx, this.opts.maxBodyBytes) } as RestRequest<Lv extends 'none' ? null : C>;
        const out = await handler(req);
        if (out instanceof Reply) ctx.json(out.status, out.body, out.headers);
        else ctx.json(200, out);
      } catch (err) {
        this.problem(ctx, err);
      }
    });
    return this;
  }

  /** Answers `err` as this surface's Problem Details (for routes mounted outside `add`). */
  problem(ctx: RequestContext, err: unknown): void {
    sendProblem(ctx, this.opts, err);
  }

  /** Adds the catch-all for `base` and everything under it (`/v1`, `/v1/…`): call once, after every route. */
  fallback(base: string): void {
    const under = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:/.*)?$`);
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      this.http.route(method, under, (ctx) => {
        const allowed = new Set(this.entries.filter((e) => matches(e.path, ctx.path)).map((e) => e.method));
        if (allowed.size === 0) {
          this.problem(ctx, new HttpProblem('not-found', `no route for ${ctx.method} ${ctx.path.slice(0, 200)}`));
          return;
        }
        if (allowed.has('GET')) allowed.add('HEAD');
        allowed.add('OPTIONS');
        const allow = [...allowed].join(', ');
        if (ctx.method === 'OPTIONS') {
          ctx.send(204, '', undefined, { allow });
          return;
        }
        this.problem(ctx, new HttpProblem('method-not-allowed', `${ctx.method} is not allowed on ${ctx.path.slice(0, 200)}; allowed: ${allow}`, { headers: { allow } }));
      });
    }
  }
}

/** The body as a JSON object: 400 when empty, not JSON or not an object; 413 above `maxBytes`. */
export async function readObject(ctx: RequestContext, maxBytes: number): Promise<Record<string, unknown>> {
  const raw = await ctx.readBody(maxBytes);
  if (raw.length === 0) throw validation('the request needs a JSON object body');
  let value: unknown;
  try {
    value = parseJson(raw.toString('utf8'));
  } catch (err) {
    throw validation(`the body is not valid JSON: ${(err as Error).message.slice(0, 200)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validation('the body must be a JSON object');
  return value as Record<string, unknown>;
}

function matches(path: string | RegExp, pathname: string): boolean {
  if (typeof path === 'string') return path === pathname;
  const m = path.exec(pathname);
  return m !== null && m.index === 0 && m[0].length === pathname.length;
}

/** Runs the tasks of one key (a key id, a tenant) one after another: read-modify-writes of one document. */
export class KeyedSerial {
  private tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
