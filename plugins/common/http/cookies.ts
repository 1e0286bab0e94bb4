import type { IncomingMessage } from 'node:http';

/** Reading and writing cookies (RFC 6265) for the plugins' browser sessions. */

/** The value of cookie `name`, or undefined; a malformed header yields undefined, never a throw. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header.length > 16_384) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    const value = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw;
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
  path?: string;
  sameSite?: 'Lax' | 'Strict' | 'None';
}

/** A Set-Cookie value: always HttpOnly, so page scripts never read the session. */
export function setCookie(name: string, value: string, o: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${o.path ?? '/'}`, `Max-Age=${Math.max(0, Math.floor(o.maxAgeSeconds))}`, 'HttpOnly', `SameSite=${o.sameSite ?? 'Lax'}`];
  if (o.secure) parts.push('Secure');
  return parts.join('; ');
}

/** The Set-Cookie value that removes cookie `name`. */
export function clearCookie(name: string, o: Omit<CookieOptions, 'maxAgeSeconds'>): string {
  return setCookie(name, '', { ...o, maxAgeSeconds: 0 });
}

/** Whether the client reached us over TLS: the socket's, or a trusted proxy's X-Forwarded-Proto. */
export function overHttps(req: IncomingMessage, trustProxy: boolean): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  const proto = req.headers['x-forwarded-proto'];
  return trustProxy && typeof proto === 'string' && proto.split(',')[0]!.trim().toLowerCase() === 'https';
}
