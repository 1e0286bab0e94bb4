import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../../../plugins/common/webhooks/signature.js';

/**
 * A webhook receiver on 127.0.0.1 that checks every delivery's `Ledger-Signature` against the
 * endpoint secret, as an integrator's server would, and keeps the verified events. `fail(n)`
 * answers the next n deliveries with 500, to exercise retries.
 */

export interface ReceivedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
  /** when it arrived (ms) */
  at: number;
}

export class WebhookReceiver {
  readonly events: ReceivedEvent[] = [];
  /** deliveries whose signature did not verify (answered 400) */
  rejected = 0;
  /** every request, failed on purpose or not */
  attempts = 0;
  secret = '';
  private failNext = 0;
  private waiters: Array<{ match: (e: ReceivedEvent) => boolean; resolve: (e: ReceivedEvent) => void }> = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.attempts++;
        const body = Buffer.concat(chunks).toString('utf8');
        const header = req.headers['ledger-signature'];
        const ok = verifyWebhookSignature(header, body, this.secret);
        if (!ok) {
          this.rejected++;
          res.writeHead(400).end();
          return;
        }
        if (this.failNext > 0) {
          this.failNext--;
          res.writeHead(500).end();
          return;
        }
        const event = { ...(JSON.parse(body) as Omit<ReceivedEvent, 'at'>), at: Date.now() };
        this.events.push(event);
        res.writeHead(200).end();
        this.waiters = this.waiters.filter((w) => {
          if (!w.match(event)) return true;
          w.resolve(event);
          return false;
        });
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  fail(n: number): void {
    this.failNext = n;
  }

  /** The first event (already received or to come) that matches. */
  waitFor(match: (e: ReceivedEvent) => boolean, timeoutMs = 60_000): Promise<ReceivedEvent> {
    const found = this.events.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching webhook within ${timeoutMs} ms; got ${this.events.map((e) => e.type).join(', ') || 'none'}`)), timeoutMs);
      this.waiters.push({ match, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  }

  close(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
