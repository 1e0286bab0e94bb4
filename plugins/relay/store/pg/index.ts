import { invalid } from '../../../../node/errors.js';
import { migrate } from '../../../common/sql/migrate.js';
import type { SqlDatabase } from '../../../common/sql/types.js';
import { part } from '../shared.js';
import type { RelayStore } from '../types.js';
import { PgCore, fromBytea, toBytea } from './core.js';
import { PgCounters } from './counters.js';
import { PgDeliveryLog, PgDocumentRepo } from './documents.js';
import { PgMediationRepo } from './mediations.js';
import { PgMessageQueue } from './messages.js';
import { RELAY_MIGRATIONS } from './schema.js';

/** the code of every call made while the relay's Postgres cannot be reached (a 503 with Retry-After) */
export const RELAY_POSTGRES_UNAVAILABLE = 'RELAY_POSTGRES_UNAVAILABLE';

export interface PostgresRelayStoreOptions {
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
export async function createPostgresRelayStore(db: SqlDatabase, opts: PostgresRelayStoreOptions = {}): Promise<RelayStore> {
  try {
    await migrate(db, 'relay', RELAY_MIGRATIONS);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  const core = new PgCore(db, opts.now ?? Date.now);
  const counters = new PgCounters(core, opts.counterFlushMs ?? 5000, opts.onError ?? (() => undefined));
  const read = async (name: string): Promise<Uint8Array | undefined> => {
    const { rows } = await db.query<{ value: Uint8Array }>('SELECT value FROM relay_secrets WHERE name = $1', [name]);
    return fromBytea(rows[0]?.value);
  };
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
     * insert wins and both return the stored bytes.
     */
    async secret(name: string, create: () => Uint8Array): Promise<Uint8Array> {
      part('name', name);
      return core.ordered(`secret:${name}`, async () => {
        const known = await read(name);
        if (known !== undefined) return known;
        const value = create();
        if (!(value instanceof Uint8Array)) throw invalid('RELAY_BAD_SECRET', 'a secret is bytes');
        await db.query('INSERT INTO relay_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, toBytea(value)]);
        return (await read(name))!;
      });
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
