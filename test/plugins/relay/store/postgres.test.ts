import t from 'tap';
import { postgresMissing, startPostgres } from '../../../../bench/lib/servers/postgres.js';
import { relayStoreContract } from './contract/index.js';
import { postgresBackend } from './pg-helpers.js';

/** The store contract on the Postgres store: one real server for this file, a fresh database per test. */

t.test('the store contract on Postgres', { skip: postgresMissing() }, async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.stop());
  relayStoreContract(t, postgresBackend(server));
});
