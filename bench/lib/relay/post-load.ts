import { Agent, request } from 'node:http';
import { pool } from '../stats.js';

/**
 * POSTs pre-packed envelopes to /didcomm with `concurrency` requests in flight over keep-alive
 * connections, stamping each request's start and end (performance.timeOrigin + now(), comparable
 * with the recipient thread's stamps). Bodies are Buffers made before the clock starts.
 */

export interface PostResult {
  status: number;
  /** when the request was handed to the socket, and when its response ended (ms since the epoch, sub-ms) */
  start: number;
  end: number;
  /** the body of an answer other than 202, cut short */
  body?: string;
}

export const now = () => performance.timeOrigin + performance.now();

export class Poster {
  private agent: Agent;
  private url: URL;

  constructor(url: string, concurrency: number) {
    this.url = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  }

  post(body: Buffer): Promise<PostResult> {
    return new Promise((resolve) => {
      const start = now();
      const req = request(
        { agent: this.agent, host: this.url.hostname, port: this.url.port, path: this.url.pathname, method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json', 'content-length': body.length } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            resolve({ status, start, end: now(), ...(status === 202 ? {} : { body: Buffer.concat(chunks).toString('utf8').slice(0, 300) }) });
          });
        },
      );
      req.on('error', (err) => resolve({ status: 0, start, end: now(), body: err.message }));
      req.end(body);
    });
  }

  /**
   * Every body once, `concurrency` at a time, in order; results by index. With `rate` (per
   * second), body i is not sent before i / rate seconds from the start (open loop, still at most
   * `concurrency` in flight: when the relay cannot keep up, the offered rate is not reached).
   */
  async all(bodies: Buffer[], concurrency: number, rate = 0): Promise<PostResult[]> {
    const out = new Array<PostResult>(bodies.length);
    const t0 = now();
    await pool(
      bodies.map((_, i) => i),
      concurrency,
      async (i) => {
        if (rate > 0) {
          const wait = t0 + (i * 1000) / rate - now();
          if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        }
        out[i] = await this.post(bodies[i]!);
      },
    );
    return out;
  }

  close(): void {
    this.agent.destroy();
  }
}
