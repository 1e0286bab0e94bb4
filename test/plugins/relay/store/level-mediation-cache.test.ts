import t, { type Test } from 'tap';
import { openDatabase } from '../../../../node/state/db.js';
import { Core } from '../../../../plugins/relay/store/level-core.js';
import { LevelMediationRepo } from '../../../../plugins/relay/store/level-mediations.js';
import { mediation } from './contract/mediations.js';

/**
 * The LevelDB mediation repository's read cache: after every kind of write, `get`,
 * `byRecipient` and `byKey` answer what a repository with nothing cached reads from LevelDB,
 * including for lookups cached before the write (absent ones too). Each test warms the cache
 * first, so a write that left an entry behind shows as a difference.
 */

async function setup(t: Test, limit?: number) {
  const db = await openDatabase('memory');
  const core = new Core(db.pluginStore('relay'), { now: Date.now, sync: true });
  t.teardown(async () => {
    core.closed = true;
    await core.idle();
    await db.close();
  });
  const repo = new LevelMediationRepo(core, limit);
  /** what LevelDB holds: a repository with an empty cache on the same store */
  const stored = () => new LevelMediationRepo(core);
  /** every lookup of the cached repository equals the stored one */
  const matches = async (t: Test, what: { ids?: string[]; dids?: string[]; keys?: string[] }, msg: string) => {
    const truth = stored();
    for (const id of what.ids ?? []) t.same(await repo.get(id), await truth.get(id), `${msg}: get ${id}`);
    for (const did of what.dids ?? []) t.same(await repo.byRecipient(did), await truth.byRecipient(did), `${msg}: byRecipient ${did}`);
    for (const key of what.keys ?? []) t.same(await repo.byKey(key), await truth.byKey(key), `${msg}: byKey ${key}`);
  };
  return { core, repo, matches };
}

/** Makes the next call of `obj[name]` wait for `release` before it answers (what it read, it read at once). */
function holdNext<O extends object>(obj: O, name: keyof O): () => void {
  const original = obj[name] as (...args: unknown[]) => Promise<unknown>;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let first = true;
  (obj as Record<keyof O, unknown>)[name] = async (...args: unknown[]) => {
    const answer = original.apply(obj, args);
    if (!first) return answer;
    first = false;
    const v = await answer;
    await held;
    return v;
  };
  return release;
}

const A = 'did:key:z6MkAgentA';
const B = 'did:key:z6MkAgentB';
const C = 'did:key:z6MkAgentC';

t.test('put: creating, changing state, moving DID and tenant, a second mediation for a DID', async (t) => {
  const { repo, matches } = await setup(t);
  const lookups = { ids: ['med-1', 'med-2'], dids: [A, B, C] };
  await matches(t, lookups, 'empty, and every lookup cached as absent');
  t.equal(await repo.get('med-1'), undefined);

  const one = mediation({ recipientDid: A });
  await repo.put(one);
  t.same(await repo.get('med-1'), one);
  t.same(await repo.byRecipient(A), one);
  await matches(t, lookups, 'created');

  const granted = { ...one, state: 'granted' as const, grantedAt: 5, updatedAt: 5, gate: null };
  await repo.put(granted);
  t.same(await repo.byRecipient(A), granted);
  await matches(t, lookups, 'granted');

  const moved = { ...granted, recipientDid: B, tenantId: 'tenant-b', updatedAt: 6 };
  await repo.put(moved);
  t.equal(await repo.byRecipient(A), undefined, 'the old DID no longer resolves');
  t.same(await repo.byRecipient(B), moved, 'the new DID, cached as absent before, resolves');
  await matches(t, lookups, 'moved');

  const two = mediation({ id: 'med-2', recipientDid: B, updatedAt: 7 });
  await repo.put(two);
  t.same(await repo.byRecipient(B), two, 'a DID resolves to the mediation last written for it');
  await repo.put({ ...moved, recipientDid: C, updatedAt: 8 });
  t.same(await repo.byRecipient(B), two, 'moving med-1 away leaves B with med-2');
  t.match(await repo.byRecipient(C), { id: 'med-1' });
  await matches(t, lookups, 'two mediations');

  await t.rejects(repo.put(mediation({ state: 'lost' as never })), { code: 'RELAY_BAD_STATE' });
  await matches(t, lookups, 'after a refused put');
});

t.test('updateKeys: adding, removing, re-adding, a refused update, concurrent updates', async (t) => {
  const { repo, matches } = await setup(t);
  const keys = ['did:key:k1', 'did:key:k2', 'did:key:k3', 'did:key:k4'];
  await matches(t, { keys }, 'every key cached as absent');

  await repo.updateKeys('med-1', ['did:key:k1', 'did:key:k2'], [], 10);
  t.same(await repo.byKey('did:key:k1'), { key: 'did:key:k1', mediationId: 'med-1', addedAt: 10 });
  await matches(t, { keys }, 'added');

  await repo.updateKeys('med-1', ['did:key:k3'], ['did:key:k1', 'did:key:k3'], 20);
  t.equal(await repo.byKey('did:key:k1'), undefined, 'removed');
  t.match(await repo.byKey('did:key:k3'), { mediationId: 'med-1', addedAt: 20 }, 'added and removed: the add wins');
  await matches(t, { keys }, 'removed');

  await repo.updateKeys('med-1', ['did:key:k1'], [], 30);
  t.match(await repo.byKey('did:key:k1'), { addedAt: 30 }, 're-added');

  await t.rejects(repo.updateKeys('med-2', ['did:key:k4', 'did:key:k2'], [], 40), { code: 'KEY_IN_OTHER_KEYLIST' });
  t.equal(await repo.byKey('did:key:k4'), undefined, 'a refused update adds nothing');
  await matches(t, { keys }, 'refused');

  await repo.updateKeys('med-2', [], ['did:key:k2'], 50);
  t.match(await repo.byKey('did:key:k2'), { mediationId: 'med-1' }, "removing another mediation's key does nothing");

  await Promise.all(Array.from({ length: 20 }, (_, i) => repo.updateKeys('med-3', [`did:key:c${i}`], i > 0 ? [`did:key:c${i - 1}`] : [], 60)));
  await matches(t, { keys: Array.from({ length: 20 }, (_, i) => `did:key:c${i}`) }, 'concurrent updates');
});

