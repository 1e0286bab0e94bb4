import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortRange } from '../../../node/devnet/ports.js';
import { executable, missingUnlessRequired, onPath } from './binaries.js';
import { startOwned, type OwnedServer } from './process.js';

/**
 * A throwaway Redis for tests and benches: `redis-server` on a free loopback port with its
 * folder in a temporary directory, no persistence, stopped and deleted by stop() (or when this
 * process exits). REDIS_SERVER points at another binary.
 */

export interface RedisServer extends OwnedServer {
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
}

const binary = (): string | undefined => process.env.REDIS_SERVER ?? onPath('redis-server') ?? (executable('/usr/bin/redis-server') ? '/usr/bin/redis-server' : undefined);

/** Why no Redis can be started here, or undefined when one can (or CI requires one). */
export function redisMissing(): string | undefined {
  return missingUnlessRequired(binary() ? undefined : "no redis-server: install the distribution's redis-server package, or set REDIS_SERVER");
}

export async function startRedis(): Promise<RedisServer> {
  const bin = binary();
  if (!bin) throw new Error("no redis-server: install the distribution's redis-server package, or set REDIS_SERVER");
  const dir = mkdtempSync(join(tmpdir(), 'ledger-redis-'));
  const port = await freePortRange(1);
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'no'];
  const server = await startOwned({
    name: 'redis-server',
    dir,
    spawn: () => spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] }),
    ready: /Ready to accept connections/,
    stopSignal: 'SIGTERM',
  });
  return Object.assign(server, { url: `redis://127.0.0.1:${port}`, port });
}
