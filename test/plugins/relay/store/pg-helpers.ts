import type { Test } from 'tap';
import type { PostgresServer } from '../../../../bench/lib/servers/postgres.js';
import { openPostgres } from '../../../../plugins/common/sql/postgres.js';
import type { SqlDatabase } from '../../../../plugins/common/sql/types.js';
import { RELAY_POSTGRES_UNAVAILABLE, createPostgresRelayStore } from '../../../../plugins/relay/store/pg/index.js';
import type { RelayStore } from '../../../../plugins/relay/store/types.js';
import { testSecrets, type Backend, type StoreOptions } from './contract/backend.js';

/**
 * Postgres stores for the tests, on a real server (startPostgres): a fresh database per test, so
 * that no test sees another's rows, and a second pool on it to check what the stores wrote.
 */

let databases = 0;

/** a new, empty database on `server`; its URL */
export async function freshDatabase(server: PostgresServer): Promise<string> {
  const name = `relay_test_${++databases}`;
  const admin = openPostgres(server.url, { unavailableCode: 'TEST_POSTGRES_UNAVAILABLE', max: 1 });
  try {
    // a name cannot be a parameter; this one is made here, from a counter
    await admin.exec(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  return server.url.replace(/\/postgres$/, `/${name}`);
}

/** a pool as the relay opens it (compose.ts), closed by the store that owns it */
export const connect = (url: string, onError: (err: Error) => void = () => undefined): SqlDatabase =>
  openPostgres(url, { unavailableCode: RELAY_POSTGRES_UNAVAILABLE, max: 5, onError });

/** a store on `url`, closed at teardown */
export async function openStore(t: Test, url: string, opts: StoreOptions = {}): Promise<RelayStore> {
  const store = await createPostgresRelayStore(connect(url), { secrets: testSecrets, ...opts });
  t.teardown(() => store.close());
  return store;
}

/** a pool on `url` for the test's own queries, closed at teardown */
export function checker(t: Test, url: string): SqlDatabase {
  const db = connect(url);
  t.teardown(() => db.close());
  return db;
}

const PROBLEMS = `
  SELECT id, 'pending without a body' AS problem FROM relay_messages WHERE state IN ('queued', 'delivered', 'live-delivered') AND body IS NULL
  UNION ALL SELECT id, 'expired with a body' FROM relay_messages WHERE state = 'expired' AND body IS NOT NULL
  UNION ALL SELECT id, 'acknowledged without a time' FROM relay_messages WHERE state = 'acknowledged' AND acknowledged_at IS NULL
  UNION ALL SELECT id, 'delivered without a time, or not by pickup' FROM relay_messages
    WHERE state IN ('delivered', 'live-delivered') AND (delivered_at IS NULL OR protocol <> 'pickup')
  UNION ALL SELECT id, 'expired or failed without a reason' FROM relay_messages WHERE state IN ('expired', 'failed') AND reason IS NULL
  UNION ALL SELECT id, 'pending with a reason' FROM relay_messages WHERE state IN ('queued', 'delivered', 'live-delivered') AND reason IS NOT NULL`;

/** The contract's backend: a fresh database per `make`, another pool on it for `again`. */
export function postgresBackend(server: PostgresServer): Backend {
  const where = new WeakMap<RelayStore, { url: string; check: SqlDatabase }>();
  const open = async (t: Test, url: string, check: SqlDatabase, opts?: StoreOptions): Promise<RelayStore> => {
    const store = await openStore(t, url, opts);
    where.set(store, { url, check });
    return store;
  };
  return {
    name: 'postgres',
    async make(t, opts) {
      const url = await freshDatabase(server);
      return open(t, url, checker(t, url), opts);
    },
    async again(t, store, opts) {
      const { url, check } = where.get(store)!;
      return open(t, url, check, opts);
    },
    async inconsistencies(store) {
      const { rows } = await where.get(store)!.check.query<{ id: string; problem: string }>(`${PROBLEMS} ORDER BY 1, 2`);
      return rows.map((r) => `${r.id} ${r.problem}`);
    },
    async traces(store) {
      const { rows } = await where.get(store)!.check.query<{ id: string }>('SELECT id FROM relay_messages ORDER BY id');
      return rows.map((r) => r.id);
    },
  };
}
