import t from 'tap';
import { join } from 'node:path';
import { postgresMissing, startPostgres } from '../../bench/lib/servers/postgres.js';
import { dataPaths } from '../../node/config/datadir.js';
import { readSecretFile, resolveServiceKeySecret, type ServiceKeySecret } from '../../node/config/service-key-secret.js';
import { openDatabase } from '../../node/state/db.js';
import { PLUGINS } from '../../plugins/index.js';
import { createLevelRelayStore } from '../../plugins/relay/store/level.js';
import { MEDIATOR_SEED, SESSION_SECRET } from '../../plugins/relay/store/secrets.js';
import { didKeyFromSeed } from '../../plugins/relay/wire/dids/did-key.js';
import { secretSource } from '../plugins/relay/store/contract/backend.js';
import { freshDatabase, openStore } from '../plugins/relay/store/pg-helpers.js';
import { runLedger } from './fixtures/io.js';

/**
 * The relay's part of the service-key secret on the command line: `ledger service-keys rotate`
 * moves its secrets in the node's database, and in its Postgres when the relay runs on one.
 * (`ledger start` with the relay on resolving the secret first: service-keys.test.ts.)
 */

/** what rotate says it moved for the relay */
const relayRows = (out: { resealed: string[] }): string[] => out.resealed.filter((row) => row.startsWith('relay/'));

/** the mediator's DID and the session secret as a relay on the node's database finds them under `secret` */
async function levelRelay(dataDir: string, secret: ServiceKeySecret): Promise<{ did: string; session: string }> {
  const db = await openDatabase(dataPaths(dataDir).chainDb);
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: secretSource(secret) });
  try {
    const seed = await store.secret(MEDIATOR_SEED, () => new Uint8Array(32).fill(7));
    return { did: didKeyFromSeed(seed).did, session: Buffer.from(await store.secret(SESSION_SECRET, () => new Uint8Array(32).fill(8))).toString('hex') };
  } finally {
    await store.close();
    await db.close();
  }
}

t.test("rotate moves the relay's secrets in the node's database: the same mediator DID, and the old secret opens none", async (t) => {
  const cwd = t.testdir({});
  const dataDir = join(cwd, 'data');
  const first = await resolveServiceKeySecret({ env: {}, dataDir });
  const before = await levelRelay(dataDir, first);

  t.equal((await runLedger(['service-keys', 'new-secret', '--out', 'next.secret'], { cwd })).code, 0);
  const r = await runLedger(['service-keys', 'rotate', '--new-secret-file', 'next.secret'], { cwd, plugins: PLUGINS });
  t.equal(r.code, 0, r.stderr);
  t.same(relayRows(r.json()), ['relay/ss/mediator-ed25519-seed', 'relay/ss/session-secret']);

  t.same(await levelRelay(dataDir, await readSecretFile(join(cwd, 'next.secret'))), before);
  await t.rejects(levelRelay(dataDir, first), { code: 'SERVICE_KEY_SECRET_WRONG' });
});

t.test('rotate with the relay on Postgres: the first node moves the shared rows, the next finds them moved', { skip: postgresMissing() }, async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.stop());
  const url = await freshDatabase(server);
  const cwd = t.testdir({});
  const env = { LEDGER_SERVICE_KEY_SECRET: 'the-secret-every-relay-instance-shares', LEDGER_PLUGINS: 'relay', LEDGER_RELAY_POSTGRES_URL: url };
  const old = await resolveServiceKeySecret({ env });
  const instance = await openStore(t, url, { secrets: secretSource(old) });
  const seed = await instance.secret(MEDIATOR_SEED, () => new Uint8Array(32).fill(9));
  await instance.close();
  t.equal((await runLedger(['service-keys', 'new-secret', '--out', 'next.secret'], { cwd })).code, 0);
  const next = await readSecretFile(join(cwd, 'next.secret'));

  for (const node of ['a', 'b']) {
    const dataDir = join(cwd, node);
    await (await openDatabase(dataPaths(dataDir).chainDb)).close();
    const r = await runLedger(['service-keys', 'rotate', '--new-secret-file', 'next.secret', '--data-dir', dataDir], { cwd, env, plugins: PLUGINS });
    t.equal(r.code, 0, r.stderr);
    t.same(relayRows(r.json()), ['relay/relay_secrets/mediator-ed25519-seed'], `node ${node}`);
  }

  const moved = await openStore(t, url, { secrets: secretSource(next) });
  t.same(await moved.secret(MEDIATOR_SEED, () => new Uint8Array(32)), seed, 'the same seed under the new secret');
  const stale = await openStore(t, url, { secrets: secretSource(old) });
  await t.rejects(stale.secret(MEDIATOR_SEED, () => new Uint8Array(32)), { code: 'SERVICE_KEY_SECRET_WRONG' });

  const disabled = await runLedger(['service-keys', 'rotate', '--new-secret-file', 'next.secret', '--data-dir', join(cwd, 'a')], { cwd, env: { ...env, LEDGER_PLUGINS: 'none' }, plugins: PLUGINS });
  t.equal(disabled.code, 0, disabled.stderr);
  t.same(relayRows(disabled.json()), [], 'a node whose relay is off leaves the Postgres alone');
});
