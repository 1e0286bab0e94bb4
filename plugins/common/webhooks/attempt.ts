import { performance } from 'node:perf_hooks';
import { SIGNATURE_HEADER, signWebhook } from './signature.js';

/**
 * One HTTP attempt of one delivery: sign with a fresh timestamp, POST, read the status, drain a
 * little of the response. It never throws: every way a request can go wrong is an outcome.
 */

/** Enough of a response body to let the connection be reused; the rest is dropped. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_ERROR_LENGTH = 300;

export interface AttemptRequest {
  url: string;
  /** the exact bytes to send, the same on every attempt */
  body: string;
  secret: string;
  eventId: string;
  eventType: string;
  userAgent: string;
  timeoutMs: number;
  /** aborts the request when the outbox stops: the outcome is then `aborted`, not a failure */
  stop: AbortSignal;
  /** wall clock in ms, for the signature's `t` and the record's timestamps */
  now: () => number;
}

export interface AttemptOutcome {
  ok: boolean;
  /** the outbox stopped during the attempt: nothing is known about whether it arrived */
  aborted: boolean;
  statusCode: number | null;
  error?: string;
  requestedAt: number;
  respondedAt: number;
  /** ms from sending to the status line or the failure */
  duration: number;
  headers: Record<string, string>;
}

export function requestHeaders(req: AttemptRequest, unixSeconds: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': req.userAgent,
    [SIGNATURE_HEADER]: signWebhook(req.secret, req.body, unixSeconds),
    'Ledger-Event-Id': req.eventId,
    'Ledger-Event-Type': req.eventType,
  };
}

export async function attemptDelivery(req: AttemptRequest): Promise<AttemptOutcome> {
  const requestedAt = req.now();
  const headers = requestHeaders(req, Math.floor(requestedAt / 1000));
  const started = performance.now();
  const signal = AbortSignal.any([req.stop, AbortSignal.timeout(req.timeoutMs)]);
  const done = (fields: { ok: boolean; statusCode: number | null; error?: string }): AttemptOutcome => ({
    ...fields,
    aborted: req.stop.aborted,
    requestedAt,
    respondedAt: req.now(),
    duration: Math.round(performance.now() - started),
    headers,
  });
  let res: Response;
  try {
    // A redirect is a failure: following it would send a signed event somewhere not registered.
    res = await fetch(req.url, { method: 'POST', headers, body: req.body, redirect: 'manual', signal });
  } catch (err) {
    return done({ ok: false, statusCode: null, error: describe(err, req.timeoutMs) });
  }
  const statusCode = res.status;
  const outcome = done(
    statusCode >= 200 && statusCode <= 299
      ? { ok: true, statusCode }
      : { ok: false, statusCode, error: statusCode >= 300 && statusCode <= 399 ? `redirect (HTTP ${statusCode}) not followed` : res.type === 'opaqueredirect' ? 'redirect not followed' : `HTTP ${statusCode}` },
  );
  // Drained within the same timeout; the outcome stands whatever the body does.
  await drain(res);
  return outcome;
}

async function drain(res: Response): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
      if (read >= MAX_RESPONSE_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // an aborted or broken body: nothing to do
  }
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no response within ${timeoutMs} ms`;
  if (e?.name === 'AbortError') return 'aborted';
  // undici wraps network errors as TypeError('fetch failed') with the real one as `cause`.
  const cause = e?.cause;
  const text = cause?.code ? `${cause.code}${cause.message ? `: ${cause.message}` : ''}` : (cause?.message ?? e?.message ?? String(err));
  return text.slice(0, MAX_ERROR_LENGTH);
}
