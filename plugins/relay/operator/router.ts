import type { HttpServer, RequestContext } from '../../../node/http/server.js';
import { parseJson } from '../../../node/protocol/json.js';
import type { RelayServices } from '../core/services.js';
import type { Authenticator, Caller, Level, OperatorAuth } from './auth.js';
import { OperatorProblem, sendProblem, validation } from './problems.js';

/**
 * The operator surface's own routing on the plugin's HttpServer: each route has an auth level
 * checked before its handler, every error becomes this surface's Problem Details, and a last
 * catch-all answers unknown /v1 paths with a 404 Problem (and a known path with another method
 * with 405 and `Allow`), in the same Problem shape.
 */

/** the largest JSON body an operator route reads (413 above) */
export const DEFAULT_MAX_OPERATOR_BODY = 64 * 1024;

export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export interface OperatorRequest<L extends Level = Level> {
  readonly ctx: RequestContext;
  /** the authenticated caller; for `none` routes, null */
  readonly caller: L extends 'none' ? null : Caller;
  /** the tenant of the caller */
  readonly tenantId: L extends 'none' ? null : string;
  readonly params: readonly string[];
  readonly query: URLSearchParams;
  /** the body as a JSON object (400 when it is not one, 413 when too large) */
  body(): Promise<Record<string, unknown>>;
}

export type Handler<L extends Level> = (req: OperatorRequest<L>) => Promise<unknown> | unknown;

interface Entry {
  method: string;
  path: string | RegExp;
}

export class OperatorRouter {
  private readonly entries: Entry[] = [];

  constructor(
    private readonly http: Pick<HttpServer, 'route'>,
    private readonly auth: Authenticator,
    private readonly opts: { errorsBase: string; maxBodyBytes: number; log?: { error(obj: object, msg?: string): void } },
  ) {}

  get errorsBase(): string {
    return this.opts.errorsBase;
  }

  /** A handler's return value is sent as 200 JSON; a `Reply` sets the status and headers. */
  add<L extends Level>(method: string, path: string | RegExp, level: L, handler: Handler<L>): this {
    this.entries.push({ method, path });
    this.http.route(method, path, async (ctx) => {
      try {
        const caller = level === 'none' ? null : await this.auth.require(ctx, level as Exclude<Level, 'none'>);
        const req = {
          ctx,
          caller,
          tenantId: caller?.tenantId ?? null,
          params: ctx.params,
          query: ctx.query,
          body: () => this.readObject(ctx),
        } as OperatorRequest<L>;
        const out = await handler(req);
        if (out instanceof Reply) ctx.json(out.status, out.body, out.headers);
        else ctx.json(200, out);
      } catch (err) {
        sendProblem(ctx, this.opts.errorsBase, err, this.opts.log);
      }
    });
    return this;
  }

  /** Adds the catch-all for `base` and everything under it (`/v1`, `/v1/…`): call once, after every route. */
  fallback(base: string): void {
    const under = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:/.*)?$`);
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      this.http.route(method, under, (ctx) => {
        const allowed = new Set(this.entries.filter((e) => matches(e.path, ctx.path)).map((e) => e.method));
        if (allowed.size === 0) {
          sendProblem(ctx, this.opts.errorsBase, new OperatorProblem('not-found', `no route for ${ctx.method} ${ctx.path.slice(0, 200)}`));
          return;
        }
        if (allowed.has('GET')) allowed.add('HEAD');
        allowed.add('OPTIONS');
        const allow = [...allowed].join(', ');
        if (ctx.method === 'OPTIONS') {
          ctx.send(204, '', undefined, { allow });
          return;
        }
        sendProblem(ctx, this.opts.errorsBase, new OperatorProblem('method-not-allowed', `${ctx.method} is not allowed on ${ctx.path.slice(0, 200)}; allowed: ${allow}`, { headers: { allow } }));
      });
    }
  }

  private async readObject(ctx: RequestContext): Promise<Record<string, unknown>> {
    const raw = await ctx.readBody(this.opts.maxBodyBytes);
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
}

function matches(path: string | RegExp, pathname: string): boolean {
  if (typeof path === 'string') return path === pathname;
  const m = path.exec(pathname);
  return m !== null && m.index === 0 && m[0].length === pathname.length;
}

/** What every route module gets. */
export interface RouteDeps {
  readonly router: OperatorRouter;
  readonly services: RelayServices;
  readonly auth: OperatorAuth;
  readonly authenticator: Authenticator;
  /** open live-mode WebSockets, when the wire reports them */
  readonly live: { readonly connections: number } | undefined;
  /** the wire's public URL of POST /didcomm as it is now */
  endpoint(): Promise<string | null>;
  readonly version: string;
  now(): number;
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
