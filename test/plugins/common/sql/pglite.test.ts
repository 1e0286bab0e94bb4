import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import t from 'tap';
import { isLedgerError } from '../../../../node/errors.js';
import { migrate } from '../../../../plugins/common/sql/migrate.js';
import { openPglite } from '../../../../plugins/common/sql/pglite.js';

/** PGlite through its worker thread: the SqlDatabase contract, and an event loop left free. */

t.test('PGlite in a worker thread', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-pglite-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = Date.now();
  const db = await openPglite(join(dir, 'db'), { unavailableCode: 'TEST_PGLITE_UNAVAILABLE' });
  delay.disable();
  const openMs = Date.now() - started;
  t.ok(delay.max / 1e6 < Math.max(250, openMs / 4), `a first start (initdb, ${openMs} ms) leaves the event loop free: longest stall ${(delay.max / 1e6).toFixed(0)} ms`);
  t.equal(db.engine, 'pglite');

  await db.exec('CREATE TABLE t1 (id int8 PRIMARY KEY, body bytea, at timestamptz DEFAULT now()); CREATE TABLE t2 (n int)');
  await db.query('INSERT INTO t1 (id, body) VALUES ($1, $2)', [2 ** 40, Buffer.from([1, 2, 3])]);
  const { rows } = await db.query<{ id: number; body: Uint8Array; at: Date }>('SELECT id, body, at FROM t1');
  t.equal(rows[0]!.id, 2 ** 40, 'int8 is a number');
  t.same([...rows[0]!.body], [1, 2, 3], 'bytea is bytes');
  t.ok(rows[0]!.at instanceof Date, 'a timestamptz is a Date');
  t.equal((await db.query('INSERT INTO t2 VALUES (1), (2)')).rowCount, 2);
  await t.rejects(
    db.transaction(async (tx) => {
      await tx.query('INSERT INTO t2 VALUES (3)');
      throw new Error('abort');
    }),
    /abort/,
  );
  const inside = await Promise.all([
    db.transaction(async (tx) => {
      await tx.query('INSERT INTO t2 VALUES (4)');
      await new Promise((r) => setTimeout(r, 50));
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t2')).rows[0]!.n;
    }),
    db.query('INSERT INTO t2 VALUES (5)'),
  ]);
  t.equal(inside[0], 3, 'a query sent during a transaction waits for it to end');
  t.same((await db.query('SELECT n FROM t2 ORDER BY n')).rows, [{ n: 1 }, { n: 2 }, { n: 4 }, { n: 5 }], 'the failed transaction left nothing');
  await t.rejects(db.query('SELECT * FROM missing_table'), { code: '42P01' }, "Postgres's error code crosses the thread");
  t.same(await migrate(db, 'test', [{ version: 1, name: 'one', sql: 'CREATE TABLE m (x int); INSERT INTO m VALUES (1)' }]), { applied: [1], version: 1 }, 'migrations run');

  await db.close();
  await db.close();
  const err = await db.query('SELECT 1').then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(isLedgerError(err) && err.code === 'TEST_PGLITE_UNAVAILABLE' && err.kind === 'unavailable', `closed: ${String(err)}`);

  const again = await openPglite(join(dir, 'db'), { unavailableCode: 'TEST_PGLITE_UNAVAILABLE' });
  t.equal((await again.query<{ n: number }>('SELECT count(*)::int AS n FROM t2')).rows[0]!.n, 4, 'the data is in its folder');
  await again.close();
});

t.test('a folder PGlite cannot open is a typed error', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-pglite-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'a-file'), 'x');
  const err = await openPglite(join(dir, 'a-file', 'db'), { unavailableCode: 'TEST_PGLITE_UNAVAILABLE' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(isLedgerError(err) && err.code === 'TEST_PGLITE_UNAVAILABLE', String(err));
});
