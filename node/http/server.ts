import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { LedgerError } from '../errors.js';
import { stringifyJson } from '../protocol/json.js';
import { httpProblem, problemFromError, type Problem } from '../rpc/errors.js';
import { bodyTooLarge, declaredLength, isBodyTooLarge, readBody, readJsonBody } from './body.js';
import { ConnectionGate, DEFAULT_CONNECTION_LIMITS, gateConnections, type ConnectionLimits, type ConnectionStats } from './connections.js';
import { boundUnreadBody, lingerBeforeClose } from './linger.js';

/**
 * The HTTP server that rpc/ and the plugins mount routes on (node:http). Routes are tried in the
 * order they were added, so a fixed path such as `/credentials/issuers` must be added before a
 * pattern that would also match it. Unknown paths get a 404 Problem, a known path with another
 * method a 405 with `Allow`; HEAD is served by the GET route (node drops the body); OPTIONS
 * answers 204 with `Allow` (and CORS headers when `cors` is set). Errors thrown by a handler
 * become RFC 7807 Problems through rpc/errors.ts; internal ones are logged, never shown.
 *
 * Routing is on the path exactly as sent: nothing resolves `.`/`..` or turns `\` into `/`, and a
 * path with such a segment is refused with 400, so a proxy that exposes one prefix cannot be
 * walked out of.
 *
 * Limits (docs/operators.md, "Connection limits"): the connection caps of connections.ts; a
 * request that declares a body over the server's limit gets a 413 Problem before any route runs
 * (without `100 Continue`, so a client that asked first never sends it), a streamed one at the
 * chunk that crosses a route's cap; a 413 closes the connection, after a bounded drain of the rest
 * of the body so the client reads the answer instead of a reset (linger.ts). Idle and slow
 * connections are closed by the keep-alive, headers and request timeouts.
 */

export interface HttpLog {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port; listen() reports it */
  port: number;
  /** the default cap of readBody()/readJson(); a route may pass its own */
  maxBodyBytes: number;
  log?: HttpLog;
  /** idle time before a keep-alive connection is closed; default 5000 ms */
  keepAliveTimeoutMs?: number;
  /** time allowed from a connection's start (or a request's) to its last header; default 10000 ms, at least keepAliveTimeoutMs + 1000 */
  headersTimeoutMs?: number;
  /** time allowed to receive a whole request; default 30000 ms */
  requestTimeoutMs?: number;
  /** connection caps (connections.ts); default DEFAULT_CONNECTION_LIMITS */
  connections?: ConnectionLimits;
  /** how long close() lets in-flight requests finish before cutting them; default 1000 ms */
  closeGraceMs?: number;
  /** the Access-Control-Allow-Origin value; unset means no CORS headers */
  cors?: string;
  /** the base of Problem `type` URIs; default rpc/errors.ts DEFAULT_ERRORS_BASE */
  errorsBase?: string;
  /** body bytes still read after an early answer before the socket is cut; default max(4 × maxBodyBytes, 16 MiB) */
  drainMaxBytes?: number;
  /** time allowed for that drain; default 5000 ms */
  drainTimeoutMs?: number;
}

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** the request method; HEAD requests reach GET routes with `method` 'HEAD' */
  readonly method: string;
  /** the pathname as sent (still percent-encoded) */
  readonly path: string;
  readonly query: URLSearchParams;
  /** capture groups of a RegExp route, percent-decoded */
  readonly params: readonly string[];
  /** named capture groups of a RegExp route, percent-decoded */
  readonly groups: Readonly<Record<string, string>>;
  readBody(maxBytes?: number): Promise<Buffer>;
  /** the body as lossless JSON; a parse failure is a LedgerError `JSON_PARSE` (400) */
  readJson(maxBytes?: number): Promise<unknown>;
  /** contentType undefined sends no Content-Type (for 204) */
  send(status: number, body: string | Uint8Array, contentType: string | undefined, headers?: Record<string, string>): void;
  /** a JSON body written with stringifyJson (bigint as bare integers) */
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /** an RFC 7807 body, `application/problem+json` */
  problem(status: number, detail: string, code?: string): void;
}

export type RouteHandler = (ctx: RequestContext) => Promise<void> | void;

