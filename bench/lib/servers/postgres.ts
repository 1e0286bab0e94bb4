import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortRange } from '../../../node/devnet/ports.js';
import { executable, missingUnlessRequired, postgresBinDir, systemUser } from './binaries.js';
import { runOwned, startOwned, type OwnedServer } from './process.js';

/**
 * A throwaway Postgres for tests and benches: initdb in a temporary folder, the server on a free
 * loopback port, stopped and deleted by stop() (or when this process exits). Run as the
 * `postgres` system user when this process is root, since Postgres refuses root.
 */

export interface PostgresServer extends OwnedServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth on loopback) */
  readonly url: string;
  readonly port: number;
}

export interface PostgresOptions {
  /**
   * fsync and synchronous commit; default false. Tests that kill the relay do not need them (the
   * server keeps running); a bench that measures commits should turn them on.
   */
  durable?: boolean;
}

/** Why no Postgres can be started here, or undefined when one can (or CI requires one). */
export function postgresMissing(): string | undefined {
  const dir = postgresBinDir();
  const problem =
    dir && executable(join(dir, 'initdb')) && executable(join(dir, 'postgres'))
      ? process.getuid?.() === 0 && !systemUser('postgres')
        ? 'running as root, and there is no `postgres` system user to run Postgres as'
        : undefined
      : "no Postgres server binaries: install the distribution's postgresql package, or set PG_BINDIR";
  return missingUnlessRequired(problem);
}

export async function startPostgres(opts: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no Postgres server binaries: install the distribution's postgresql package, or set PG_BINDIR");
  const dir = mkdtempSync(join(tmpdir(), 'ledger-pg-'));
  const user = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
  if (process.getuid?.() === 0 && !user) throw new Error('running as root, and there is no `postgres` system user to run Postgres as');
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  try {
    await runOwned(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], { user, env });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const port = await freePortRange(1);
  const durable = opts.durable ? 'on' : 'off';
  const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', `fsync=${durable}`, '-c', `synchronous_commit=${durable}`, '-c', 'max_connections=200'];
  const spawnServer = (): ChildProcess => spawn(join(bin, 'postgres'), args, { env, stdio: ['ignore', 'ignore', 'pipe'], ...(user ?? {}) });
  const server = await startOwned({ name: 'postgres', dir, spawn: spawnServer, ready: /database system is ready to accept connections/, stopSignal: 'SIGINT' });
  return Object.assign(server, { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port });
}
