import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { postgresMissing, startPostgres } from '../../../../bench/lib/servers/postgres.js';
import { isLedgerError } from '../../../../node/errors.js';
import { createLogger } from '../../../../node/logging.js';
import { openDatabase } from '../../../../node/state/db.js';
import { migrate } from '../../../../plugins/common/sql/migrate.js';
import { createRelayServices } from '../../../../plugins/relay/compose.js';
import { parseRelayConfig } from '../../../../plugins/relay/config.js';
import { RELAY_POSTGRES_UNAVAILABLE, createPostgresRelayStore } from '../../../../plugins/relay/store/pg/index.js';
import { RELAY_MIGRATIONS } from '../../../../plugins/relay/store/pg/schema.js';
import type { MessageRecord, RelayStore } from '../../../../plugins/relay/store/types.js';
import { body, newMessage, testSecrets, type StoreOptions } from './contract/backend.js';
import { mediation } from './contract/mediations.js';
import { checker, connect, freshDatabase, openStore } from './pg-helpers.js';

/**
 * Two Postgres stores on one database are two relay instances: each sees what the other wrote,
 * and what they race for (a transition, an expiry, a secret, a key) happens once. Then the
 * database going away: every call fails as `unavailable` (a 503), and all works again once it is
 * back. One real server for this file.
 */

const ids = (rs: readonly MessageRecord[]) => rs.map((r) => r.id);
const sorted = (xs: readonly string[]) => [...xs].sort();

