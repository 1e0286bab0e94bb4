import t from 'tap';
import { postgresMissing, startPostgres } from '../../../bench/lib/servers/postgres.js';
import { redisMissing, startRedis } from '../../../bench/lib/servers/redis.js';
import { openPostgres } from '../../../plugins/common/sql/postgres.js';
import { setup } from '../../rpc/ledger/harness.js';
import { mediate, startRelay } from './harness.js';

/**
 * The relay on Postgres and Redis while one of them is down: health says which (503), the wire
 * answers a 503 with Retry-After and the engine's code, never a 500, and all works again once it
 * is back. Real servers, halted and resumed. (The operator API maps the same errors through
 * toProblem, test/rpc/errors.test.ts.)
 */

const until = async (what: string, check: () => Promise<boolean>): Promise<void> => {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within 20 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

t.test('Postgres or Redis down: 503s that say which, and recovery', { skip: postgresMissing() ?? redisMissing() }, async (t) => {
  const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  t.teardown(async () => {
    await redis.stop();
    await postgres.stop();
  });
  const relay = await startRelay(t, { config: { postgresUrl: postgres.url, redisUrl: redis.url } });
  const alice = relay.agent();
  const bob = relay.agent();
  await mediate(relay, alice);
  const forward = async () => bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, await bob.pack(bob.message('https://example.org/m', {}), alice.did)));
  const health = async () => {
    const res = await fetch(`${relay.url}/v1/health`);
    return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, { ok: boolean; backend: string; ms: number; error?: string }> } };
  };

  const up = await health();
  t.equal(up.status, 200);
  t.match(up.body.checks, { postgres: { ok: true, backend: 'postgres' }, redis: { ok: true, backend: 'redis' } });
  t.ok(Number.isInteger(up.body.checks.redis!.ms) && Number.isInteger(up.body.checks.postgres!.ms), 'each check measured');
  t.equal((await forward()).status, 202);

  for (const [name, server, code] of [
    ['redis', redis, 'RELAY_REDIS_UNAVAILABLE'],
    ['postgres', postgres, 'RELAY_POSTGRES_UNAVAILABLE'],
  ] as const) {
    await server.halt();
    const down = await health();
    t.equal(down.status, 503, `${name} down: health is 503`);
    t.equal(down.body.status, 'degraded');
    t.match(down.body.checks[name], { ok: false, backend: name, error: /cannot be reached/ }, `${name} down: its check says so`);
    const other = name === 'redis' ? 'postgres' : 'redis';
    t.match(down.body.checks[other], { ok: true }, `the ${other} check still passes`);

    const packed = await bob.forward(relay.mediator, alice.did, await bob.pack(bob.message('https://example.org/m', {}), alice.did));
    const refused = await fetch(relay.didcomm, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed });
    t.equal(refused.status, 503, `${name} down: a forward is refused with 503`);
    t.ok(Number(refused.headers.get('retry-after')) >= 1, `with Retry-After ${refused.headers.get('retry-after')}`);
    t.match(await refused.json(), { status: 503, code }, 'naming the engine');

    await server.resume();
    await until(`${name} back`, async () => (await health()).status === 200);
    t.equal((await forward()).status, 202, `${name} back: forwards are accepted again`);
  }
});

t.test('an engine that cannot be reached at start keeps the relay from starting, and leaves nothing open', { skip: postgresMissing() ?? redisMissing() }, async (t) => {
  const postgres = await startPostgres();
  t.teardown(() => postgres.stop());
  const db = openPostgres(postgres.url, { unavailableCode: 'TEST_UNAVAILABLE' });
  t.teardown(() => db.close());
  const others = async () => Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = $1 AND pid <> pg_backend_pid()', ['client backend'])).rows[0]!.n);
  const node = await setup(t, { blocks: true });
  const fails = (config: Record<string, unknown>) => startRelay(t, { node, config }).then(
    () => 'started',
    (err: unknown) => (err as Error).message,
  );
  t.match(await fails({ postgresUrl: postgres.url, redisUrl: 'redis://127.0.0.1:1' }), /relay did not start: .*Redis at redis:\/\/127\.0\.0\.1:1 cannot be reached/);
  t.equal(await others(), 0, 'the Postgres pool opened for it was closed');
  const halted = await startPostgres();
  await halted.stop();
  t.match(await fails({ postgresUrl: halted.url }), /relay did not start: .*Postgres at .* cannot be reached/);
});
