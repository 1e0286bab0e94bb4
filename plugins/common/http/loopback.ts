import { isIP } from 'node:net';

/**
 * Loopback hosts: `localhost`, 127.0.0.0/8 and `::1`, the names that always mean this machine.
 * Plain http is tolerated only to them (a development service), where nobody sits on the wire.
 */

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && host === '::1';
}

/** True for an `http:` URL whose host is loopback; false for any other URL or a malformed one. */
export function isLoopbackHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}