const until = async (what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const unavailable = (err: unknown): boolean => isLedgerError(err) && err.kind === 'unavailable' && err.code === RELAY_POSTGRES_UNAVAILABLE;

t.test('relay instances sharing one Postgres', { skip: postgresMissing() }, async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.stop());

  /** two instances on a fresh database */
  const pair = async (t: Test, opts: StoreOptions = {}): Promise<{ a: RelayStore; b: RelayStore; url: string }> => {
    const url = await freshDatabase(server);
    const [a, b] = await Promise.all([openStore(t, url, opts), openStore(t, url, opts)]);
    return { a, b, url };
  };

  t.test('migrations started at once apply once', async (t) => {
    const url = await freshDatabase(server);
    const [x, y] = [checker(t, url), checker(t, url)];
    const reports = await Promise.all([migrate(x, 'relay', RELAY_MIGRATIONS), migrate(y, 'relay', RELAY_MIGRATIONS)]);
    const all = RELAY_MIGRATIONS.map((m) => m.version);
    t.same(reports.map((r) => r.applied).sort((p, q) => p.length - q.length), [[], all], 'one applied them all, the other none');
    t.same(reports.map((r) => r.version), [all.length, all.length]);

    const fresh = await freshDatabase(server);
    const { a, b } = await (async () => {
      const [a, b] = await Promise.all([openStore(t, fresh), openStore(t, fresh)]);
      return { a, b };
    })();
    const { rows } = await checker(t, fresh).query<{ version: number }>("SELECT version FROM schema_migrations WHERE component = 'relay' ORDER BY version");
    t.same(rows.map((r) => r.version), all, 'two stores opened at once: each migration recorded once');
    await a.documents.put('tenant-a', 'settings', 'main', { n: 1 });
    t.same(await b.documents.get('tenant-a', 'settings', 'main'), { n: 1 });
  });

  t.test("each sees the other's mediations, keylists, documents, log and messages", async (t) => {
    const { a, b } = await pair(t);
    const m = mediation({ state: 'granted', grantedAt: 2 });
    await a.mediations.put(m);
    t.same(await b.mediations.get(m.id), m);
    t.same(await b.mediations.byRecipient(m.recipientDid), m);
    t.same(await b.mediations.list('tenant-a'), [m]);
    await b.mediations.put({ ...m, state: 'revoked', reason: 'by b', updatedAt: 3 });
    t.match(await a.mediations.byRecipient(m.recipientDid), { state: 'revoked', reason: 'by b' });

    await a.mediations.updateKeys('med-1', ['did:key:k1', 'did:key:k2'], [], 10);
    t.same(await b.mediations.byKey('did:key:k1'), { key: 'did:key:k1', mediationId: 'med-1', addedAt: 10 });
    t.equal((await b.mediations.keylist('med-1')).total, 2);
    await t.rejects(b.mediations.updateKeys('med-2', ['did:key:k2'], [], 11), { code: 'KEY_IN_OTHER_KEYLIST' }, "a key in a's keylist is refused through b");
    const race = await Promise.allSettled([a.mediations.updateKeys('med-3', ['did:key:race'], [], 12), b.mediations.updateKeys('med-4', ['did:key:race'], [], 12)]);
    t.equal(race.filter((r) => r.status === 'fulfilled').length, 1, 'one key added to two keylists at once: one wins');
    t.match(race.find((r) => r.status === 'rejected'), { reason: { code: 'KEY_IN_OTHER_KEYLIST' } }, 'the other is refused, not a raw error');

    await b.documents.put('tenant-a', 'webhook', 'w1', { url: 'https://a.example' });
    t.same(await a.documents.list('tenant-a', 'webhook'), [{ url: 'https://a.example' }]);
    await a.documents.putIndex('apikey', 'h1', { tenantId: 'tenant-a', id: 'key-1' });
    t.same(await b.documents.index('apikey', 'h1'), { tenantId: 'tenant-a', id: 'key-1' });
    await a.log.append([{ tenantId: 'tenant-a', at: 100, level: 'info', message: 'from a', recipient: null }]);
    await b.log.append([{ tenantId: 'tenant-a', at: 200, level: 'info', message: 'from b', recipient: null }]);
    t.same((await a.log.list('tenant-a', { limit: 10 })).map((e) => e.message), ['from b', 'from a']);

    const one = await a.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(1), 20);
    const two = await b.messages.enqueue(newMessage({ recipient: 'did:key:k2' }), body(2), 21);
    t.same(ids(await b.messages.pending(['did:key:k1', 'did:key:k2'], 10)), sorted([one.id, two.id]));
    t.same(await b.messages.body(one.id), body(1));
    t.equal(await a.messages.countPending(['did:key:k1', 'did:key:k2']), 2);
    await b.messages.markDelivered([one.id], 'delivered', 30);
    t.same(await b.messages.acknowledge([one.id], ['did:key:k1'], 31, true), [one.id], 'enqueued through a, acknowledged through b');
    t.match(await a.messages.get(one.id), { state: 'acknowledged', deliveredAt: 30, acknowledgedAt: 31 });
    t.match(await a.messages.getMany([two.id, one.id]), [{ id: two.id, state: 'queued' }, { id: one.id, state: 'acknowledged' }], "a's live push sees b's acknowledgement");
    t.equal(await a.messages.body(one.id), undefined);
    t.same(await a.messages.acknowledge([one.id], ['did:key:k1'], 32, true), [], 'and not again through a');
    t.same(await a.messages.stateCounts('tenant-a'), await b.messages.stateCounts('tenant-a'));
    t.same(ids(await a.messages.fail(['did:key:k2'], 'revoked', 40)), [two.id], "a fails b's message");
    t.same(await b.messages.pending(['did:key:k1', 'did:key:k2'], 10), []);
  });

  t.test('ids from both are unique; racing transitions move each message once', async (t) => {
    const { a, b } = await pair(t);
    const made = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).messages.enqueue(newMessage({ recipient: `did:key:r${i % 4}` }), body(i), i)));
    t.equal(new Set(ids(made)).size, 200, 'no id made twice');
    const all = ids(made);
    const recipients = ['did:key:r0', 'did:key:r1', 'did:key:r2', 'did:key:r3'];
    const [ackA, ackB] = await Promise.all([
      a.messages.acknowledge(all, recipients, 50, false),
      b.messages.acknowledge([...all].reverse(), recipients, 51, true),
      a.messages.markDelivered(all, 'delivered', 49),
      b.messages.markDelivered(all, 'live-delivered', 49),
    ]);
    t.equal(ackA.length + ackB.length, 200, 'every message acknowledged');
    t.equal(new Set([...ackA, ...ackB]).size, 200, 'none by both');
    t.same(await a.messages.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 200, expired: 0, failed: 0 });
  });

  t.test('two sweepers at once report each expiry once, and prune each message once', async (t) => {
    const { a, b } = await pair(t);
    const made = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).messages.enqueue(newMessage({ recipient: `did:key:r${i % 3}`, expiresAt: 1_000 + (i % 50) }), body(i), 1)));
    const acked = await a.messages.acknowledge(ids(made.filter((_, i) => i % 10 === 0)), ['did:key:r0', 'did:key:r1', 'did:key:r2'], 2, false);
    const sweep = async (s: RelayStore): Promise<string[]> => {
      const out: string[] = [];
      for (;;) {
        const expired = await s.messages.expire(5_000, 20);
        if (expired.length === 0) return out;
        out.push(...ids(expired));
      }
    };
    const [byA, byB] = await Promise.all([sweep(a), sweep(b)]);
    const rest = await sweep(a);
    const reported = [...byA, ...byB, ...rest];
    t.ok(byA.length > 0 && byB.length > 0, `both swept (${byA.length} and ${byB.length})`);
    t.equal(new Set(reported).size, reported.length, 'no expiry reported twice');
    t.equal(reported.length, 300 - acked.length, 'every pending message expired');
    t.same(await b.messages.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: acked.length, expired: 300 - acked.length, failed: 0 });
    for (const m of made.slice(0, 20)) t.equal(await b.messages.body(m.id), undefined, 'bodies dropped');

    const prune = async (s: RelayStore): Promise<number> => {
      let n = 0;
      for (;;) {
        const k = await s.messages.prune(10_000, 15);
        n += k;
        if (k < 15) return n;
      }
    };
    const pruned = await Promise.all([prune(a), prune(b)]);
    const left = await prune(a);
    t.equal(pruned[0]! + pruned[1]! + left, 300, 'each message pruned once');
    t.same((await a.messages.list({ tenantId: 'tenant-a', limit: 10, offset: 0 })).total, 0);
  });

  t.test('a secret raced from both instances is the same bytes on both', async (t) => {
    const { a, b } = await pair(t);
    let made = 0;
    const create = () => {
      made++;
      return new Uint8Array(randomBytes(32));
    };
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).secret('mediator-seed', create)));
    for (const s of all) t.same(s, all[0]);
    t.ok(made >= 1 && made <= 2, `created ${made} time(s): at most once per instance`);
    t.same(await a.secret('mediator-seed', create), all[0]);
    t.same(await b.secret('mediator-seed', create), all[0]);
  });

  t.test("the instances' counters sum", async (t) => {
    const { a, b, url } = await pair(t);
    const M = 60_000;
    a.counters.add('tenant-a', 'forwarded', 5 * M, 3);
    b.counters.add('tenant-a', 'forwarded', 5 * M + 10, 4);
    b.counters.add('tenant-a', 'forwarded', 6 * M, 1);
    t.same(await a.counters.series('tenant-a', 'forwarded', 5 * M, 7 * M, M), [3, 0], "a sees its own unflushed counts, not b's");
    await Promise.all([a.counters.flush(), b.counters.flush()]);
    t.same(await a.counters.series('tenant-a', 'forwarded', 5 * M, 7 * M, M), [7, 1], 'flushed, they sum');
    a.counters.add('tenant-a', 'forwarded', 5 * M, 10);
    b.counters.add('tenant-a', 'forwarded', 5 * M, 20);
    await Promise.all([a.counters.flush(), b.counters.flush()]);
    const c = await openStore(t, url);
    t.same(await c.counters.series('tenant-a', 'forwarded', 5 * M, 7 * M, M), [37, 1], 'a third instance reads the sums');
  });

  t.test('while Postgres is down every call fails as unavailable; all works again when it is back', async (t) => {
    const url = await freshDatabase(server);
    const flushErrors: unknown[] = [];
    const poolErrors: unknown[] = [];
    const store = await createPostgresRelayStore(connect(url, (err) => poolErrors.push(err)), { secrets: testSecrets, counterFlushMs: 50, onError: (err) => flushErrors.push(err) });
    t.teardown(() => store.close());
    const kept = await store.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(1), 1);
    await store.mediations.put(mediation());
    await server.halt();
    let resumed = false;
    t.teardown(() => (resumed ? undefined : server.resume()));
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['enqueue', () => store.messages.enqueue(newMessage(), body(2), 2)],
      ['get', () => store.messages.get(kept.id)],
      ['getMany', () => store.messages.getMany([kept.id])],
      ['body', () => store.messages.body(kept.id)],
      ['pending', () => store.messages.pending(['did:key:k1'], 10)],
      ['countPending', () => store.messages.countPending(['did:key:k1'])],
      ['markDelivered', () => store.messages.markDelivered([kept.id], 'delivered', 3)],
      ['acknowledge', () => store.messages.acknowledge([kept.id], ['did:key:k1'], 3, true)],
      ['fail', () => store.messages.fail(['did:key:k1'], 'revoked', 3)],
      ['expire', () => store.messages.expire(10, 10)],
      ['prune', () => store.messages.prune(10, 10)],
      ['list', () => store.messages.list({ tenantId: 'tenant-a', limit: 10, offset: 0 })],
      ['stateCounts', () => store.messages.stateCounts('tenant-a')],
      ['mediations.get', () => store.mediations.get('med-1')],
      ['mediations.put', () => store.mediations.put(mediation({ updatedAt: 5 }))],
      ['updateKeys', () => store.mediations.updateKeys('med-1', ['did:key:k9'], [], 5)],
      ['keylist', () => store.mediations.keylist('med-1')],
      ['documents.put', () => store.documents.put('tenant-a', 'k', 'i', 1)],
      ['documents.get', () => store.documents.get('tenant-a', 'k', 'i')],
      ['putIndex', () => store.documents.putIndex('apikey', 'h', { tenantId: 'tenant-a', id: 'i' })],
      ['log.append', () => store.log.append([{ tenantId: 'tenant-a', at: 5, level: 'info', message: 'x', recipient: null }])],
      ['log.list', () => store.log.list('tenant-a', { limit: 10 })],
      ['series', () => store.counters.series('tenant-a', 'forwarded', 0, 60_000, 60_000)],
      ['secret', () => store.secret('seed', () => new Uint8Array([1]))],
    ];
    for (const [what, call] of calls) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      t.ok(unavailable(err), `${what}: ${String(err)}`);
    }
    store.counters.add('tenant-a', 'forwarded', 60_000, 5);
    await until('a background flush fails', () => flushErrors.length > 0);
    t.ok(flushErrors.every(unavailable), 'the background flush reports it as unavailable');
    t.ok(poolErrors.every((e) => !isLedgerError(e)), `idle connections' errors reach onError (${poolErrors.length})`);

    await server.resume();
    resumed = true;
    t.match(await store.messages.get(kept.id), { state: 'queued' }, 'the records are there');
    const later = await store.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(3), 6);
    t.same(await store.messages.acknowledge([kept.id, later.id], ['did:key:k1'], 7, true), [kept.id, later.id]);
    await store.mediations.updateKeys('med-1', ['did:key:k9'], [], 8);
    t.match(await store.mediations.byKey('did:key:k9'), { mediationId: 'med-1' });
    await until('the counts kept through the outage are flushed', async () => {
      const reader = await openStore(t, url);
      const [n] = await reader.counters.series('tenant-a', 'forwarded', 60_000, 120_000, 60_000);
      await reader.close();
      return n === 5;
    });
    t.pass('the counts kept through the outage reached the database');
  });

  t.test('createRelayServices opens the Postgres store from postgresUrl, and rejects when it cannot be reached', async (t) => {
    const url = await freshDatabase(server);
    // the relay's own namespace keeps what is not in Postgres: the mail outbox
    const db = await openDatabase('memory');
    t.teardown(() => db.close());
    const input = (postgresUrl: string) => ({
      config: parseRelayConfig({ enabled: true, host: '127.0.0.1', port: 0, postgresUrl }),
      network: 'testnet',
      // not used until the relay serves requests
      chain: {} as never,
      db: db.pluginStore('relay'),
      outbox: {} as never,
      verifyBbs: async () => false,
      log: createLogger({ level: 'silent' }),
      serviceKeySecret: testSecrets.serviceKeySecret,
    });
    const services = await createRelayServices(input(url));
    t.teardown(async () => {
      await services.delivery.flushLog();
      await services.coordination.close();
      await services.store.close();
    });
    t.equal(services.store.backend, 'postgres');
    const { rows } = await checker(t, url).query<{ name: string }>('SELECT name FROM relay_secrets');
    t.same(rows.map((r) => r.name), ['mediator-ed25519-seed'], "the mediator's seed is kept in Postgres");

    const nowhere = server.url.replace(/:\d+\//, ':1/');
    const err = await createRelayServices(input(nowhere)).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(unavailable(err), `a Postgres that cannot be reached: ${String(err)}`);
  });
});
