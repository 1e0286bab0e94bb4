import type { Test } from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on port 0 playing an upstream API (an Ethereum node, Esplora, a price feed)
 * for the market tests: it records every request and answers with the test's handler.
 */

export interface Call {
  method: string;
  /** path and query */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (call: Call, res: ServerResponse) => void;

export interface Upstream {
  /** http://127.0.0.1:<port> */
  origin: string;
  calls: Call[];
}

export async function upstream(t: Test, handler: Handler): Promise<Upstream> {
  const calls: Call[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call: Call = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      calls.push(call);
      handler(call, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        // a handler that never answers must not hold the test open
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

/** An origin nothing listens on: a server started and closed again. */
export async function deadOrigin(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
