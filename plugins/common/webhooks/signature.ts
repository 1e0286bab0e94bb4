import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../../node/errors.js';

/**
 * Webhook request signing (docs/webhooks.md, "Signing").
 *
 *   Ledger-Signature: t=<unix seconds>,v1=<hex>
 *
 * `v1` is the lowercase hex HMAC-SHA256 of `t=<timestamp>` + LF + the raw body, keyed with the
 * endpoint secret: the UTF-8 bytes of the whole secret string, `whsec_` prefix included, so that
 * a receiver passes the secret it was shown to createHmac as it is. The timestamp is inside the
 * signed string, so a captured request cannot be replayed with a fresh `t`.
 */

export const SIGNATURE_HEADER = 'Ledger-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'whsec_';
const HEX64 = /^[0-9a-f]{64}$/i;
// Up to 12 digits: far beyond any real clock, and small enough to stay a safe integer.
const SECONDS = /^[0-9]{1,12}$/;
// A header is a few dozen bytes; anything far longer is not ours and is not worth parsing.
const MAX_HEADER_LENGTH = 1024;

/** HMAC-SHA256 as lowercase hex. Strings are taken as UTF-8. */
export function hmacSha256Hex(key: string | Uint8Array, data: string | Uint8Array): string {
  return createHmac('sha256', key).update(data).digest('hex');
}

/** A new endpoint secret: `whsec_` and 32 random bytes in base64url (no padding). */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** The signed string: `t=<timestamp>`, one LF, then the body bytes exactly as sent. */
function signedPayload(unixSeconds: number, body: string | Uint8Array): Buffer {
  const bodyBytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.concat([Buffer.from(`t=${unixSeconds}\n`, 'ascii'), bodyBytes]);
}

/** The `Ledger-Signature` header value for one request. A fresh timestamp is used on each attempt. */
export function signWebhook(secret: string, body: string | Uint8Array, unixSeconds: number): string {
  if (typeof secret !== 'string' || secret.length === 0) throw invalid('WEBHOOK_SECRET_INVALID', 'a webhook secret is a non-empty string');
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0 || !SECONDS.test(String(unixSeconds))) {
    throw invalid('WEBHOOK_TIMESTAMP_INVALID', 'a signature timestamp is a whole number of seconds since the Unix epoch', { unixSeconds });
  }
  return `t=${unixSeconds},v1=${hmacSha256Hex(secret, signedPayload(unixSeconds, body))}`;
}

export interface VerifyOptions {
  /** the receiver's clock in Unix seconds; default the system clock */
  nowSeconds?: number;
  /** how far `t` may be from now, in either direction; default 300 (5 minutes) */
  toleranceSeconds?: number;
}

/**
 * The receiver's check. False, never an exception, for anything that is not a valid signature
 * of this body with this secret within the tolerance: a receiver answers every such request the
 * same way. Several `v1` entries are accepted (one may match), so a sender can sign with an old
 * and a new secret while a receiver rotates.
 */
export function verifyWebhookSignature(header: unknown, body: string | Uint8Array, secret: string, opts: VerifyOptions = {}): boolean {
  try {
    if (typeof header !== 'string' || header.length > MAX_HEADER_LENGTH) return false;
    if (typeof secret !== 'string' || secret.length === 0) return false;
    if (typeof body !== 'string' && !(body instanceof Uint8Array)) return false;
    let timestamp: number | undefined;
    const candidates: Buffer[] = [];
    for (const part of header.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) return false;
      const name = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim();
      if (name === 't') {
        // Two timestamps would leave open which one was signed.
        if (timestamp !== undefined || !SECONDS.test(value)) return false;
        timestamp = Number(value);
      } else if (name === 'v1') {
        if (HEX64.test(value)) candidates.push(Buffer.from(value, 'hex'));
      }
      // Other schemes (a future v2) are ignored, so adding one does not break old receivers.
    }
    if (timestamp === undefined || candidates.length === 0) return false;
    const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
    const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!Number.isFinite(now) || !(tolerance >= 0)) return false;
    // Future timestamps are bounded too: a clock far ahead would otherwise mint long-lived requests.
    if (Math.abs(now - timestamp) > tolerance) return false;
    const expected = createHmac('sha256', secret).update(signedPayload(timestamp, body)).digest();
    let ok = false;
    // Every candidate is compared, so the time taken does not tell which one matched.
    for (const c of candidates) ok = timingSafeEqual(c, expected) || ok;
    return ok;
  } catch {
    return false;
  }
}
