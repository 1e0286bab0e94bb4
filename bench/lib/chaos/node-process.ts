import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, openSync, writeSync } from 'node:fs';
import { childEnv as devnetEnv, tailLines } from '../../../node/devnet/run.js';

/** One `ledger start` child: its stderr (the JSON logs) and stdout appended to `logFile`. */
export interface NodeProcess {
  proc: ChildProcess;
  url: string;
  logFile: string;
  /** performance.now() when it was spawned and when it printed its RPC URL */
  spawnedAt: number;
  readyAt: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** SIGTERM, then SIGKILL if still alive after `graceMs`; resolves with the exit code */
  stop(graceMs?: number): Promise<number | null>;
  kill9(): Promise<void>;
}

export interface SpawnNodeOptions {
  bin: string;
  dataDir: string;
  rpcPort: number;
  p2pPort: number;
  logFile: string;
  env?: NodeJS.ProcessEnv;
  /** default warn: a long soak at info fills the disk */
  logLevel?: string;
  readyTimeoutMs?: number;
  /** --plugins (default none: the chaos harness measures the chain) */
  plugins?: string;
  /** more `ledger start` flags, e.g. ['--relay-port', '9000'] */
  args?: string[];
  /** flags for node itself, before the script (e.g. --cpu-prof, which NODE_OPTIONS refuses) */
  nodeArgs?: string[];
}

/** The node did not come up: it exited first (a crash hook may do that on purpose) or never answered. */
export class NodeStartError extends Error {
  override readonly name = 'NodeStartError';
  constructor(
    readonly code: 'NODE_EXITED' | 'NODE_START_TIMEOUT',
    message: string,
    readonly signal: NodeJS.Signals | null = null,
  ) {
    super(message);
  }
}

export async function spawnNode(o: SpawnNodeOptions): Promise<NodeProcess> {
  const args = ['start', '--data-dir', o.dataDir, '--rpc-port', String(o.rpcPort), '--p2p-host', '127.0.0.1', '--p2p-port', String(o.p2pPort), '--plugins', o.plugins ?? 'none', '--log-level', o.logLevel ?? 'warn', ...(o.args ?? [])];
  const fd = openSync(o.logFile, 'a');
  // A marker per start, so that the log of a node restarted ten times reads as ten runs.
  const extra = Object.keys(o.env ?? {}).length > 0 ? ` env ${JSON.stringify(o.env)}` : '';
  writeSync(fd, `# ${new Date().toISOString()} ledger start${extra}\n`);
  const spawnedAt = performance.now();
  // stderr straight into the file: the logs survive however busy (or dead) this process is.
  const proc = spawn(process.execPath, [...(o.nodeArgs ?? []), o.bin, ...args], { env: childEnv(o.env), stdio: ['ignore', 'pipe', fd] });
  closeSync(fd);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const ms = o.readyTimeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new NodeStartError('NODE_START_TIMEOUT', `node in ${o.dataDir} did not print its RPC URL in ${ms} ms:\n${tailLines(o.logFile, 20)}`));
    }, ms);
    let ready = false;
    proc.stdout!.on('data', (d: Buffer) => {
      if (ready) return appendFileSync(o.logFile, d);
      out += d.toString();
      const m = /"rpc_url"\s*:\s*"([^"]+)"/.exec(out);
      if (m) {
        // one line instead of the pretty-printed start summary, so that a log's tail stays readable
        appendFileSync(o.logFile, `# serving ${m[1]}\n`);
        ready = true;
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then(({ code, signal }) => {
      if (!ready && out !== '') appendFileSync(o.logFile, out);
      clearTimeout(timer);
      reject(new NodeStartError('NODE_EXITED', `node in ${o.dataDir} exited (${signal ?? code}) before it served:\n${tailLines(o.logFile, 20)}`, signal));
    });
  });
  const readyAt = performance.now();
  return {
    proc,
    url,
    logFile: o.logFile,
    spawnedAt,
    readyAt,
    exited,
    alive,
    stop: async (graceMs = 10_000) => {
      if (alive()) proc.kill('SIGTERM');
      const timer = setTimeout(() => alive() && proc.kill('SIGKILL'), graceMs);
      const { code } = await exited;
      clearTimeout(timer);
      return code;
    },
    kill9: async () => {
      if (alive()) proc.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A devnet node's environment (node/devnet/run.ts: without the settings each node takes from its
 * own config.json; --log-level overrides LEDGER_LOG_LEVEL), without any crash hook meant for one
 * start only, plus `extra`.
 */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = devnetEnv();
  for (const name of Object.keys(env)) if (name.startsWith('LEDGER_TEST_')) delete env[name];
  return { ...env, ...extra };
}
