import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../cli/package-root.js';
import { CONFIG_ENV, FOLLOW_ENV, PLUGINS_ENV, SETTINGS } from '../config/schema.js';
import type { DevnetLayout, DevnetNode } from './layout.js';

/** One `ledger start` child per devnet node, its output appended to the node's log file. */
export interface RunningDevnet {
  children: Array<{ node: DevnetNode; proc: ChildProcess }>;
  /** resolves once every node answers ledger_canonHead; rejects when a node exits first or after the timeout (default 30 s + 5 s a node) */
  ready: Promise<void>;
  /** SIGTERM to every child, SIGKILL to any still alive after `graceMs` */
  stop(graceMs?: number): Promise<void>;
}

export function runDevnet(layout: DevnetLayout, o: { onExit(node: DevnetNode, code: number | null, signal: NodeJS.Signals | null): void; readyTimeoutMs?: number }): RunningDevnet {
  const bin = join(packageRoot(), 'bin', 'ledger.js');
  let stopping = false;
  const children = layout.nodes.map((node) => {
    const fd = openSync(node.log, 'a');
    // Each child in its own process group: Ctrl-C in a terminal signals the whole foreground group,
    // and a node that got SIGINT from the terminal and then SIGTERM from stop() would take the
    // second signal as "exit now" and skip its clean shutdown. Only stop() signals the children.
    const proc = spawn(process.execPath, [...nodeArgs(), bin, 'start', '--data-dir', node.dir], { stdio: ['ignore', fd, fd], env: childEnv(), detached: true });
    closeSync(fd);
    proc.on('exit', (code, signal) => {
      if (!stopping) o.onExit(node, code, signal);
    });
    return { node, proc };
  });
  const exited = (c: (typeof children)[number]) => c.proc.exitCode !== null || c.proc.signalCode !== null;
  // Should this process end without stop() (an uncaught error, process.exit), take the nodes along.
  const killAll = () => {
    for (const c of children) if (!exited(c)) c.proc.kill('SIGKILL');
  };
  process.once('exit', killAll);

  const ready = (async () => {
    const deadline = Date.now() + (o.readyTimeoutMs ?? 30_000 + 5_000 * children.length);
    for (const c of children) {
      while (!(await answers(c.node.rpcUrl))) {
        if (exited(c)) throw new Error(`node ${c.node.index} exited before it was ready; see ${c.node.log}`);
        if (Date.now() > deadline) throw new Error(`node ${c.node.index} did not answer on ${c.node.rpcUrl} in time; see ${c.node.log}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  })();

  const stop = async (graceMs = 10_000): Promise<void> => {
    stopping = true;
    const alive = children.filter((c) => !exited(c));
    const gone = alive.map((c) => new Promise<void>((r) => c.proc.once('exit', () => r())));
    for (const c of alive) c.proc.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const c of alive) if (!exited(c)) c.proc.kill('SIGKILL');
    }, graceMs);
    await Promise.all(gone);
    clearTimeout(timer);
    process.off('exit', killAll);
  };

  return { children, ready, stop };
}

/**
 * The children's environment: ours without the settings that each node takes from its own
 * config.json (the environment would override the file, and every node would, say, take the same
 * LEDGER_RPC_PORT). LEDGER_LOG_LEVEL passes through; NODE_OPTIONS stays with this process.
 */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  for (const name of [...SETTINGS.map((s) => s.env), PLUGINS_ENV, CONFIG_ENV, FOLLOW_ENV]) if (name !== 'LEDGER_LOG_LEVEL') delete env[name];
  return env;
}

async function answers(rpcUrl: string): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ledger_canonHead', params: [] }),
      signal: AbortSignal.timeout(2_000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

/** The last lines of a log file, for a report when a node dies. */
export function tailLines(file: string, n: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '';
  }
}

/**
 * Node.js options for every node, from LEDGER_DEVNET_NODE_ARGS (space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=prof` to profile every validator, which NODE_OPTIONS may not carry.
 */
export function nodeArgs(): string[] {
  return (process.env.LEDGER_DEVNET_NODE_ARGS ?? '').split(/\s+/).filter((a) => a !== '');
}
