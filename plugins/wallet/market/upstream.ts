import { parseJson } from '../../../node/protocol/json.js';
import { hostOf, quote, readCapped } from '../../common/http/upstream.js';
import type { MarketStatus } from './errors.js';

export { hostOf, quote };

/**
 * One JSON request to an upstream API (an Ethereum node, Esplora, a price feed), bounded in time
 * and size: the whole exchange, body included, must end within `timeoutMs`, and the answer may
 * not exceed `maxBytes`. Every failure becomes the caller's typed error through `fail`, with a
 * message that says exactly what went wrong. The JSON is parsed losslessly (node/protocol/json.ts:
 * an integer beyond 2^53 is a bigint), so amounts are never rounded on the way in.
 */

export const DEFAULT_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_BYTES = 64 * 1024;
/** how much of an error answer is read to quote its reason */
const ERROR_BODY_BYTES = 2_048;

export interface UpstreamRequest {
  url: URL;
  /** names the upstream in messages, e.g. `the Ethereum node at 127.0.0.1:8545` */
  name: string;
  timeoutMs: number;
  maxBytes: number;
  /** a JSON body to POST; GET without one */
  body?: string;
  fail: (message: string, status: MarketStatus, cause?: unknown) => Error;
}

/** The answer's JSON, once the status is 2xx and the body is JSON within the bounds. */
export async function fetchJson(req: UpstreamRequest): Promise<unknown> {
  const { name, timeoutMs, fail } = req;
  const signal = AbortSignal.timeout(timeoutMs);
  const transport = (err: unknown): Error =>
    isTimeout(err) ? fail(`${name} did not answer within ${timeoutMs} ms`, 503, err) : fail(`${name} is unreachable (${networkReason(err)})`, 503, err);
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: req.body === undefined ? 'GET' : 'POST',
      headers: req.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      ...(req.body === undefined ? {} : { body: req.body }),
      // a redirect could lead anywhere; the operator configures the final URL
      redirect: 'manual',
      signal,
    });
  } catch (err) {
    throw transport(err);
  }
  if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status <= 399)) {
    await res.body?.cancel().catch(() => undefined);
    throw fail(`${name} answered a redirect (HTTP ${res.status}), which is not followed: configure the final URL`, 502);
  }
  if (res.status < 200 || res.status > 299) {
    const quoted = await errorReason(res);
    // overloaded or down: worth retrying later (503); any other refusal is the upstream's verdict (502)
    const status: MarketStatus = res.status >= 500 || res.status === 429 ? 503 : 502;
    throw fail(`${name} answered HTTP ${res.status}${quoted ? `: ${quoted}` : ''}`, status);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > req.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw fail(`${name} answered more than ${req.maxBytes} bytes (${declared})`, 502);
  }
  let bytes: Uint8Array | 'too-large';
  try {
    bytes = await readCapped(res, req.maxBytes);
  } catch (err) {
    // the body stopped coming: the timeout fired or the connection broke
    throw isTimeout(err) ? transport(err) : fail(`${name} broke off its answer (${networkReason(err)})`, 503, err);
  }
  if (bytes === 'too-large') throw fail(`${name} answered more than ${req.maxBytes} bytes`, 502);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    throw fail(`${name} answered something that is not UTF-8`, 502, err);
  }
  try {
    return parseJson(text);
  } catch (err) {
    throw fail(`${name} answered something that is not JSON (${err instanceof Error ? err.message : String(err)})`, 502, err);
  }
}

/** `base` with `path` appended to its path and `query` added to its own query (which may hold an API key). */
export function joinUrl(base: string, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url;
}

/** The reason an error answer gives: a JSON `error` (string or `{message}`), else its first line of text. */
async function errorReason(res: Response): Promise<string> {
  let text: string;
  try {
    const read = await readCapped(res, ERROR_BODY_BYTES);
    if (read === 'too-large') return '';
    text = new TextDecoder().decode(read);
  } catch {
    return '';
  }
  let reason = text;
  try {
    const json = JSON.parse(text) as Record<string, unknown> | null;
    const error = json?.['error'];
    const status = json?.['status'] as Record<string, unknown> | undefined;
    if (typeof error === 'string') reason = error;
    else if (typeof (error as { message?: unknown } | null)?.message === 'string') reason = (error as { message: string }).message;
    else if (typeof status?.['error_message'] === 'string') reason = status['error_message'];
  } catch {
    // not JSON: the text itself
  }
  return quote(reason.split('\n')[0] ?? '');
}

function isTimeout(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'TimeoutError';
}

/** fetch says only "fetch failed" or "terminated" and puts the real failure in `cause`. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.message === 'string' && cause.message !== '') return quote(cause.message);
  if (cause && typeof cause.code === 'string') return cause.code;
  if (err instanceof Error) return quote(err.message);
  return 'unknown error';
}
