import type { IncomingMessage } from 'node:http';
import { LedgerError } from '../errors.js';
import { parseJson } from '../protocol/json.js';

/**
 * Reads a request body with a size cap. A body over the cap is refused as soon as it is known:
 * from Content-Length before a byte is read, otherwise at the chunk that crosses the cap. The
 * bytes read so far are dropped and the caller answers 413 with Connection: close; the server
 * then reads and drops the rest of the body (bounded) before closing, so nothing past the cap
 * is buffered and the client still reads the 413.
 */

export function bodyTooLarge(maxBytes: number): LedgerError {
  return new LedgerError('BODY_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, 'limit', { maxBytes });
}

export function isBodyTooLarge(err: unknown): boolean {
  return err instanceof LedgerError && err.code === 'BODY_TOO_LARGE';
}

export function requestAborted(): LedgerError {
  return new LedgerError('REQUEST_ABORTED', 'the client closed the connection before sending the whole body', 'invalid');
}

/** The body length a request declares (Content-Length); NaN when it declares none (chunked). */
export function declaredLength(req: IncomingMessage): number {
  const declared = req.headers['content-length'];
  return declared === undefined ? NaN : Number(declared);
}

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  if (declaredLength(req) > maxBytes) return Promise.reject(bodyTooLarge(maxBytes));
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        chunks.length = 0;
        // stop pulling bytes until the 413 is out; the server drains the rest before closing
        req.pause();
        reject(bodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = () => {
      cleanup();
      reject(requestAborted());
    };
    const onClose = () => {
      if (req.readableEnded) return;
      cleanup();
      reject(requestAborted());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 strictly: invalid byte sequences are an error, not U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new LedgerError('BAD_UTF8', 'the request body is not valid UTF-8', 'invalid');
  }
}

/** Reads, decodes and parses a JSON body losslessly (integers beyond 2^53 become bigint). */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return parseJson(decodeUtf8(await readBody(req, maxBytes)));
}
