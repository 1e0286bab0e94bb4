import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { freePortRange } from '../../node/devnet/ports.js';

/** JSON lines from a stream, one callback each (other lines are ignored). */
export function onJsonLines(stream: Readable, fn: (line: Record<string, unknown>) => void): void {
  createInterface({ input: stream }).on('line', (text) => {
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof line === 'object' && line !== null) fn(line as Record<string, unknown>);
  });
}

export interface BenchDevnet {
  proc: ChildProcess;
  rpcUrls: string[];
  /** each node's process id, by index */
  pids: number[];
  devKey: string;
  dir: string;
  /** Ctrl-C: the devnet stops its nodes; resolves with its exit code */
  stop(): Promise<number | null>;
}

/**
 * Runs `ledger devnet --json` (the built bin under `root`) with N validators in `dir`, on free
 * ports, with no plugins (the benchmark measures the chain), and waits for its ready line.
 */
export async function startDevnet(root: string, n: number, dir: string, readyTimeoutMs = 60_000 + 5_000 * n): Promise<BenchDevnet> {
  const args = ['bin/ledger.js', 'devnet', '--validators', String(n), '--dir', dir, '--rpc-port', String(await freePortRange(n)), '--p2p-port', String(await freePortRange(n)), '--plugins', 'none', '--json', '--reset'];
  const proc = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const rpcUrls: string[] = [];
  const pids: number[] = [];
  const devKey = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the devnet was not ready in ${readyTimeoutMs} ms; logs in ${dir}/node-*/node.log`)), readyTimeoutMs);
    onJsonLines(proc.stdout!, (line) => {
      if (typeof line.rpc_url === 'string') rpcUrls.push(line.rpc_url);
      if (typeof line.pid === 'number') pids.push(line.pid);
      if (line.ready === true) {
        clearTimeout(timer);
        resolve(line.dev_key as string);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the devnet exited (${code}) before it was ready; logs in ${dir}/node-*/node.log`));
    });
  }).catch(async (err: unknown) => {
    proc.kill('SIGINT');
    await exited;
    throw err;
  });
  return {
    proc,
    rpcUrls,
    pids,
    devKey,
    dir,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGINT');
      return exited;
    },
  };
}

/** Resolves once every node's canonical head is at least `seq` (funding reached every node). */
export async function waitForSeqEverywhere(heads: Array<() => Promise<number>>, seq: number, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await Promise.all(heads.map((h) => h().catch(() => 0)));
    if (s.every((x) => x >= seq)) return;
    if (Date.now() > end) throw new Error(`nodes at seq ${s.join(', ')} did not all reach ${seq} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
