/**
 * Reading what another service answered, safely: a body read up to a size cap (cut off, not
 * buffered, above it), and text from elsewhere made fit to quote in our own messages. The
 * plugins' upstream clients (chain adapters, price feeds, OpenID4VCI issuers) share these.
 */

/** The body of `res`, or 'too-large' as soon as it passes `maxBytes` (a declared length above it is not read at all). */
export async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array | 'too-large'> {
  if (Number(res.headers.get('content-length') ?? Number.NaN) > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    return 'too-large';
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return 'too-large';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Text from elsewhere, fit for a message: one line, no control characters, at most `max` characters. */
export function quote(text: string, max = 200): string {
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** The host (and port) of a URL: the only part of it quoted to callers (a key may sit in its path or query). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}