/** What a plugin's routes are mounted on: an HttpServer, or in a test a bare route table that takes any body. */
export type RouteTable = Pick<HttpServer, 'route'> & Partial<Pick<HttpServer, 'raiseBodyLimit'>>;

export interface RouteOptions {
  /** extension members of the route's 413 Problem (the JSON-RPC route adds a JSON-RPC error response's) */
  tooLargeMembers?: (problem: Problem) => Record<string, unknown>;
}

interface Route extends RouteOptions {
  method: string;
  path: string | RegExp;
  handler: RouteHandler;
}

export class HttpServer {
  /** the node:http server, for a WebSocket upgrade handler (`ws` with noServer) */
  readonly server: Server;
  private readonly routes: Route[] = [];
  private readonly log: HttpLog | undefined;
  private readonly gate: ConnectionGate;
  /** the request each socket is serving, for the close after an early answer (linger.ts) */
  private readonly serving = new WeakMap<Socket, IncomingMessage>();
  /** the largest body any request may declare or send; raised by raiseBodyLimit() */
  private bodyLimit: number;

  constructor(private readonly opts: HttpServerOptions) {
    this.log = opts.log;
    this.bodyLimit = opts.maxBodyBytes;
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      this.dispatch(req, res).catch((err: unknown) => {
        this.log?.error({ err }, 'http dispatch failed');
        if (!res.headersSent) res.destroy();
      });
    };
    // the timeouts are checked this often (node's default, 30 s, would let them run 30 s over)
    this.server = createServer({ connectionsCheckingInterval: 1000 }, handle);
    this.server.keepAliveTimeout = opts.keepAliveTimeoutMs ?? 5000;
    this.server.requestTimeout = opts.requestTimeoutMs ?? 30_000;
    // node wants the headers timeout within the request timeout (0: none)
    const headersTimeout = Math.max(this.server.keepAliveTimeout + 1000, opts.headersTimeoutMs ?? 10_000);
    this.server.headersTimeout = this.server.requestTimeout > 0 ? Math.min(this.server.requestTimeout, headersTimeout) : headersTimeout;
    // a body declared over the limit is refused before the client sends it
    this.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      if (!(declaredLength(req) > this.bodyLimit)) res.writeContinue();
      handle(req, res);
    });
    this.gate = new ConnectionGate(opts.connections ?? DEFAULT_CONNECTION_LIMITS);
    const refusals = { total: this.refusal('total'), per_ip: this.refusal('per_ip') };
    const linger = { maxBytes: opts.drainMaxBytes ?? Math.max(4 * opts.maxBodyBytes, 16 * 1024 * 1024), timeoutMs: opts.drainTimeoutMs ?? 5000 };
    gateConnections(this.server, this.gate, (reason) => refusals[reason], (socket) => lingerBeforeClose(socket, () => this.serving.get(socket), linger));
  }

  /** The whole answer to a connection over a cap: a 503 Problem with Retry-After, then the close. */
  private refusal(reason: 'total' | 'per_ip'): Buffer {
    const { maxConnections, maxConnectionsPerIp } = this.gate.limits;
    const err =
      reason === 'total'
        ? new LedgerError('TOO_MANY_CONNECTIONS', `this server holds its limit of ${maxConnections} connections; retry later`, 'unavailable', { limit: maxConnections, retryAfterSeconds: 1 })
        : new LedgerError('TOO_MANY_CONNECTIONS_PER_IP', `this server holds its limit of ${maxConnectionsPerIp} connections from one address; retry once one has closed`, 'unavailable', { limit: maxConnectionsPerIp, retryAfterSeconds: 1 });
    const { problem, headers } = problemFromError(err, this.opts.errorsBase === undefined ? {} : { errorsBase: this.opts.errorsBase });
    const body = stringifyJson({ ...problem, limit: err.data['limit'] });
    const head = { 'content-type': 'application/problem+json; charset=utf-8', ...headers, connection: 'close', 'content-length': String(Buffer.byteLength(body)) };
    return Buffer.from(`HTTP/1.1 503 ${STATUS_CODES[503]}\r\n${Object.entries(head).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`);
  }

  /** Lets requests declare or send bodies up to `maxBytes` (a plugin whose uploads are larger than the server's limit). */
  raiseBodyLimit(maxBytes: number): void {
    this.bodyLimit = Math.max(this.bodyLimit, maxBytes);
  }

  /** connections open now and refused since the start, for /metrics */
  connectionStats(): ConnectionStats {
    return this.gate.stats();
  }

  /** `path` is an exact pathname, or a RegExp that must match the whole pathname. */
  route(method: string, path: string | RegExp, handler: RouteHandler, options: RouteOptions = {}): this {
    this.routes.push({ ...options, method: method.toUpperCase(), path, handler });
    return this;
  }

  listen(): Promise<{ host: string; port: number }> {
    return new Promise((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => {
        reject(new LedgerError('HTTP_LISTEN', `cannot listen on ${this.opts.host}:${this.opts.port}: ${err.code ?? err.message}`, 'internal'));
      };
      this.server.once('error', onError);
      this.server.listen(this.opts.port, this.opts.host, () => {
        this.server.off('error', onError);
        const address = this.server.address() as AddressInfo;
        resolve({ host: address.address, port: address.port });
      });
    });
  }

  /** Stops accepting, closes idle keep-alive sockets now and busy ones after closeGraceMs. */
  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const timer = setTimeout(() => this.server.closeAllConnections(), this.opts.closeGraceMs ?? 1000);
    try {
      await closed;
    } finally {
      clearTimeout(timer);
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const errorsBase = this.opts.errorsBase;
    const problem = (status: number, detail: string, code?: string, instance?: string) => {
      const body: Problem = httpProblem(status, detail, { errorsBase, ...(code !== undefined ? { code } : {}), ...(instance !== undefined ? { instance } : {}) });
      send(res, status, stringifyJson(body), 'application/problem+json');
    };
    this.serving.set(req.socket, req);
    req.on('error', (err) => this.log?.debug({ err }, 'http request stream error'));
    res.on('error', (err) => this.log?.debug({ err }, 'http response stream error'));
    if (this.opts.cors !== undefined) res.setHeader('access-control-allow-origin', this.opts.cors);
    boundUnreadBody(req, res, this.bodyLimit);
    const target = parseTarget(req.url ?? '/');
    const method = (req.method ?? 'GET').toUpperCase();
    const candidates = typeof target === 'string' ? [] : this.routes.filter((r) => pathMatches(r.path, target.path));
    const lookup = method === 'HEAD' ? 'GET' : method;
    const route = candidates.find((r) => r.method === method) ?? candidates.find((r) => r.method === lookup);
    if (declaredLength(req) > this.bodyLimit) {
      this.tooLarge(res, this.bodyLimit, (req.url ?? '/').split('?')[0]!.slice(0, 200), route);
      return;
    }
    if (typeof target === 'string') {
      problem(400, target);
      return;
    }
    const pathname = target.path;
    if (req.url === '*' && method === 'OPTIONS') {
      res.setHeader('allow', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
      send(res, 204, '', undefined);
      return;
    }
    if (candidates.length === 0) {
      problem(404, `no route for ${method} ${pathname.slice(0, 200)}`, undefined, pathname.slice(0, 200));
      return;
    }
    const allowed = allowHeader(candidates);
    if (!route) {
      res.setHeader('allow', allowed);
      if (method === 'OPTIONS') {
        if (this.opts.cors !== undefined) {
          res.setHeader('access-control-allow-methods', allowed);
          res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? 'content-type');
          res.setHeader('access-control-max-age', '600');
        }
        send(res, 204, '', undefined);
        return;
      }
      problem(405, `${method} is not allowed on ${pathname.slice(0, 200)}; allowed: ${allowed}`);
      return;
    }

    let params: string[];
    let groups: Record<string, string>;
    try {
      ({ params, groups } = captures(route.path, pathname));
    } catch {
      problem(400, 'the path has an invalid percent-encoding');
      return;
    }
    // a route's own cap may be smaller than the server's limit, never larger
    const cap = (max: number) => Math.min(max, this.bodyLimit);
    const maxBodyBytes = this.opts.maxBodyBytes;
    const ctx: RequestContext = {
      req,
      res,
      method,
      path: pathname,
      query: target.query,
      params,
      groups,
      readBody: (max = maxBodyBytes) => readBody(req, cap(max)),
      readJson: (max = maxBodyBytes) => readJsonBody(req, cap(max)),
      send: (status, body, contentType, headers) => send(res, status, body, contentType, headers),
      json: (status, body, headers) => send(res, status, stringifyJson(body), 'application/json', headers),
      problem: (status, detail, code) => problem(status, detail, code, pathname.slice(0, 200)),
    };
    try {
      await route.handler(ctx);
    } catch (err) {
      this.fail(req, res, err, pathname, route);
    }
  }

  private fail(req: IncomingMessage, res: ServerResponse, err: unknown, pathname: string, route: Route): void {
    if (res.destroyed || req.socket.destroyed) {
      this.log?.debug({ err, path: pathname }, 'request ended by the client');
      return;
    }
    if (isBodyTooLarge(err)) {
      this.tooLarge(res, Number((err as LedgerError).data['maxBytes']), pathname.slice(0, 200), route);
      return;
    }
    if (res.headersSent) {
      this.log?.error({ err, path: pathname }, 'handler failed after sending headers');
      res.destroy();
      return;
    }
    const { problem, internal, headers } = problemFromError(err, { instance: pathname.slice(0, 200), ...(this.opts.errorsBase ? { errorsBase: this.opts.errorsBase } : {}) });
    if (internal) this.log?.error({ err, method: req.method, path: pathname }, 'http handler failed');
    send(res, problem.status, stringifyJson(problem), 'application/problem+json', headers);
  }

  /** The 413 for a body over `maxBytes`, naming it; the connection closes after it (linger.ts). */
  private tooLarge(res: ServerResponse, maxBytes: number, instance: string, route: RouteOptions | undefined): void {
    const err = bodyTooLarge(maxBytes);
    const { problem } = problemFromError(err, { instance, ...(this.opts.errorsBase ? { errorsBase: this.opts.errorsBase } : {}) });
    const body = { ...problem, maxBytes, ...route?.tooLargeMembers?.(problem) };
    send(res, 413, stringifyJson(body), 'application/problem+json', { connection: 'close' });
  }
}

