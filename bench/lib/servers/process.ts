import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/** A database server this process started and owns (postgres.ts, redis.ts). */
export interface OwnedServer {
  /** its temporary folder, deleted by stop() */
  readonly dir: string;
  /** stops the process (halt) and deletes its folder; safe to call twice */
  stop(): Promise<void>;
  /** stops the process and keeps its data, to test what a client does while it is down */
  halt(): Promise<void>;
  /** starts it again on the same port and data after halt() */
  resume(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;
const running = new Set<ChildProcess>();
let exitHook = false;

type User = { uid: number; gid: number } | undefined;

/** Runs a command to completion; rejects with its output when it fails. */
export function runOwned(cmd: string, args: readonly string[], opts: { user: User; env: NodeJS.ProcessEnv }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], ...(opts.user ?? {}) });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}: ${out.trim().slice(-2000)}`))));
  });
}

/**
 * Spawns a server and resolves once a line of its output matches `ready`. A server still running
 * when this process exits is killed then, so a crashed test leaves no server behind.
 */
export async function startOwned(o: { name: string; dir: string; spawn: () => ChildProcess; ready: RegExp; stopSignal: NodeJS.Signals }): Promise<OwnedServer> {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const child of running) child.kill('SIGKILL');
    });
  }
  let child: ChildProcess | undefined;
  let stopped = false;
  const launch = async (): Promise<void> => {
    const c = o.spawn();
    child = c;
    running.add(c);
    c.on('exit', () => running.delete(c));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => fail(new Error(`${o.name} not ready after ${READY_TIMEOUT_MS} ms: ${out.slice(-2000)}`)), READY_TIMEOUT_MS);
      const onData = (d: Buffer) => {
        out += d.toString();
        if (o.ready.test(out)) {
          clearTimeout(timer);
          c.stdout?.off('data', onData);
          c.stderr?.off('data', onData);
          c.stdout?.resume();
          c.stderr?.resume();
          resolve();
        }
      };
      const fail = (err: Error) => {
        clearTimeout(timer);
        c.kill('SIGKILL');
        reject(err);
      };
      c.stdout?.on('data', onData);
      c.stderr?.on('data', onData);
      c.on('error', fail);
      c.on('exit', (code) => fail(new Error(`${o.name} exited with ${code} before it was ready: ${out.slice(-2000)}`)));
    });
  };
  const halt = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill(o.stopSignal);
    const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await launch();
  } catch (err) {
    rmSync(o.dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir: o.dir,
    halt,
    async resume() {
      if (stopped) throw new Error(`${o.name} was stopped`);
      if (child && child.exitCode === null && child.signalCode === null) return;
      await launch();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt();
      rmSync(o.dir, { recursive: true, force: true });
    },
  };
}
