import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import type { Backend } from './backend.js';

/** Documents, lookups, the delivery log, counters, secrets and closing, on any backend. */
export function documentsContract(t: Test, backend: Backend): void {
  t.test('documents per tenant: get, list, put, delete; tenants apart', async (t) => {
    const store = await backend.make(t);
    const d = store.documents;
    await d.put('tenant-a', 'webhook', 'w2', { url: 'https://a.example/2' });
    await d.put('tenant-a', 'webhook', 'w1', { url: 'https://a.example/1', events: ['message.expired'] });
    await d.put('tenant-a', 'settings', 'main', { retentionDays: 7 });
    await d.put('tenant-b', 'webhook', 'w1', { url: 'https://b.example' });
    await d.put('tenant-ab', 'webhook', 'w9', { url: 'https://ab.example' });
    t.same(await d.get('tenant-a', 'webhook', 'w1'), { url: 'https://a.example/1', events: ['message.expired'] });
    t.same(await d.list('tenant-a', 'webhook'), [{ url: 'https://a.example/1', events: ['message.expired'] }, { url: 'https://a.example/2' }]);
    t.same(await d.list('tenant-b', 'webhook'), [{ url: 'https://b.example' }], "B sees only its own");
    t.equal(await d.get('tenant-b', 'webhook', 'w2'), undefined, "B cannot get A's document");
    t.equal(await d.get('tenant-b', 'settings', 'main'), undefined);
    t.same(await d.list('tenant', 'webhook'), []);
    t.same(await d.list('tenant-a', 'web'), [], 'a prefix of a kind is another kind');
    await d.put('tenant-a', 'webhook', 'w1', { url: 'https://a.example/new' });
    t.same(await d.get('tenant-a', 'webhook', 'w1'), { url: 'https://a.example/new' });
    await d.delete('tenant-a', 'webhook', 'w1');
    await d.delete('tenant-a', 'webhook', 'missing');
    t.same(await d.list('tenant-a', 'webhook'), [{ url: 'https://a.example/2' }]);
    t.same(await d.get('tenant-b', 'webhook', 'w1'), { url: 'https://b.example' }, "deleting A's does not touch B's");
    await d.put('tenant-a', 'flags', 'x', 0);
    t.equal(await d.get('tenant-a', 'flags', 'x'), 0);
    await t.rejects(d.put('tenant-a', 'flags', 'y', undefined), { code: 'RELAY_BAD_DOCUMENT' });
    await t.rejects(d.put('tenant-a', 'a\x00b', 'y', 1), { code: 'RELAY_BAD_KEY' });
    await t.rejects(d.get('tenant-a\x00webhook', 'w2', ''), { code: 'RELAY_BAD_KEY' });
  });

  t.test('indexes: global lookups to a tenant document, removed with null', async (t) => {
    const store = await backend.make(t);
    const d = store.documents;
    await d.putIndex('apikey', 'hash-1', { tenantId: 'tenant-a', id: 'key-1' });
    await d.putIndex('apikey', 'hash-2', { tenantId: 'tenant-b', id: 'key-2' });
    await d.putIndex('other', 'hash-1', { tenantId: 'tenant-c', id: 'x' });
    t.same(await d.index('apikey', 'hash-1'), { tenantId: 'tenant-a', id: 'key-1' });
    t.same(await d.index('other', 'hash-1'), { tenantId: 'tenant-c', id: 'x' });
    t.equal(await d.index('apikey', 'hash-3'), undefined);
    await d.putIndex('apikey', 'hash-1', null);
    t.equal(await d.index('apikey', 'hash-1'), undefined);
    t.same(await d.index('apikey', 'hash-2'), { tenantId: 'tenant-b', id: 'key-2' });
  });

  t.test('delivery log: newest first, recipient filter, limit, prune, tenants apart', async (t) => {
    const store = await backend.make(t);
    const log = store.log;
    await log.append([
      { tenantId: 'tenant-a', at: 100, level: 'info', message: 'queued 1', recipient: 'did:key:r1' },
      { tenantId: 'tenant-a', at: 100, level: 'info', message: 'queued 2', recipient: 'did:key:r2' },
      { tenantId: 'tenant-b', at: 150, level: 'warn', message: 'b', recipient: null },
    ]);
    await log.append([{ tenantId: 'tenant-a', at: 200, level: 'error', message: 'failed 1', recipient: 'did:key:r1' }]);
    await log.append([{ tenantId: 'tenant-a', at: 300, level: 'info', message: 'note', recipient: null }]);
    await log.append([]);
    const all = await log.list('tenant-a', { limit: 10 });
    t.same(all.map((e) => e.message), ['note', 'failed 1', 'queued 2', 'queued 1'], 'newest first; same `at` in append order');
    t.match(all[1], { id: /^log_[0-9a-f]{22}$/, tenantId: 'tenant-a', at: 200, level: 'error', recipient: 'did:key:r1' });
    t.same((await log.list('tenant-a', { limit: 2 })).map((e) => e.message), ['note', 'failed 1']);
    t.same((await log.list('tenant-a', { recipient: 'did:key:r1', limit: 10 })).map((e) => e.message), ['failed 1', 'queued 1']);
    t.same((await log.list('tenant-a', { recipient: 'did:key:r1', limit: 1 })).map((e) => e.message), ['failed 1']);
    t.same(await log.list('tenant-a', { recipient: 'did:key:none', limit: 10 }), []);
    t.same(await log.list('tenant-a', { limit: 0 }), []);
    t.same((await log.list('tenant-b', { limit: 10 })).map((e) => e.message), ['b']);
    t.same(await log.list('tenant-b', { recipient: 'did:key:r1', limit: 10 }), [], "B cannot read A's entries by recipient");

    t.equal(await log.prune(100), 0, 'nothing before 100');
    t.equal(await log.prune(200), 3, 'the entries at 100 and 150, across tenants');
    t.same((await log.list('tenant-a', { limit: 10 })).map((e) => e.message), ['note', 'failed 1']);
    t.same((await log.list('tenant-a', { recipient: 'did:key:r1', limit: 10 })).map((e) => e.message), ['failed 1']);
    t.same(await log.list('tenant-b', { limit: 10 }), []);

    await log.append(Array.from({ length: 2_500 }, (_, i) => ({ tenantId: `t${i % 3}`, at: 1_000 + i, level: 'info' as const, message: `m${i}`, recipient: i % 2 ? 'did:key:r' : null })));
    t.equal(await log.prune(1_000 + 2_400), 2_400 + 2, 'prunes in several batches');
    t.equal((await log.list('t0', { limit: 1_000 })).length + (await log.list('t1', { limit: 1_000 })).length + (await log.list('t2', { limit: 1_000 })).length, 100);
    await t.rejects(log.append([{ tenantId: 'a', at: 1, level: 'debug' as never, message: 'x', recipient: null }]), { code: 'RELAY_BAD_LOG' });
  });

  t.test('counters: per-minute series across buckets, including unflushed counts', async (t) => {
    const store = await backend.make(t);
    const c = store.counters;
    const M = 60_000;
    const base = 1_700_000_000_000 - (1_700_000_000_000 % (10 * M));
    c.add('tenant-a', 'forwarded', base + 1_000);
    c.add('tenant-a', 'forwarded', base + 59_999, 2);
    c.add('tenant-a', 'forwarded', base + M, 4);
    c.add('tenant-a', 'forwarded', base + 5 * M + 30_000, 8);
    c.add('tenant-a', 'delivered', base, 100);
    c.add('tenant-b', 'forwarded', base, 1_000);
    t.same(await c.series('tenant-a', 'forwarded', base, base + 6 * M, M), [3, 4, 0, 0, 0, 8], 'unflushed, per minute');
    await c.flush();
    t.same(await c.series('tenant-a', 'forwarded', base, base + 6 * M, M), [3, 4, 0, 0, 0, 8], 'the same once flushed');
    c.add('tenant-a', 'forwarded', base + 10, 16);
    c.add('tenant-a', 'forwarded', base + 3 * M, 32);
    t.same(await c.series('tenant-a', 'forwarded', base, base + 6 * M, M), [19, 4, 0, 32, 0, 8], 'stored plus unflushed');
    t.same(await c.series('tenant-a', 'forwarded', base, base + 6 * M, 3 * M), [23, 40], '3-minute buckets');
    t.same(await c.series('tenant-a', 'forwarded', base, base + 5 * M, 2 * M), [23, 32, 0], 'a last partial bucket');
    t.same(await c.series('tenant-a', 'forwarded', base + M, base + 2 * M, M), [4], 'a window');
    t.same(await c.series('tenant-a', 'forwarded', base + 30_000, base + 2 * M, M), [23, 0], 'the minute `from` falls in counts in the first bucket');
    t.same(await c.series('tenant-a', 'delivered', base, base + M, M), [100]);
    t.same(await c.series('tenant-b', 'forwarded', base, base + 2 * M, M), [1_000, 0]);
    t.same(await c.series('tenant-c', 'forwarded', base, base + 2 * M, M), [0, 0]);
    t.same(await c.series('tenant-a', 'forwarded', base, base, M), []);
    await t.rejects(c.series('tenant-a', 'forwarded', base, base + M, 0), { code: 'RELAY_BAD_NUMBER' });
    await t.rejects(c.series('tenant-a', 'forwarded', 0, base, 1), { code: 'RELAY_TOO_MANY_BUCKETS' });
    t.throws(() => c.add('a\x00', 'x', 1), { code: 'RELAY_BAD_KEY' });

    await store.close();
    const again = await backend.again(t, store);
    t.same(await again.counters.series('tenant-a', 'forwarded', base, base + 6 * M, M), [19, 4, 0, 32, 0, 8], 'close flushed the rest');
  });

  t.test('counters flush on a timer', async (t) => {
    const store = await backend.make(t, { counterFlushMs: 20 });
    store.counters.add('tenant-a', 'forwarded', 60_000, 7);
    const reader = await backend.again(t, store);
    t.same(await reader.counters.series('tenant-a', 'forwarded', 60_000, 120_000, 60_000), [0], 'not yet stored');
    await new Promise((r) => setTimeout(r, 80));
    t.same(await reader.counters.series('tenant-a', 'forwarded', 60_000, 120_000, 60_000), [7], 'stored by the timer');
  });

  t.test('secrets are created once', async (t) => {
    const store = await backend.make(t);
    let made = 0;
    const create = () => {
      made++;
      return new Uint8Array(randomBytes(32));
    };
    const all = await Promise.all(Array.from({ length: 10 }, () => store.secret('mediator-seed', create)));
    t.equal(made, 1);
    for (const s of all) t.same(s, all[0]);
    t.same(await store.secret('mediator-seed', create), all[0]);
    t.equal(made, 1);
    const other = await store.secret('session', create);
    t.equal(made, 2);
    t.notSame(other, all[0]);
    await t.rejects(store.secret('bad', () => 'text' as never), { code: 'RELAY_BAD_SECRET' });
    t.same(await store.secret('bad', () => new Uint8Array([1])), new Uint8Array([1]), 'a failed create stores nothing');
  });

  t.test('close waits for the calls under way and refuses later ones', async (t) => {
    const store = await backend.make(t);
    const pending = store.documents.put('tenant-a', 'k', 'i', 1);
    await store.close();
    await pending;
    await store.close();
    await t.rejects(store.documents.put('tenant-a', 'k', 'j', 1), { code: 'RELAY_STORE_CLOSED' });
    await t.rejects(store.messages.enqueue({ tenantId: 'a', mediationId: 'm', recipient: 'r', sender: null, size: 1, expiresAt: 1 }, new Uint8Array(1), 1), { code: 'RELAY_STORE_CLOSED' });
    const reader = await backend.again(t, store);
    t.equal(await reader.documents.get('tenant-a', 'k', 'i'), 1, 'the write under way was stored');
    t.equal(await reader.documents.get('tenant-a', 'k', 'j'), undefined, 'the refused one was not');
  });

  t.test('a document that JSON cannot hold is refused', async (t) => {
    const store = await backend.make(t);
    await t.rejects(store.documents.put('tenant-a', 'k', 'big', { n: 1n }), { code: 'RELAY_BAD_DOCUMENT' });
    await t.rejects(store.documents.put('tenant-a', 'k', 'fn', () => 1), { code: 'RELAY_BAD_DOCUMENT' });
    t.same(await store.documents.list('tenant-a', 'k'), []);
  });
}
