import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { declaredLength } from './body.js';

/**
 * How a connection closes while the request body is still coming, after an early answer (a 413,
 * or any answer to a route that did not read the body).
 *
 * node:http closes the socket as soon as a `Connection: close` response is written; the client,
 * still sending, then gets a reset, which can destroy the answer in its receive buffer (fetch
 * reports EPIPE or ECONNRESET instead of the 413). Here the rest of the body is read and dropped
 * until it ends, for at most `maxBytes` and `timeoutMs`, and only then is the socket closed. A body
 * declared larger than `maxBytes`, which will be cut anyway, and one that will never come (after
 * an `Expect: 100-continue` answered without the 100) get a FIN right after the answer instead, so
 * that the client stops sending and reads the answer before the close. node:http closes through
 * socket.destroySoon(), so that is what is wrapped, once per connection.
 */

export interface LingerBounds {
  maxBytes: number;
  timeoutMs: number;
}

export function lingerBeforeClose(socket: Socket, serving: () => IncomingMessage | undefined, bounds: LingerBounds): void {
  const destroySoon = socket.destroySoon.bind(socket);
  let lingering = false;
  socket.destroySoon = () => {
    const req = serving();
    if (req === undefined || req.complete || req.destroyed || socket.destroyed) return destroySoon();
    if (lingering) return;
    lingering = true;
    let received = 0;
    const timer = setTimeout(() => socket.destroy(), bounds.timeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > bounds.maxBytes) socket.destroy();
    });
    req.once('end', destroySoon);
    req.once('close', destroySoon);
    if (declaredLength(req) > bounds.maxBytes || awaitsContinue(req)) socket.end();
    req.resume();
  };
}

/** A client that asked for `100 Continue` and got a final answer instead sends no body at all. */
function awaitsContinue(req: IncomingMessage): boolean {
  return req.headers.expect?.toLowerCase() === '100-continue' && !req.readableDidRead;
}

/**
 * Bounds a body the route answered without reading. node:http would read and drop it to its end
 * after the answer, however long; here it is read by a counter instead, and past `maxBytes` the
 * connection closes (as above). Call before the route runs: the counter must be in place before
 * node's own 'finish' listener decides to drop the body.
 */
export function boundUnreadBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  res.prependOnceListener('finish', () => {
    if (req.complete || req.readableDidRead || req.destroyed) return;
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) req.socket.destroySoon();
    });
  });
}
