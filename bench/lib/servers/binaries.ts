import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Finding the distribution's database servers for the tests and benches (postgres.ts, redis.ts).
 * Outside CI a test skips when a server is missing; `.ci/run` installs them and sets
 * LEDGER_REQUIRE_SERVERS=1, and then a missing server fails the test instead of skipping it.
 */

export const serversRequired = (): boolean => process.env.LEDGER_REQUIRE_SERVERS === '1';

export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` in one of PATH's folders, or undefined */
export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * The folder of Postgres's server binaries: PG_BINDIR, else the newest of Debian's
 * /usr/lib/postgresql/<version>/bin, else the folder of an `initdb` on PATH.
 */
export function postgresBinDir(): string | undefined {
  const fromEnv = process.env.PG_BINDIR;
  if (fromEnv) return fromEnv;
  let versions: string[] = [];
  try {
    versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v));
  } catch {
    // not Debian's layout
  }
  for (const v of versions.sort((a, b) => Number(b) - Number(a))) {
    const dir = `/usr/lib/postgresql/${v}/bin`;
    if (executable(join(dir, 'initdb')) && executable(join(dir, 'postgres'))) return dir;
  }
  const initdb = onPath('initdb');
  return initdb ? join(initdb, '..') : undefined;
}

/** The uid and gid of a system user (Postgres refuses to run as root), from /etc/passwd. */
export function systemUser(name: string): { uid: number; gid: number } | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [user, , uid, gid] = line.split(':');
      if (user === name) return { uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // no /etc/passwd
  }
  return undefined;
}

/**
 * The message a test skips with when `what` cannot run here, or undefined when it can, or when
 * servers are required (CI), so that starting it fails loudly instead.
 */
export function missingUnlessRequired(problem: string | undefined): string | undefined {
  return problem && !serversRequired() ? problem : undefined;
}
