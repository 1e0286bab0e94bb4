import { migrate } from '../../../common/sql/migrate.js';
import type { SqlDatabase } from '../../../common/sql/types.js';
import { part } from '../shared.js';
import type { RelayStore } from '../types.js';
import { keepRelaySecret, type RelaySecretSource } from '../secrets.js';
import { PgCore } from './core.js';
import { PgCounters } from './counters.js';
import { PgDeliveryLog, PgDocumentRepo } from './documents.js';
import { PgMediationRepo } from './mediations.js';
import { PgMessageQueue } from './messages.js';
import { RELAY_MIGRATIONS } from './schema.js';
import { pgSecretSlots } from './secrets.js';

/** the code of every call made while the relay's Postgres cannot be reached (a 503 with Retry-After) */
export const RELAY_POSTGRES_UNAVAILABLE = 'RELAY_POSTGRES_UNAVAILABLE';

export interface PostgresRelayStoreOptions {
  /** the service-key secret the relay's own secrets are sealed under; every instance on the database needs the same */
  secrets: RelaySecretSource;
  /** the clock of message ids (arrival order); default Date.now */
  now?: () => number;
  /** how often the counters are flushed; default 5000 ms */
  counterFlushMs?: number;
  /** errors of the background counter flush (the counts are kept for the next one) */
  onError?: (err: unknown) => void;
}

/**
 * The relay's store in Postgres, for several relay instances sharing one database. It migrates
 * the schema first (`relay` migrations, schema.ts; two instances starting at once apply them
 * once), and owns `db` from then on: `close()` waits for the calls under way, flushes the
 * counters and closes it. If the migration fails (the database cannot be reached), `db` is closed
 * and the error, an `unavailable` one then, is thrown. Every write resolves once committed. What
 * is kept in memory is only the counters' unflushed counts and the call order of writes to one
 * record; everything else is read from the database, so other instances' writes are seen at once.
 */
export async function createPostgresRelayStore(db: SqlDatabase, opts: PostgresRelayStoreOptions): Promise<RelayStore> {
  try {
    await migrate(db, 'relay', RELAY_MIGRATIONS);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  const core = new PgCore(db, opts.now ?? Date.now);
  const counters = new PgCounters(core, opts.counterFlushMs ?? 5000, opts.onError ?? (() => undefined));
  const secrets = pgSecretSlots(db);
  let closing: Promise<void> | undefined;
  return {
    backend: 'postgres',
    mediations: new PgMediationRepo(core),
    messages: new PgMessageQueue(core),
    documents: new PgDocumentRepo(core),
    log: new PgDeliveryLog(core),
    counters,
    /**
     * `create` runs at most once per instance; two instances racing may each run it, but the first
     * insert wins and both return the stored secret.
     */
    async secret(name: string, create: () => Uint8Array): Promise<Uint8Array> {
      part('name', name);
      return core.ordered(`secret:${name}`, () => keepRelaySecret(secrets, name, create, opts.secrets));
    },
    close(): Promise<void> {
      closing ??= (async () => {
        core.closed = true;
        counters.stop();
        await core.idle();
        try {
          await counters.flush();
        } finally {
          core.ended = true;
          await db.close();
        }
      })();
      return closing;
    },
  };
}
