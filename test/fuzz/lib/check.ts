import { Agent } from 'node:http';
import { parseJson } from '../../../node/protocol/json.js';
import { rawRequest } from '../../fixtures/raw-http.js';

/** One HTTP request of a fuzz case, sent as is. */
export interface HttpCase {
  category: string;
  /** what made it, for the report: the mutation kinds */
  label: string;
  method?: string;
  path?: string;
  /** the Content-Type header; null sends none */
  contentType?: string | null;
  body?: Uint8Array | string;
  /** the id of a well-formed single request, which its response must echo */
  id?: number;
}

export interface HttpAnswer {
  status: number;
  retryAfter: string | null;
  contentType: string | null;
  body: Uint8Array;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends the case byte for byte: the path as written (fetch would resolve `%2e%2e`), the body as given. */
export async function send(url: string, c: HttpCase): Promise<HttpAnswer> {
  const type = c.contentType === undefined ? 'application/json' : c.contentType;
  const res = await rawRequest(new URL(url).port, {
    method: c.method ?? 'POST',
    path: c.path ?? '/',
    headers: type === null ? {} : { 'content-type': type },
    ...(c.body === undefined ? {} : { body: Buffer.from(c.body) }),
    agent,
  });
  const h = (name: string) => (res.headers[name] === undefined ? null : String(res.headers[name]));
  return { status: res.status, retryAfter: h('retry-after'), contentType: h('content-type'), body: res.body };
}

export interface Verdict {
  /** what is wrong with the answer; empty when it is acceptable */
  problems: string[];
  /** the JSON-RPC error codes and `data.code`s the answer carries, for the counts */
  codes: string[];
  /** how many responses carried a result */
  results: number;
  /** the responses of a batch, in order, when they are all well formed */
  batch?: Array<{ id: unknown; result?: unknown; error?: { code: number; message: string; data?: { code?: unknown } } }>;
  /** the single response, when the answer is one response object */
  single?: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The rules every answer of the RPC port must keep, whatever was sent: no 5xx except the documented
 * busy 503 (-32010 with Retry-After), never -32603, and a body that is a JSON-RPC 2.0 response
 * (or an array of them) on POST /, or JSON on any other route.
 */
export function judge(c: HttpCase, a: HttpAnswer): Verdict {
  const v: Verdict = { problems: [], codes: [], results: 0 };
  const rpcRoute = (c.method ?? 'POST') === 'POST' && (c.path ?? '/') === '/';
  if (a.status >= 500 && a.status !== 503) v.problems.push(`HTTP ${a.status}`);
  // other routes answer JSON or Problem JSON, except /metrics (Prometheus text)
  if (a.status === 204 || (!rpcRoute && !/json/.test(a.contentType ?? ''))) {
    if (a.status === 204 && a.body.length > 0) v.problems.push('a 204 with a body');
    return v;
  }
  let parsed: unknown;
  try {
    parsed = parseJson(utf8.decode(a.body));
  } catch (err) {
    v.problems.push(`the body is not JSON: ${(err as Error).message}: ${Buffer.from(a.body.subarray(0, 200)).toString()}`);
    return v;
  }
  if (!rpcRoute) return v;
  const responses = Array.isArray(parsed) ? parsed : [parsed];
  if (Array.isArray(parsed) && parsed.length === 0) v.problems.push('an empty array answered');
  for (const r of responses) {
    const problem = responseProblem(r, a.status === 413 ? PROBLEM_MEMBERS : []);
    if (problem) {
      v.problems.push(`${problem}: ${JSON.stringify(r, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))?.slice(0, 300)}`);
      continue;
    }
    const { error } = r as { error?: { code: number; data?: { code?: unknown } } };
    if (error) {
      v.codes.push(typeof error.data?.code === 'string' ? `${error.code}/${error.data.code}` : String(error.code));
      if (error.code === -32603) v.problems.push('-32603 internal error');
    } else v.results++;
  }
  if (a.status === 503) {
    const busy = responses.length === 1 && (responses[0] as { error?: { code?: number } }).error?.code === -32010;
    if (!busy || a.retryAfter === null || !/^[1-9]\d*$/.test(a.retryAfter)) v.problems.push(`a 503 that is not the documented busy answer (Retry-After ${a.retryAfter})`);
  }
  if (Array.isArray(parsed) && !v.problems.length) v.batch = parsed as Verdict['batch'];
  if (!Array.isArray(parsed) && !v.problems.length) {
    v.single = parsed as Verdict['single'];
    // a body that does not parse (-32700) or is not a request (-32600) has no id to echo
    const unread = v.single?.error?.code === -32700 || v.single?.error?.code === -32600;
    if (c.id !== undefined && a.status === 200 && !unread && (parsed as { id?: unknown }).id !== c.id) v.problems.push(`the response's id is not the request's ${c.id}`);
  }
  return v;
}

/** the members the RPC's 413 has besides the JSON-RPC ones: it is an RFC 7807 Problem too (docs/rpc.md) */
const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'instance', 'code', 'maxBytes'];

function responseProblem(r: unknown, allowed: readonly string[]): string | undefined {
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return 'not a response object';
  const o = r as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (!('id' in o)) return 'no id';
  if (o.id !== null && typeof o.id !== 'string' && typeof o.id !== 'number' && typeof o.id !== 'bigint') return 'an id that is not a string, number or null';
  if (('result' in o) === ('error' in o)) return 'not exactly one of result and error';
  const extra = Object.keys(o).filter((k) => !['jsonrpc', 'id', 'result', 'error', ...allowed].includes(k));
  if (extra.length > 0) return `unexpected members ${extra.join(', ')}`;
  if ('error' in o) {
    const e = o.error as Record<string, unknown> | null;
    if (e === null || typeof e !== 'object' || !Number.isInteger(e.code) || typeof e.message !== 'string') return 'an error without an integer code and a message';
  }
  return undefined;
}
