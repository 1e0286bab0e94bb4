import type { Test } from 'tap';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../../../node/logging.js';
import { openDatabase, type Database } from '../../../../node/state/db.js';
import { verifyWebhookSignature } from '../../../../plugins/common/webhooks/signature.js';
import { parseKycConfig, type KycConfig } from '../../../../plugins/kyc/config.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { KycWebhooks } from '../../../../plugins/kyc/webhooks/events.js';

/**
 * The webhook part on a real in-memory LevelDB, and a real HTTP receiver that verifies every
 * request's Ledger-Signature with the secrets it was told (the whole `whsec_…` string).
 */

export const silent = createLogger({ level: 'silent' });

/** Six attempts, 200 ms apart: the seed's count on a fast clock. */
export const FAST = [0, 0.2, 0.4, 0.6, 0.8, 1.0];

export function config(webhooks: Record<string, unknown> = {}): KycConfig {
  return parseKycConfig({ webhooks: { retryOffsetsSeconds: FAST, timeoutMs: 2000, ...webhooks } } as any);
}

export interface Part {
  database: Database;
  db: PluginDb;
  webhooks: KycWebhooks;
  config: KycConfig;
  /** a new KycWebhooks on the same store (the old one stopped first), as after a restart */
  restart(): Promise<KycWebhooks>;
}

export async function part(t: Test, webhooks: Record<string, unknown> = {}): Promise<Part> {
  const database = await openDatabase('memory');
  const db = new PluginDb(database.pluginStore('kyc'));
  const cfg = config(webhooks);
  const make = () => new KycWebhooks({ config: cfg, db, log: silent, now: () => Date.now() });
  const self: Part = {
    database,
    db,
    config: cfg,
    webhooks: make(),
    async restart() {
      await self.webhooks.stop();
      self.webhooks = make();
      await self.webhooks.start();
      return self.webhooks;
    },
  };
  await self.webhooks.start();
  t.teardown(async () => {
    await self.webhooks.stop();
    await database.close();
  });
  return self;
}

export interface Received {
  n: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  /** the secret whose signature matched, or null when none did */
  signedWith: string | null;
  at: number;
}

/** How to answer request n (1-based): a status, or 'hang' to never answer. */
export type Answer = (n: number, r: Received) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** the secrets the receiver checks signatures against */
  secrets: string[];
  close(): Promise<void>;
}

/**
 * A receiver on 127.0.0.1, port 0. A request whose signature matches none of `secrets` is
 * answered 401, whatever `answer` says, as a real receiver would.
 */
export async function receiver(t: Test, answer: Answer = () => 200, secrets: string[] = []): Promise<Receiver> {
  const received: Received[] = [];
  const self: Receiver = { url: '', received, secrets, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const signedWith = self.secrets.find((s) => verifyWebhookSignature(req.headers['ledger-signature'], body, s)) ?? null;
      const r: Received = { n: received.length + 1, headers: req.headers, body, json: JSON.parse(body.toString('utf8')), signedWith, at: Date.now() };
      received.push(r);
      if (signedWith === null) {
        res.writeHead(401).end('bad signature');
        return;
      }
      const a = answer(r.n, r);
      if (a === 'hang') return;
      res.writeHead(a, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  self.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
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
