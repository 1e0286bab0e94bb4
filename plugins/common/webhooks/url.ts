import { invalid } from '../../../node/errors.js';

/**
 * The endpoint URL rule (docs/webhooks.md, "Endpoint URLs"): HTTPS, except plain HTTP to this
 * machine's loopback (`localhost`, 127.0.0.0/8, `::1`) for development. A signed body is no
 * secret, but over plain HTTP anyone on the path could read every event.
 */

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface WebhookUrlOptions {
  /** more host names allowed over plain HTTP (a development network's service names) */
  allowHttpHosts?: readonly string[];
}

function fail(reason: string, message: string): never {
  // The URL itself is left out of the error: its query may hold a token.
  throw invalid('WEBHOOK_URL_INVALID', message, { reason });
}

/** True for the host names that always mean this machine. The URL parser has already
 *  normalized IPv4 (`127.1`, `0x7f.1`) and IPv6 (`[0::1]`) spellings. */
function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return m !== null && m[1] === '127';
}

/**
 * Checks a webhook endpoint URL and returns it normalized (`new URL(url).href`).
 * Throws LedgerError `WEBHOOK_URL_INVALID` (kind invalid, `data.reason`) when it breaks the rule.
 */
export function validateWebhookUrl(url: unknown, opts: WebhookUrlOptions = {}): string {
  if (typeof url !== 'string' || url.length === 0) fail('missing', 'a webhook URL is a non-empty string');
  if (url.length > MAX_WEBHOOK_URL_LENGTH) fail('too_long', `a webhook URL is at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  // The parser would silently strip these; a URL that needs them is a copy-and-paste mistake.
  if (/[\s\u0000-\u001f\u007f]/.test(url)) fail('whitespace', 'a webhook URL has no spaces or control characters');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    fail('malformed', 'a webhook URL must be an absolute URL');
  }
  if (parsed.username !== '' || parsed.password !== '') fail('credentials', 'a webhook URL must not carry a user name or password');
  if (parsed.protocol === 'https:') {
    if (parsed.hostname === '') fail('malformed', 'a webhook URL needs a host');
  } else if (parsed.protocol === 'http:') {
    const extra = (opts.allowHttpHosts ?? []).map((h) => h.toLowerCase());
    if (!isLoopback(parsed.hostname) && !extra.includes(parsed.hostname)) {
      fail('not_https', 'a webhook URL must use https (plain http only to localhost, 127.0.0.0/8 or ::1)');
    }
  } else {
    fail('scheme', 'a webhook URL must use https');
  }
  if (parsed.href.length > MAX_WEBHOOK_URL_LENGTH) fail('too_long', `a webhook URL is at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  return parsed.href;
}
