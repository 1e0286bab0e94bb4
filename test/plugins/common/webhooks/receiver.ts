import type { Test } from 'tap';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP server that records what the outbox sends, for the webhook tests. */

export interface Received {
  n: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** wall time of arrival, ms */
  at: number;
}

/** How to answer request n (1-based): a status, or 'hang' to never answer. */
export type Answer = (n: number, req: Received) => number | 'hang' | ((res: ServerResponse) => void);

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** requests that have arrived and have not been answered yet */
  open(): number;
  /** the most requests open at once */
  maxOpen(): number;
  listen(port?: number): Promise<void>;
  close(): Promise<void>;
}

export async function receiver(t: Test, answer: Answer = () => 200, opts: { port?: number; holdMs?: number; listen?: boolean } = {}): Promise<Receiver> {
  const received: Received[] = [];
  let open = 0;
  let maxOpen = 0;
  let server: Server | undefined;
  let port = opts.port ?? 0;
  const handle = (req: import('node:http').IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    open++;
    maxOpen = Math.max(maxOpen, open);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { n: received.length + 1, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(r);
      const a = answer(r.n, r);
      if (a === 'hang') return;
      const reply = (): void => {
        open--;
        if (typeof a === 'function') a(res);
        else res.writeHead(a, { 'content-type': 'text/plain' }).end('ok');
      };
      if (opts.holdMs) setTimeout(reply, opts.holdMs);
      else reply();
    });
  };
  const self: Receiver = {
    get url() {
      return `http://127.0.0.1:${port}/hook`;
    },
    get port() {
      return port;
    },
    received,
    open: () => open,
    maxOpen: () => maxOpen,
    async listen(p = port) {
      server = createServer(handle);
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(p, '127.0.0.1', () => resolve());
      });
      port = (server.address() as AddressInfo).port;
    },
    async close() {
      if (!server) return;
      const s = server;
      server = undefined;
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    },
  };
  if (opts.listen !== false) await self.listen();
  t.teardown(() => self.close());
  return self;
}

/** Polls `check` until it is true, or fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
