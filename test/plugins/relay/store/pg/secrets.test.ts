import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresBinDir } from '../../../../../bench/lib/servers/binaries.js';
import { postgresMissing, startPostgres, type PostgresServer } from '../../../../../bench/lib/servers/postgres.js';
import type { ServiceKeySecret } from '../../../../../node/config/service-key-secret.js';
import { migrate } from '../../../../../plugins/common/sql/migrate.js';
import type { SqlDatabase } from '../../../../../plugins/common/sql/types.js';
import { RELAY_POSTGRES_UNAVAILABLE } from '../../../../../plugins/relay/store/pg/index.js';
import { RELAY_MIGRATIONS } from '../../../../../plugins/relay/store/pg/schema.js';
import { resealPostgresSecrets } from '../../../../../plugins/relay/store/pg/secrets.js';
import { MEDIATOR_SEED, SESSION_SECRET } from '../../../../../plugins/relay/store/secrets.js';
import { didKeyFromSeed } from '../../../../../plugins/relay/wire/dids/did-key.js';
import { foundIn, testSecret } from '../../../common/secrets/fixtures.js';
import { secretSource } from '../contract/backend.js';
import { checker, freshDatabase, openStore } from '../pg-helpers.js';

/**
 * The relay's secrets in Postgres, sealed under the service-key secret, on a real server: what a
 * dump, the raw column and the table's file hold; a plaintext row of an earlier relay sealed in
 * place by two instances at once; a wrong secret; and `ledger service-keys rotate`'s part.
 */

const never = (): Uint8Array => {
  throw new Error('a new secret was made in place of the stored one');
};

const dump = async (url: string): Promise<Buffer> => (await promisify(execFile)(join(postgresBinDir()!, 'pg_dump'), ['--dbname', url], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })).stdout;

type Raw = { name: string; value: Uint8Array | null; sealed: string | null };
const raw = async (db: SqlDatabase): Promise<Raw[]> => (await db.query<Raw>('SELECT name, value, sealed FROM relay_secrets ORDER BY name')).rows;

/** the file relay_secrets is in now, after a checkpoint wrote its pages */
async function tableFile(db: SqlDatabase, server: PostgresServer): Promise<string> {
  await db.exec('CHECKPOINT');
  const { rows } = await db.query<{ path: string }>("SELECT pg_relation_filepath('relay_secrets') AS path");
  return join(server.dir, 'data', rows[0]!.path);
}

async function secretsOf(t: Test, url: string, secret: ServiceKeySecret, logs: string[] = [], create: () => Uint8Array = () => new Uint8Array(randomBytes(32))) {
  const store = await openStore(t, url, { secrets: secretSource(secret, logs) });
  return { seed: await store.secret(MEDIATOR_SEED, create), session: await store.secret(SESSION_SECRET, create) };
}

