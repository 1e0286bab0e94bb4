import type { BinarySublevel } from '../../../node/state/db.js';
import { Core, part } from './level-core.js';
import { LevelCounters } from './level-counters.js';
import { LevelDeliveryLog, LevelDocumentRepo } from './level-documents.js';
import { LevelMediationRepo } from './level-mediations.js';
import { LevelMessageQueue } from './level-messages.js';
import { levelSecretSlots } from './level-secrets.js';
import { keepRelaySecret, type RelaySecretSource } from './secrets.js';
import type { RelayStore } from './types.js';

export interface LevelRelayStoreOptions {
  /** the service-key secret the relay's own secrets are sealed under (a PluginContext is one) */
  secrets: RelaySecretSource;
  /** the clock of message ids (arrival order); default Date.now */
  now?: () => number;
  /**
   * Default true: every write the relay acknowledges is on disk before it resolves, through a
   * group commit (one synced batch in flight, the writes queued meanwhile in the next; see
   * level-core.ts). False: nothing is fsynced, as the chain's writes (docs/storage.md): a write
   * survives the process being killed, not a power loss.
   */
  sync?: boolean;
  /** how often the counters are flushed; default 5000 ms */
  counterFlushMs?: number;
  /** errors of the background counter flush (the counts are kept for the next one) */
  onError?: (err: unknown) => void;
}

/**
 * The relay's store on its LevelDB namespace (`ctx.store`): child sublevels of `db`, every
 * multi-key change one atomic batch (layout in level-core.ts). Every write method resolves once
 * its batch is written. The state kept in memory: a cache of stored counts (filled from the
 * store as needed), a read cache of mediations and keylist entries (level-mediation-cache.ts) and
 * the counters' unflushed counts (see level-counters.ts). `close()` flushes the counters and
 * waits for writes under way; it does not close `db`, which the plugin host owns. One store per
 * namespace: the write lock and the caches assume no other writer.
 */
export function createLevelRelayStore(db: BinarySublevel, opts: LevelRelayStoreOptions): RelayStore {
  const core = new Core(db, { now: opts.now ?? Date.now, sync: opts.sync ?? true });
  const counters = new LevelCounters(core, opts.counterFlushMs ?? 5000, opts.onError ?? (() => undefined));
  const secrets = levelSecretSlots(core);
  let closing: Promise<void> | undefined;
  return {
    backend: 'leveldb',
    mediations: new LevelMediationRepo(core),
    messages: new LevelMessageQueue(core),
    documents: new LevelDocumentRepo(core),
    log: new LevelDeliveryLog(core),
    counters,
    async secret(name: string, create: () => Uint8Array): Promise<Uint8Array> {
      part('name', name);
      return core.write(() => keepRelaySecret(secrets, name, create, opts.secrets));
    },
    close(): Promise<void> {
      closing ??= (async () => {
        counters.stop();
        // the flush is a write, which the store refuses once closed
        await counters.flush();
        core.closed = true;
        await core.idle();
      })();
      return closing;
    },
  };
}
