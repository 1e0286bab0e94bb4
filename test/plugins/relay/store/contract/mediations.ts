import type { Test } from 'tap';
import type { Mediation } from '../../../../../plugins/relay/store/types.js';
import type { Backend } from './backend.js';

export const mediation = (over: Partial<Mediation> = {}): Mediation => ({
  id: 'med-1',
  tenantId: 'tenant-a',
  recipientDid: 'did:key:z6MkAgent1',
  state: 'requested',
  reason: null,
  gate: { policy: 'allow-all', state: 'pass' },
  createdAt: 1,
  updatedAt: 1,
  grantedAt: null,
  ...over,
});

/** Mediations and keylists, on any backend. */
export function mediationsContract(t: Test, backend: Backend): void {
  t.test('put, get, byRecipient, list per tenant; an update moves the lookups', async (t) => {
    const store = await backend.make(t);
    const m = store.mediations;
    const one = mediation();
    const two = mediation({ id: 'med-2', recipientDid: 'did:key:z6MkAgent2' });
    const other = mediation({ id: 'med-3', tenantId: 'tenant-b', recipientDid: 'did:key:z6MkAgent3' });
    for (const x of [two, one, other]) await m.put(x);
    t.same(await m.get('med-1'), one);
    t.equal(await m.get('med-9'), undefined);
    t.same(await m.byRecipient('did:key:z6MkAgent2'), two);
    t.equal(await m.byRecipient('did:key:nobody'), undefined);
    t.same(await m.list('tenant-a'), [one, two], 'in id order');
    t.same(await m.list('tenant-b'), [other]);
    t.same(await m.list('tenant'), [], 'a prefix of a tenant id is another tenant');

    const granted = { ...one, state: 'granted' as const, grantedAt: 5, updatedAt: 5 };
    await m.put(granted);
    t.same(await m.byRecipient(one.recipientDid), granted);
    const moved = { ...granted, recipientDid: 'did:key:z6MkAgent1b', tenantId: 'tenant-b' };
    await m.put(moved);
    t.equal(await m.byRecipient(one.recipientDid), undefined, 'the old DID no longer resolves');
    t.same(await m.byRecipient('did:key:z6MkAgent1b'), moved);
    t.same(await m.list('tenant-a'), [two]);
    t.same(await m.list('tenant-b'), [moved, other]);
    await t.rejects(m.put(mediation({ state: 'lost' as never })), { code: 'RELAY_BAD_STATE' });
    await t.rejects(m.put(mediation({ recipientDid: 'did:\x00' })), { code: 'RELAY_BAD_KEY' });
  });

  t.test('keylist: atomic add and remove, byKey, paging and total', async (t) => {
    const store = await backend.make(t);
    const m = store.mediations;
    await m.updateKeys('med-1', ['did:key:k3', 'did:key:k1', 'did:key:k2', 'did:key:k1'], [], 10);
    t.same(await m.byKey('did:key:k1'), { key: 'did:key:k1', mediationId: 'med-1', addedAt: 10 });
    t.equal(await m.byKey('did:key:none'), undefined);
    const all = await m.keylist('med-1');
    t.same(all.keys.map((k) => k.key), ['did:key:k1', 'did:key:k2', 'did:key:k3']);
    t.equal(all.total, 3);
    t.same(await m.keylist('med-1', { offset: 1, limit: 1 }), { keys: [{ key: 'did:key:k2', mediationId: 'med-1', addedAt: 10 }], total: 3 });
    t.same(await m.keylist('med-1', { limit: 0 }), { keys: [], total: 3 });
    t.same(await m.keylist('med-2'), { keys: [], total: 0 });

    await m.updateKeys('med-1', ['did:key:k4', 'did:key:k1'], ['did:key:k2', 'did:key:k3', 'did:key:k4', 'did:key:never'], 20);
    const after = await m.keylist('med-1');
    t.same(
      after.keys.map((k) => [k.key, k.addedAt]),
      [
        ['did:key:k1', 10],
        ['did:key:k4', 20],
      ],
      'removed k2 and k3; a key both added and removed stays; re-adding keeps addedAt',
    );
    t.equal(after.total, 2);
    t.equal(await m.byKey('did:key:k2'), undefined);

    await m.updateKeys('med-2', ['did:key:m2'], [], 30);
    await t.rejects(m.updateKeys('med-2', ['did:key:m3', 'did:key:k1'], ['did:key:m2'], 40), { code: 'KEY_IN_OTHER_KEYLIST', kind: 'conflict' });
    t.same(await m.keylist('med-2'), { keys: [{ key: 'did:key:m2', mediationId: 'med-2', addedAt: 30 }], total: 1 }, 'a refused update writes nothing of itself');
    t.equal(await m.byKey('did:key:m3'), undefined);
    t.match(await m.byKey('did:key:k1'), { mediationId: 'med-1' });
    await m.updateKeys('med-2', [], ['did:key:k1'], 50);
    t.match(await m.byKey('did:key:k1'), { mediationId: 'med-1' }, "removing another mediation's key does nothing");
    t.equal((await m.keylist('med-1')).total, 2);

    await Promise.all(Array.from({ length: 20 }, (_, i) => m.updateKeys('med-3', [`did:key:c${i}`], i > 0 ? [`did:key:c${i - 1}`] : [], 60)));
    t.same(await m.keylist('med-3'), { keys: [{ key: 'did:key:c19', mediationId: 'med-3', addedAt: 60 }], total: 1 }, 'concurrent updates apply in call order');
    await t.rejects(m.updateKeys('med-1', ['a\x00b'], [], 1), { code: 'RELAY_BAD_KEY' });
  });
}
