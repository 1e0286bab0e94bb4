import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { toHex, utf8 } from '../../node/protocol/bytes.js';
import { NAMESPACES, openDatabase } from '../../node/state/db.js';

t.test('namespaces are disjoint: the same key in each holds its own value', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const key = Uint8Array.of(1, 2, 3);
  const names = Object.keys(NAMESPACES) as Array<keyof typeof NAMESPACES>;
  for (const n of names) await db[n].put(key, utf8(n));
  for (const n of names) t.equal(Buffer.from((await db[n].get(key))!).toString(), n);
  let rootKeys = 0;
  for await (const _ of db.root.keys()) rootKeys++;
  t.equal(rootKeys, names.length);
});

t.test('plugin stores share no keys, even when one name prefixes another', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const a = db.pluginStore('wallet');
  const b = db.pluginStore('wallet2');
  t.equal(db.pluginStore('wallet'), a, 'one sublevel per name');
  await a.put(utf8('k'), utf8('a'));
  await b.put(utf8('k'), utf8('b'));
  await b.put(utf8('z'), utf8('b'));
  const inA = [];
  for await (const k of a.keys()) inA.push(Buffer.from(k).toString());
  t.same(inA, ['k']);
  t.equal(Buffer.from((await a.get(utf8('k')))!).toString(), 'a');
  t.equal(await db.state.get(utf8('k')), undefined);
  for (const bad of ['', 'Wallet', 'a!b', 'a:b', '-x', 'x'.repeat(65)]) t.throws(() => db.pluginStore(bad), { code: 'BAD_PLUGIN_NAME' }, bad);
});

t.test('binary keys and values round-trip on disk, and survive a reopen', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-db-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const key = Uint8Array.of(0, 255, 33, 0);
  const value = Uint8Array.of(0, 1, 254, 255);
  const db = await openDatabase(dir);
  await db.root.batch([
    { type: 'put', sublevel: db.state, key, value },
    { type: 'put', sublevel: db.meta, key, value: Uint8Array.of(9) },
  ]);
  await db.close();
  const again = await openDatabase(dir);
  t.teardown(() => again.close());
  t.equal(toHex((await again.state.get(key))!), toHex(value));
  t.equal(toHex((await again.meta.get(key))!), '09');
});

t.test("a plugin store's batch passes `sync: true` on to LevelDB (a plugin's fsync)", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-db-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const db = await openDatabase(dir);
  t.teardown(() => db.close());
  const root = db.root as unknown as { _batch(ops: unknown[], opts: { sync?: boolean }): Promise<void> };
  const real = root._batch.bind(root);
  const seen: Array<boolean | undefined> = [];
  root._batch = async (ops, opts) => {
    await real(ops, opts);
    seen.push(opts.sync);
  };
  const store = db.pluginStore('relay');
  const sub = store.sublevel<string, string>('m', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  // abstract-level's types do not list classic-level's `sync` option
  await store.batch([{ type: 'put', sublevel: sub, key: 'k', value: 'v' }] as never, { sync: true } as never);
  await store.batch([{ type: 'put', sublevel: sub, key: 'k2', value: 'v' }] as never);
  t.same(seen, [true, undefined]);
  t.equal(await sub.get('k'), 'v');
});
