import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readKeyFile } from '../../node/config/keyfile.js';

/** e2e tests run the built CLI (`npm test` builds first) as real processes on ephemeral ports. */
export const LEDGER_BIN = fileURLToPath(new URL('../../bin/ledger.js', import.meta.url));

export interface NodeProcess {
  url: string;
  /** the URL of each running plugin, from the start line */
  plugins: Record<string, string>;
  proc: ChildProcess;
  stderr(): string;
  /** SIGTERM and wait for a clean exit */
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
}

export async function tempDataDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-e2e-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, with NODE_OPTIONS cleared (tap's own must not reach a child). */
export function runProcess(command: string, args: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(command, args, { cwd: o.cwd, env: { ...process.env, NODE_OPTIONS: '', ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ProcessResult> {
  return runProcess(process.execPath, [LEDGER_BIN, ...args], { env });
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  /** default 0 (ephemeral) */
  rpcPort?: number;
  p2pPort?: number;
  bootstrap?: string[];
  logLevel?: string;
  /** turn the explorer on, on this port (default: no plugins) */
  explorerPort?: number;
  /** turn plugins on, each on its port (0: ephemeral); overrides explorerPort */
  plugins?: Record<string, number>;
  /** `--follow <rpc url>`: join that node's network without voting */
  follow?: string;
}

export async function startNodeProcess(t: { teardown(fn: () => unknown): void }, dataDir: string, o: StartOptions = {}): Promise<NodeProcess> {
  const args = ['start', '--data-dir', dataDir, '--rpc-port', String(o.rpcPort ?? 0), '--p2p-host', '127.0.0.1', '--p2p-port', String(o.p2pPort ?? 0)];
  const plugins = o.plugins ?? (o.explorerPort === undefined ? {} : { explorer: o.explorerPort });
  const names = Object.keys(plugins);
  args.push('--plugins', names.length === 0 ? 'none' : names.join(','));
  for (const name of names) args.push(`--${name}-port`, String(plugins[name]));
  if (o.bootstrap?.length) args.push('--bootstrap', o.bootstrap.join(','));
  if (o.follow !== undefined) args.push('--follow', o.follow);
  args.push('--log-level', o.logLevel ?? 'info');
  const proc = spawn(process.execPath, [LEDGER_BIN, ...args], {
    env: { ...process.env, NODE_OPTIONS: '', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  const pluginUrls: Record<string, string> = {};
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`node did not start in 30 s:\n${err}`)), 30_000);
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /"rpc_url"\s*:\s*"([^"]+)"/.exec(out);
      if (m && /"plugins"\s*:\s*\[[^\]]*\]/.test(out)) {
        clearTimeout(timer);
        for (const p of out.matchAll(/"name"\s*:\s*"([a-z]+)"\s*,\s*"state"\s*:\s*"running"\s*,\s*"url"\s*:\s*"([^"]+)"/g)) pluginUrls[p[1]!] = p[2]!;
        resolve(m[1]!);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`node exited with ${code} before starting:\n${err}`));
    });
  });
  return {
    url,
    plugins: pluginUrls,
    proc,
    stderr: () => err,
    stop: async () => {
      proc.kill('SIGTERM');
      return exited;
    },
    kill9: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

export async function devKey(dataDir: string) {
  return readKeyFile(join(dataDir, 'keys', 'dev.json'));
}
