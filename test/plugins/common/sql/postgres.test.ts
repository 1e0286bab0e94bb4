import t from 'tap';
import { postgresMissing, startPostgres } from '../../../../bench/lib/servers/postgres.js';
import { isLedgerError } from '../../../../node/errors.js';
import { migrate, type Migration } from '../../../../plugins/common/sql/migrate.js';
import { openPostgres } from '../../../../plugins/common/sql/postgres.js';
import { redactUrl } from '../../../../node/config/redact-url.js';

/** The SQL layer on a real Postgres server started for this file. */

t.test('SqlDatabase on Postgres', { skip: postgresMissing() }, async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.stop());
  const open = () => {
    const db = openPostgres(server.url, { unavailableCode: 'TEST_POSTGRES_UNAVAILABLE', onError: () => undefined });
    t.teardown(() => db.close());
    return db;
  };

  t.test('queries, int8 as numbers, bytea as bytes, transactions that roll back', async (t) => {
    const db = open();
    t.equal(db.engine, 'postgres');
    await db.exec('CREATE TABLE t1 (id int8 PRIMARY KEY, body bytea); CREATE TABLE t2 (n int)');
    await db.query('INSERT INTO t1 VALUES ($1, $2)', [2 ** 40, Buffer.from([1, 2, 3])]);
    const { rows } = await db.query<{ id: number; body: Uint8Array }>('SELECT id, body FROM t1');
    t.equal(rows[0]!.id, 2 ** 40, 'int8 is a number');
    t.same([...rows[0]!.body], [1, 2, 3]);
    const inserted = await db.query('INSERT INTO t2 VALUES (1), (2)');
    t.equal(inserted.rowCount, 2);
    await t.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t2 VALUES (3)');
        throw new Error('abort');
      }),
      /abort/,
    );
    const out = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t2 VALUES (4)');
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t2')).rows[0]!.n;
    });
    t.equal(out, 3, 'the transaction sees its own write');
    t.same((await db.query('SELECT n FROM t2 ORDER BY n')).rows, [{ n: 1 }, { n: 2 }, { n: 4 }], 'the failed transaction left nothing');
    await t.rejects(db.query('SELECT * FROM missing_table'), { code: '42P01' }, 'an error of the SQL itself is not dressed up as unavailable');
  });

  t.test('migrations: in order, once, even when two instances start together', async (t) => {
    const a = open();
    const b = open();
    const steps: Migration[] = [
      { version: 1, name: 'create', sql: 'CREATE TABLE m1 (id int PRIMARY KEY); INSERT INTO m1 VALUES (1)' },
      { version: 2, name: 'add', sql: 'ALTER TABLE m1 ADD COLUMN note text; INSERT INTO m1 VALUES (2)' },
    ];
    const [ra, rb] = await Promise.all([migrate(a, 'test', steps), migrate(b, 'test', steps)]);
    t.same([...ra.applied, ...rb.applied].sort(), [1, 2], 'each step ran once between the two');
    t.equal(ra.version, 2);
    t.equal(rb.version, 2);
    t.same((await a.query('SELECT id FROM m1 ORDER BY id')).rows, [{ id: 1 }, { id: 2 }]);
    t.same(await migrate(a, 'test', steps), { applied: [], version: 2 }, 'a restart applies nothing');
    const more = [...steps, { version: 3, name: 'more', sql: 'INSERT INTO m1 VALUES (3)' }];
    t.same(await migrate(b, 'test', more), { applied: [3], version: 3 }, 'a newer build applies only its new step');
    await t.rejects(migrate(a, 'test', steps), /schema is at version 3, newer than this build knows \(2\)/, 'an older build refuses a newer schema');
    await t.rejects(migrate(a, 'other', [{ version: 2, name: 'x', sql: 'SELECT 1' }]), /has version 2, not 1/);
    const failing = [{ version: 1, name: 'bad', sql: 'CREATE TABLE ok_table (x int); SELECT * FROM nowhere' }];
    await t.rejects(migrate(a, 'broken', failing));
    t.same((await a.query("SELECT to_regclass('ok_table') AS t")).rows, [{ t: null }], 'a failed migration leaves nothing behind');
  });

  t.test('a server that is down is a typed unavailable error, and the pool recovers', async (t) => {
    const db = open();
    await db.query('SELECT 1');
    await server.halt();
    const err = await db.query('SELECT 1').then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(isLedgerError(err) && err.kind === 'unavailable' && err.code === 'TEST_POSTGRES_UNAVAILABLE', String(err));
    t.match((err as Error).message, new RegExp(`^Postgres at postgres://postgres@127\\.0\\.0\\.1:${server.port}/postgres cannot be reached`));
    t.equal((err as { data: { retryAfterSeconds: number } }).data.retryAfterSeconds, 5);
    const inTx = await db.transaction(async () => 1).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(isLedgerError(inTx) && inTx.kind === 'unavailable', `a transaction too: ${String(inTx)}`);
    await server.resume();
    let answered = false;
    for (let i = 0; i < 100 && !answered; i++) {
      answered = await db.query('SELECT 1').then(
        () => true,
        () => false,
      );
      if (!answered) await new Promise((r) => setTimeout(r, 100));
    }
    t.ok(answered, 'queries work again once the server is back');
  });
});

t.test('redactUrl hides the password', async (t) => {
  t.equal(redactUrl('postgres://app:s3cret@db.internal:5432/relay'), 'postgres://app:***@db.internal:5432/relay');
  t.equal(redactUrl('redis://127.0.0.1:6379'), 'redis://127.0.0.1:6379');
  t.equal(redactUrl('not a url'), 'the configured URL');
});