/**
 * Splits the request target as sent into path and query, or says why it is refused: anything but
 * `/path`, a `.` or `..` segment (also as %2e), a backslash (also as %5c). Nothing is decoded or
 * resolved, so a route sees the same path a proxy in front of the node matched on.
 */
export function parseTarget(target: string): { path: string; query: URLSearchParams } | string {
  if (target === '*') return { path: '*', query: new URLSearchParams() };
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  const rest = end === -1 ? '' : target.slice(end);
  if (!path.startsWith('/')) return 'the request target must be a path starting with /';
  if (/\\|%5c/i.test(path)) return 'the path contains a backslash';
  if (path.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) return 'the path contains a . or .. segment';
  const query = rest.startsWith('?') ? rest.slice(1).split('#')[0]! : '';
  return { path, query: new URLSearchParams(query) };
}

function pathMatches(path: string | RegExp, pathname: string): boolean {
  if (typeof path === 'string') return path === pathname;
  const m = path.exec(pathname);
  return m !== null && m.index === 0 && m[0].length === pathname.length;
}

function captures(path: string | RegExp, pathname: string): { params: string[]; groups: Record<string, string> } {
  if (typeof path === 'string') return { params: [], groups: {} };
  const m = path.exec(pathname)!;
  const groups: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.groups ?? {})) groups[k] = decodeURIComponent(v ?? '');
  return { params: m.slice(1).map((c) => decodeURIComponent(c ?? '')), groups };
}

function allowHeader(routes: Route[]): string {
  const methods = new Set(routes.map((r) => r.method));
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods].join(', ');
}

/** Writes a whole response with Content-Length; a no-op once the response has started or died. */
export function send(res: ServerResponse, status: number, body: string | Uint8Array, contentType: string | undefined, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (contentType !== undefined && status !== 204) res.setHeader('content-type', contentType.includes('json') ? `${contentType}; charset=utf-8` : contentType);
  if (status === 204) return void res.end();
  // a string goes out in the same write as the headers; a Buffer would cost a second one (writev)
  res.setHeader('content-length', typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length);
  res.end(body);
}
