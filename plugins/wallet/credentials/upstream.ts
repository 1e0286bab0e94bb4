import { isLoopbackHost } from '../../common/http/loopback.js';
import { hostOf, quote as quoteText, readCapped } from '../../common/http/upstream.js';

export { hostOf, isLoopbackHost };

/** Issuer text in our messages: one line, at most 300 characters. */
export const quote = (text: string): string => quoteText(text, 300);

/**
 * What the credential code may contact, and how: the verification service (`plugins.wallet.kycUrl`,
 * whatever its scheme, since the operator configured it), any https URL, and plain http only on a
 * loopback host (a development issuer). Every request is bounded in time and size and follows no
 * redirect (a redirect could lead past this rule). The OpenID4VCI library is handed this as its
 * `fetch`, so the rule holds for every URL it reads out of an offer or the issuer's metadata.
 */

/** the OpenID4VCI exchange with an issuer: each request, body included */
export const ISSUER_TIMEOUT_MS = 10_000;
/** the best-effort status checks of GET /v1/credentials */
export const STATUS_TIMEOUT_MS = 3_000;
/** a credential is at most 64 KiB of JSON; metadata, offers and status lists are smaller than this */
export const MAX_UPSTREAM_BYTES = 256 * 1024;

export type UpstreamFailure = 'refused' | 'timeout' | 'unreachable' | 'redirect' | 'too-large';

/** A request that was not made (`refused`) or did not complete; `message` says which URL host and why. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  constructor(
    message: string,
    readonly failure: UpstreamFailure,
  ) {
    super(message);
  }
}

/** Why `url` may not be contacted, or null when it may. */
export function urlRefusal(url: string, kycUrl: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${quote(url)} is not a URL`;
  }
  if (u.username || u.password) return `${u.host}: a URL with credentials in it is not contacted`;
  if (sameOrigin(u, kycUrl)) return null;
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return null;
  return `${u.protocol}//${u.host} is not contacted: outside the verification service (${kycUrl}), only https URLs are (plain http on a loopback host only)`;
}

function sameOrigin(u: URL, other: string): boolean {
  try {
    return u.origin === new URL(other).origin;
  } catch {
    return false;
  }
}

/** A `fetch` with the rule above: refused URLs throw before any connection, answers are bounded. */
export function boundedFetch(o: { kycUrl: () => string; timeoutMs: number; maxBytes?: number }): typeof fetch {
  const maxBytes = o.maxBytes ?? MAX_UPSTREAM_BYTES;
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const refusal = urlRefusal(url, o.kycUrl());
    if (refusal) throw new UpstreamError(refusal, 'refused');
    const host = hostOf(url);
    const signal = AbortSignal.timeout(o.timeoutMs);
    const failed = (err: unknown): UpstreamError =>
      signal.aborted ? new UpstreamError(`${host} did not answer within ${o.timeoutMs} ms`, 'timeout') : new UpstreamError(`${host} is unreachable (${reason(err)})`, 'unreachable');
    let res: Response;
    try {
      res = await fetch(url, { ...init, redirect: 'manual', signal });
    } catch (err) {
      throw failed(err);
    }
    if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status <= 399)) {
      await res.body?.cancel().catch(() => undefined);
      throw new UpstreamError(`${host} answered a redirect (HTTP ${res.status}), which is not followed`, 'redirect');
    }
    let body: Uint8Array | 'too-large';
    try {
      body = await readCapped(res, maxBytes);
    } catch (err) {
      throw failed(err);
    }
    if (body === 'too-large') throw new UpstreamError(`${host} answered more than ${maxBytes} bytes`, 'too-large');
    const empty = res.status === 204 || res.status === 205;
    return new Response(empty ? null : Buffer.from(body), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The first UpstreamError in `err`'s cause chain (the library wraps what its fetch throws). */
export function upstreamCause(err: unknown): UpstreamError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UpstreamError) return e;
  }
  return undefined;
}

function reason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
