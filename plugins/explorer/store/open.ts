import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { invalid } from '../../../node/errors.js';
import type { PluginContext } from '../../../node/plugins/types.js';
import { migrate } from '../../common/sql/migrate.js';
import { openPglite } from '../../common/sql/pglite.js';
import { openPostgres } from '../../common/sql/postgres.js';
import type { SqlDatabase } from '../../common/sql/types.js';
import type { Indexed } from '../rows.js';
import { Indexer } from './level/indexer.js';
import { LevelReader } from './level/reader.js';
import { WriterLease } from './sql/lease.js';
import { indexedSince, SqlReader } from './sql/reader.js';
import { EXPLORER_MIGRATIONS } from './sql/schema.js';
import { SqlIndexer } from './sql/writer.js';
import type { ExplorerReader, IndexWriter } from './types.js';

/**
 * Where the explorer keeps its index:
 *   - `postgresUrl` set: a Postgres server, which several explorer instances may share; one of
 *     them writes (the lease, sql/lease.ts), the others serve reads and follow its writes;
 *   - otherwise `store`: `leveldb` (the default), the explorer's namespace in the node's LevelDB;
 *     or `pglite`, Postgres compiled to WASM in this process, its files in
 *     <dataDir>/plugins/explorer/pglite (in memory when the node has no data directory).
 *     PGlite runs in a worker thread (common/sql/pglite.ts); why it is not the default yet is
 *     in docs/explorer.md, "Index stores".
 */

export const STORES = ['leveldb', 'pglite', 'postgres'] as const;
export type StoreKind = (typeof STORES)[number];

export interface ExplorerStore {
  readonly kind: StoreKind;
  readonly reader: ExplorerReader;
  readonly writer: IndexWriter;
  /** with several instances on one index: the writer is elected; absent, this instance always writes */
  readonly shared?: {
    lease: WriterLease;
    /** what the writer indexed in seqs [from, to), for this instance's feed */
    indexedSince(from: number, to: number): Promise<Indexed[]>;
  };
  close(): Promise<void>;
}

export type StoreFactory = (ctx: PluginContext) => Promise<ExplorerStore>;

/** the lease's time to live: how long the index may go unwritten after its writer dies */
export const LEASE_TTL_MS = 15_000;

export const levelStore = (): StoreFactory => async (ctx) => ({
  kind: 'leveldb',
  reader: new LevelReader(ctx.store),
  writer: new Indexer({ store: ctx.store, network: ctx.network, credential: (id) => ctx.chain.credential(id) }),
  close: async () => {},
});

async function sqlStore(ctx: PluginContext, kind: StoreKind, db: SqlDatabase, leaseTtlMs?: number): Promise<ExplorerStore> {
  try {
    await migrate(db, 'explorer', EXPLORER_MIGRATIONS);
  } catch (err) {
    await db.close();
    throw err;
  }
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  return {
    kind,
    reader: new SqlReader(db),
    writer: new SqlIndexer({ db, network: ctx.network, credential: (id) => ctx.chain.credential(id) }),
    ...(leaseTtlMs === undefined ? {} : { shared: { lease: new WriterLease(db, holder, leaseTtlMs), indexedSince: (from, to) => indexedSince(db, from, to) } }),
    close: () => db.close(),
  };
}

/** PGlite in `dir`, in memory when undefined */
export const pgliteStore =
  (dir?: string): StoreFactory =>
  async (ctx) =>
    sqlStore(ctx, 'pglite', await openPglite(dir, { unavailableCode: 'EXPLORER_PGLITE_UNAVAILABLE' }));

export const postgresStore =
  (url: string, leaseTtlMs = LEASE_TTL_MS): StoreFactory =>
  async (ctx) =>
    sqlStore(ctx, 'postgres', openPostgres(url, { unavailableCode: 'EXPLORER_POSTGRES_UNAVAILABLE', onError: (err) => ctx.log.warn({ err: err.message }, 'an idle explorer Postgres connection failed') }), leaseTtlMs);

/** The store the plugin's config section names (see the top of this file). */
export const configuredStore: StoreFactory = async (ctx) => {
  const { postgresUrl, store } = ctx.config;
  if (postgresUrl !== undefined) {
    if (typeof postgresUrl !== 'string' || !/^postgres(ql)?:\/\//.test(postgresUrl)) throw invalid('CONFIG_INVALID', 'plugins.explorer.postgresUrl must be a postgres:// URL');
    return postgresStore(postgresUrl)(ctx);
  }
  if (store !== undefined && store !== 'leveldb' && store !== 'pglite') throw invalid('CONFIG_INVALID', 'plugins.explorer.store must be leveldb or pglite (set postgresUrl for Postgres)');
  if ((store ?? 'leveldb') === 'leveldb') return levelStore()(ctx);
  return pgliteStore(ctx.dataDir === undefined ? undefined : join(ctx.dataDir, 'pglite'))(ctx);
};