t.test("the relay's secrets in Postgres", { skip: postgresMissing() }, async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.stop());

  t.test('after a start neither the column, a dump nor the table file holds the seed or the session secret', async (t) => {
    const url = await freshDatabase(server);
    const { seed, session } = await secretsOf(t, url, await testSecret());
    const db = checker(t, url);
    const rows = await raw(db);
    t.same(rows.map((r) => [r.name, r.value]), [[MEDIATOR_SEED, null], [SESSION_SECRET, null]], 'no plaintext column');
    const column = Buffer.from(rows.map((r) => r.sealed).join('\n'));
    const dumped = await dump(url);
    t.ok(dumped.includes(Buffer.from(JSON.parse(rows[0]!.sealed!).ciphertext as string)), 'the dump has the envelope');
    const file = readFileSync(await tableFile(db, server));
    for (const [what, secret] of [['seed', seed], ['session secret', session]] as const) {
      t.same(foundIn(column, secret), [], `the sealed column has no form of the ${what}`);
      t.same(foundIn(dumped, secret), [], `nor the dump`);
      t.same(foundIn(file, secret), [], `nor the table's file`);
    }
  });

  t.test('a plaintext row of an earlier relay is sealed in place by two instances starting at once: the same DID, and the old file is gone', async (t) => {
    const url = await freshDatabase(server);
    const db = checker(t, url);
    // the schema and the row as a relay before sealed secrets left them
    await migrate(db, 'relay', RELAY_MIGRATIONS.slice(0, 1));
    const seed = new Uint8Array(randomBytes(32));
    await db.query('INSERT INTO relay_secrets (name, value) VALUES ($1, $2)', [MEDIATOR_SEED, Buffer.from(seed)]);
    const before = await tableFile(db, server);
    t.same(foundIn(readFileSync(before), seed), ['raw'], 'before: the table file holds the seed, and the grep finds it');

    const secret = await testSecret('the-relay-secret-of-the-upgrade');
    const logs: string[] = [];
    const [a, b] = await Promise.all([openStore(t, url, { secrets: secretSource(secret, logs) }), openStore(t, url, { secrets: secretSource(secret, logs) })]);
    const [fromA, fromB] = await Promise.all([a.secret(MEDIATOR_SEED, never), b.secret(MEDIATOR_SEED, never)]);
    t.same(fromA, seed, 'the same bytes');
    t.same(fromB, seed, 'for both instances');
    t.equal(didKeyFromSeed(fromA).did, didKeyFromSeed(seed).did, "the mediator's DID does not change");
    t.same(logs, ["the relay mediator's Ed25519 seed was stored in plaintext: it is now encrypted under the service-key secret"], 'one of them sealed it');
    t.match(await raw(db), [{ name: MEDIATOR_SEED, value: null, sealed: /"ciphertext"/ }]);

    const after = await tableFile(db, server);
    t.not(after, before, 'the table was written anew');
    t.ok(!existsSync(before) || readFileSync(before).length === 0, 'and its old file emptied');
    t.same(foundIn(readFileSync(after), seed), [], 'the new file has no form of the seed');
    t.same(foundIn(await dump(url), seed), [], 'nor has a dump');
  });

  t.test('a wrong secret is SERVICE_KEY_SECRET_WRONG, saying every instance needs the same, and nothing is made in its place', async (t) => {
    const url = await freshDatabase(server);
    const right = await testSecret('the-secret-of-the-first-instance');
    const { seed } = await secretsOf(t, url, right);
    const stored = await raw(checker(t, url));
    const other = await openStore(t, url, { secrets: secretSource(await testSecret('the-secret-of-another-instance')) });
    await t.rejects(other.secret(MEDIATOR_SEED, never), {
      code: 'SERVICE_KEY_SECRET_WRONG',
      message: /^the relay mediator's Ed25519 seed \(table relay_secrets, row mediator-ed25519-seed\) does not open .*Every relay instance on this Postgres needs the same service-key secret$/,
    });
    t.same(await raw(checker(t, url)), stored, 'the rows are untouched');
    t.same((await secretsOf(t, url, right, [], never)).seed, seed, 'and the right secret still opens them');
  });

  t.test('rotation: the rows move to the new secret in one transaction; a second node finds them moved', async (t) => {
    const url = await freshDatabase(server);
    const old = await testSecret('the-relay-secret-before-rotation');
    const next = await testSecret('the-relay-secret-after-rotation');
    const seed = (await secretsOf(t, url, old)).seed;
    const session = new Uint8Array(randomBytes(32));
    const db = checker(t, url);
    // a plaintext row is sealed on the way
    await db.query('UPDATE relay_secrets SET value = $2, sealed = NULL WHERE name = $1', [SESSION_SECRET, Buffer.from(session)]);

    await t.rejects(resealPostgresSecrets(url, await testSecret('a-secret-that-opens-nothing'), next, RELAY_POSTGRES_UNAVAILABLE), { code: 'SERVICE_KEY_SECRET_WRONG' });
    const prepared = await resealPostgresSecrets(url, old, next, RELAY_POSTGRES_UNAVAILABLE);
    t.same(prepared.rows, [`relay_secrets/${MEDIATOR_SEED}`, `relay_secrets/${SESSION_SECRET}`]);
    const untouched = await raw(db);
    t.equal(untouched[1]!.sealed, null, 'the preparation writes nothing');
    await prepared.commit!();
    await prepared.compact();
    await prepared.close!();
    const moved = await raw(db);
    t.same(moved.map((r) => r.value), [null, null]);

    t.same(await secretsOf(t, url, next, [], never), { seed, session }, 'the same secrets under the new secret');
    const stale = await openStore(t, url, { secrets: secretSource(old) });
    await t.rejects(stale.secret(MEDIATOR_SEED, never), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'the old secret opens nothing');

    const second = await resealPostgresSecrets(url, old, next, RELAY_POSTGRES_UNAVAILABLE);
    await second.commit!();
    await second.close!();
    t.same(await raw(db), moved, "another node's rotate leaves the moved rows as they are");
  });
});