t.test('what a caller is given, or gave to put, it may change: the cache keeps its own copy', async (t) => {
  const { repo } = await setup(t);
  const m = mediation({ recipientDid: A });
  await repo.put(m);
  m.state = 'revoked';
  m.gate!.policy = 'changed after put';
  const got = (await repo.get('med-1'))!;
  t.same(got, mediation({ recipientDid: A }), 'changing what was put changes nothing stored');
  got.state = 'denied';
  got.gate!.state = 'blocked';
  (await repo.byRecipient(A))!.recipientDid = 'did:key:other';
  t.same(await repo.get('med-1'), mediation({ recipientDid: A }));
  t.same(await repo.byRecipient(A), mediation({ recipientDid: A }));

  await repo.updateKeys('med-1', ['did:key:k1'], [], 10);
  (await repo.byKey('did:key:k1'))!.mediationId = 'med-9';
  t.same(await repo.byKey('did:key:k1'), { key: 'did:key:k1', mediationId: 'med-1', addedAt: 10 });
});

t.test('a read that LevelDB answered before a write landed is not cached after it', async (t) => {
  const { core, repo, matches } = await setup(t);
  const release = holdNext(core.s.key, 'get');
  const before = repo.byKey('did:key:k1');
  await repo.updateKeys('med-1', ['did:key:k1'], [], 10);
  release();
  t.equal(await before, undefined, 'the read under way answers what it read');
  t.match(await repo.byKey('did:key:k1'), { mediationId: 'med-1' }, 'the next read sees the write');

  const m = mediation({ recipientDid: A });
  const releaseMed = holdNext(core.s.med, 'get');
  const releaseDid = holdNext(core.s.medDid, 'get');
  const byId = repo.get('med-1');
  const byDid = repo.byRecipient(A);
  await repo.put(m);
  releaseMed();
  releaseDid();
  t.equal(await byId, undefined);
  t.equal(await byDid, undefined);
  t.same(await repo.get('med-1'), m);
  t.same(await repo.byRecipient(A), m);
  await matches(t, { ids: ['med-1'], dids: [A], keys: ['did:key:k1'] }, 'after the races');
});

t.test('a batch that fails after LevelDB took it drops what is cached', async (t) => {
  const { core, repo, matches } = await setup(t);
  await repo.put(mediation({ recipientDid: A }));
  await matches(t, { ids: ['med-1'], dids: [A], keys: ['did:key:k1'] }, 'warm');
  const batch = core.db.batch.bind(core.db);
  let fail = true;
  (core.db as unknown as { batch: (...args: unknown[]) => Promise<void> }).batch = async (...args: unknown[]) => {
    await (batch as (...a: unknown[]) => Promise<void>)(...args);
    if (fail) throw new Error('the disk said no after writing');
  };
  await t.rejects(repo.updateKeys('med-1', ['did:key:k1'], [], 10), { code: 'RELAY_STORE_SYNC_FAILED' });
  await t.rejects(repo.put(mediation({ recipientDid: A, state: 'granted' })), { code: 'RELAY_STORE_SYNC_FAILED' });
  fail = false;
  await matches(t, { ids: ['med-1'], dids: [A], keys: ['did:key:k1'] }, 'after the failed batches');
  t.match(await repo.byKey('did:key:k1'), { mediationId: 'med-1' }, 'what the failed batch wrote is read');
  t.match(await repo.get('med-1'), { state: 'granted' });
});

t.test('the cache serves repeated reads and holds at most its limit', async (t) => {
  const { core, repo, matches } = await setup(t, 3);
  const ids = ['med-1', 'med-2', 'med-3', 'med-4', 'med-5'];
  for (const [i, id] of ids.entries()) await repo.put(mediation({ id, recipientDid: `did:key:agent${i}` }));
  let reads = 0;
  const get = core.s.med.get.bind(core.s.med);
  (core.s.med as unknown as { get: typeof get }).get = ((...args: Parameters<typeof get>) => {
    reads++;
    return get(...args);
  }) as typeof get;

  for (const id of ids.slice(2)) t.match(await repo.get(id), { id }, 'the last written are cached');
  t.equal(reads, 0, 'no LevelDB read for them');
  t.match(await repo.get('med-1'), { id: 'med-1' });
  t.equal(reads, 1, 'the oldest was dropped, so it was read');
  t.match(await repo.get('med-1'), { id: 'med-1' });
  t.equal(reads, 1, 'and is cached again');
  await repo.put(mediation({ id: 'med-2', recipientDid: 'did:key:agent1', state: 'granted' }));
  await matches(t, { ids, dids: ids.map((_, i) => `did:key:agent${i}`) }, 'with entries dropped and written');
});
