import { rmSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresMissing, startPostgres, type PostgresServer } from '../../../bench/lib/servers/postgres.js';
import { migrate } from '../../../plugins/common/sql/migrate.js';
import { openPglite } from '../../../plugins/common/sql/pglite.js';
import { levelStore, pgliteStore, postgresStore, type StoreFactory } from '../../../plugins/explorer/store/open.js';
import { EXPLORER_MIGRATIONS } from '../../../plugins/explorer/store/sql/schema.js';

/**
 * The explorer's index backends, for suites that run once per backend: LevelDB (the node's
 * namespace), PGlite (in a temporary folder) and a real throwaway Postgres (one database per
 * index, skipped only when the server binaries are absent). `index(t)` is one index: every
 * explorer started with its factory shares it, as restarts of one node do.
 */

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface Backend {
  name: 'leveldb' | 'pglite' | 'postgres';
  skip: string | false;
  index(t: Teardown): Promise<StoreFactory>;
}

let template: Promise<string> | undefined;

/** A PGlite folder with the explorer's schema, made once per process: initdb takes seconds, a copy one. */
async function pgliteTemplate(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-explorer-pglite-template-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const db = await openPglite(dir, { unavailableCode: 'TEST' });
  await migrate(db, 'explorer', EXPLORER_MIGRATIONS);
  await db.close();
  return dir;
}

let server: Promise<PostgresServer> | undefined;
let databases = 0;

/** A fresh database on this process's throwaway Postgres server (started on first use, stopped at exit). */
export async function postgresDatabase(): Promise<string> {
  server ??= startPostgres();
  const s = await server;
  const name = `explorer_${process.pid}_${++databases}`;
  const admin = new pg.Client({ connectionString: s.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return s.url.replace(/\/postgres$/, `/${name}`);
}

/** Stops the server, if one was started; call at the end of the file (t.teardown on the root). */
export async function stopPostgres(): Promise<void> {
  if (server) await (await server).stop();
}

export const BACKENDS: readonly Backend[] = [
  { name: 'leveldb', skip: false, index: async () => levelStore() },
  {
    name: 'pglite',
    skip: false,
    index: async (t) => {
      template ??= pgliteTemplate();
      const from = await template;
      const dir = await mkdtemp(join(tmpdir(), 'ledger-explorer-pglite-'));
      t.teardown(() => rm(dir, { recursive: true, force: true }));
      await cp(from, dir, { recursive: true });
      return pgliteStore(dir);
    },
  },
  { name: 'postgres', skip: postgresMissing() ?? false, index: async () => postgresStore(await postgresDatabase()) },
];

/** LEDGER_EXPLORER_BACKENDS=pglite,postgres runs only those */
export function backends(): readonly Backend[] {
  const only = process.env.LEDGER_EXPLORER_BACKENDS?.split(',');
  return only ? BACKENDS.filter((b) => only.includes(b.name)) : BACKENDS;
}
