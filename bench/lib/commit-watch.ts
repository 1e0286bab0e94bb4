import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RpcClient } from '../../node/client/index.js';
import { retryRead } from './accounts.js';
import { onJsonLines } from './devnet.js';

/**
 * Follows committed blocks on one node by seq (polling its head every `pollMs`) and reports the
 * moment each block is first seen there, with its transaction hashes.
 */
export class CommitWatcher {
  private seq = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: RpcClient,
    private readonly on: { block(seq: number, atMs: number, txHashes: string[]): void; advanced(atMs: number): void },
    private readonly now: () => number,
    private readonly pollMs = 10,
  ) {}

  async start(): Promise<number> {
    this.seq = (await retryRead(() => this.client.canonHead()))?.seq ?? 0;
    this.loop = this.run();
    return this.seq;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const head = (await this.client.canonHead())!;
        if (this.seq < head.seq) this.on.advanced(this.now());
        while (this.seq < head.seq) {
          const block = await this.client.getBlockBySeq(this.seq + 1);
          this.seq++;
          this.on.block(this.seq, this.now(), block?.transactions ?? []);
        }
      } catch {
        // a busy node may time out a poll; the next one catches up
      }
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }
}

/** Milliseconds since the epoch with sub-millisecond resolution: comparable between processes. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/**
 * A CommitWatcher in a process of its own (bench/finality-watch.ts). In the load generator's
 * process, the blocks were seen up to 10 s after they committed while the load began: the
 * answers waited behind the process's own work, and every transaction's latency grew by that
 * lag. Its own process is idle but for the polls. Times come back in milliseconds since the
 * epoch and are turned into this process's performance.now() frame.
 */
export class WatcherProcess {
  private proc: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  headSeq = 0;
  /** in this process's performance.now() frame, like the times given to onCommitted */
  readonly advancedAt: number[] = [];

  constructor(
    private readonly url: string,
    private readonly onCommitted: (txHash: string, atMs: number, blockSeq: number) => void,
  ) {}

  start(): Promise<void> {
    const script = fileURLToPath(new URL('../finality-watch.js', import.meta.url));
    const proc = spawn(process.execPath, [script, this.url], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
    this.proc = proc;
    this.exited = new Promise((r) => proc.on('exit', () => r()));
    const local = (at: number) => at - performance.timeOrigin;
    return new Promise((resolve, reject) => {
      proc.on('exit', (code) => reject(new Error(`the commit watcher exited with ${code} before it started`)));
      onJsonLines(proc.stdout!, (line) => {
        if (typeof line.head === 'number') {
          this.headSeq = line.head;
          resolve();
        } else if (typeof line.advanced === 'number') {
          this.advancedAt.push(local(line.advanced));
        } else if (typeof line.seq === 'number' && typeof line.at === 'number' && Array.isArray(line.txs)) {
          this.headSeq = line.seq;
          for (const h of line.txs as string[]) this.onCommitted(h, local(line.at), line.seq);
        }
      });
    });
  }

  /** Stops polling once the watcher has reported what it saw so far. */
  async stop(): Promise<void> {
    this.proc?.stdin?.end('stop\n');
    await this.exited;
  }
}
