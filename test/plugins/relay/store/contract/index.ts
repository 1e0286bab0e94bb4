import type { Test } from 'tap';
import type { Backend } from './backend.js';
import { documentsContract } from './documents.js';
import { durabilityContract } from './durability.js';
import { mediationsContract } from './mediations.js';
import { messageEdgesContract } from './message-edges.js';
import { messagesContract } from './messages.js';
import { pruneContract } from './prune.js';

/**
 * What every relay store backend must do (plugins/relay/store/types.ts), as one instance sees it:
 * run on LevelDB by leveldb.test.ts and on Postgres by postgres.test.ts. What several instances
 * sharing a database do is tested on Postgres alone (postgres-instances.test.ts).
 */
export function relayStoreContract(t: Test, backend: Backend): void {
  t.test('the store names its backend', async (t) => {
    t.equal((await backend.make(t)).backend, backend.name);
  });
  t.test('mediations', async (t) => mediationsContract(t, backend));
  t.test('messages', async (t) => messagesContract(t, backend));
  t.test('messages: listing, refused input, load', async (t) => messageEdgesContract(t, backend));
  t.test('prune', async (t) => pruneContract(t, backend));
  t.test('documents, log, counters, secrets', async (t) => documentsContract(t, backend));
  t.test('durability', async (t) => durabilityContract(t, backend));
}
