import { Worker } from 'node:worker_threads';
import type { PackJob } from './pack-worker.js';
import type { RecipientCommand, RecipientJob, RecipientMessage, RecipientReport } from './recipient-worker.js';

/**
 * bench/relay's side of the recipient thread (recipient-worker.ts): starts it, and merges what it
 * reports into arrival times by inner JWE tag. The forwards it knows are `known` (tag -> seq):
 * anything else that arrives is counted as unknown, a second arrival as a duplicate.
 */
export class Recipient {
  readonly arrivals = new Map<string, number>();
  duplicates = 0;
  unknown = 0;
  readonly totals = { frames: 0, deliveries: 0, statuses: 0, acks_sent: 0, ids_acked: 0, unpack_ms: 0, problems: [] as string[] };
  private waiters: Array<{ resolve: (m: RecipientMessage) => void; reject: (err: Error) => void }> = [];
  private dead: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    readonly did: string,
    readonly doc: PackJob['recipient'],
    private readonly known: Map<string, number>,
  ) {
    worker.on('message', (m: RecipientMessage) => this.waiters.shift()?.resolve(m));
    const die = (err: Error) => {
      this.dead ??= err;
      for (const w of this.waiters.splice(0)) w.reject(err);
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`the recipient thread exited (${code})`)));
  }

  static async start(job: RecipientJob, known: Map<string, number>): Promise<Recipient> {
    const worker = new Worker(new URL('./recipient-worker.js', import.meta.url), { workerData: job });
    const first = await new Promise<RecipientMessage>((resolveMsg, reject) => {
      worker.once('message', resolveMsg);
      worker.once('error', reject);
    });
    if ('error' in first) throw new Error(`the recipient could not start: ${first.error}`);
    if (!('ready' in first)) throw new Error('the recipient said something else than ready');
    return new Recipient(worker, first.ready.did, first.ready.doc, known);
  }

  private ask(cmd: RecipientCommand): Promise<RecipientMessage> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.worker.postMessage(cmd);
    });
  }

  /** merges what arrived since the last call */
  async take(): Promise<void> {
    const m = await this.ask({ cmd: 'take' });
    if (!('report' in m)) throw new Error(`the recipient answered ${JSON.stringify(m).slice(0, 300)}`);
    const r: RecipientReport = m.report;
    for (let i = 0; i < r.tags.length; i++) {
      const tag = r.tags[i]!;
      if (!this.known.has(tag)) this.unknown++;
      else if (this.arrivals.has(tag)) this.duplicates++;
      else this.arrivals.set(tag, r.at[i]!);
    }
    for (const k of ['frames', 'deliveries', 'statuses', 'acks_sent', 'ids_acked', 'unpack_ms'] as const) this.totals[k] += r[k];
    this.totals.problems.push(...r.problems.slice(0, 20 - this.totals.problems.length));
  }

  /** waits until every tag has arrived, or the deadline; returns how many are still missing */
  async waitFor(tags: string[], deadline: number): Promise<number> {
    for (;;) {
      await this.take();
      const missing = tags.filter((t) => !this.arrivals.has(t)).length;
      if (missing === 0 || Date.now() > deadline) return missing;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<void> {
    if (!this.dead) await this.ask({ cmd: 'stop' }).catch(() => undefined);
    await this.worker.terminate();
  }
}
