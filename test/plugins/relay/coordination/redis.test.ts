import t from 'tap';
import { redisMissing, startRedis } from '../../../../bench/lib/servers/redis.js';
import { isLedgerError } from '../../../../node/errors.js';
import { createRedisCoordination, REDIS_UNAVAILABLE } from '../../../../plugins/relay/coordination/redis.js';
import type { Arrival, Coordination } from '../../../../plugins/relay/coordination/types.js';
import { arrival, coordinationContract } from './contract.js';

/** A real redis-server on a free port; two coordinations on it are two relay instances. */

const until = async (what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

t.test('the Redis coordination', { skip: redisMissing() }, async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  let n = 0;
  const open = async (t: { teardown(fn: () => unknown): void }, prefix = 'test:'): Promise<Coordination> => {
    const c = await createRedisCoordination({ url: redis.url, prefix, replayWindowMs: 60_000 });
    t.teardown(() => c.close());
    return c;
  };

  t.test('the contract', async (t) => {
    coordinationContract(t, async (t) => {
      const c = await open(t, `contract-${n++}:`);
      t.equal(c.backend, 'redis');
      return c;
    });
  });

  t.test('two instances share limits, the replay window and arrivals', async (t) => {
    const a = await open(t, 'shared:');
    const b = await open(t, 'shared:');
    const did = 'did:key:z6MkShared';
    t.match(await a.limiter.hit(did, 3), { allowed: true, count: 1 });
    t.match(await b.limiter.hit(did, 3), { allowed: true, count: 2 });
    t.match(await a.limiter.hit(did, 3), { allowed: true, count: 3 });
    t.match(await b.limiter.hit(did, 3), { allowed: false, count: 3 }, 'the limit holds across instances');
    t.match(await b.limiter.peek(did), { count: 3 });
    const racers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).limiter.hit('did:key:z6MkRace', 5)));
    t.equal(racers.filter((v) => v.allowed).length, 5, 'twenty hits at once from two instances let exactly five through');

    t.equal(await a.replay.firstSeen('did:a', 'm-1'), true);
    t.equal(await b.replay.firstSeen('did:a', 'm-1'), false, 'a replay to the other instance is caught');

    const onA: Arrival[] = [];
    const onB: string[] = [];
    a.arrivals.subscribe('med-x', (x) => onA.push(x));
    b.arrivals.subscribe('med-x', (x) => onB.push(x.record.id));
    // a subscription reaches Redis asynchronously: publish until a hears one
    let i = 0;
    await until('a hears b', async () => {
      await b.arrivals.publish(arrival(`msg_${i++}`, 'med-x', new Uint8Array([9, 8, 7, i])));
      await new Promise((r) => setTimeout(r, 30));
      return onA.length > 0;
    });
    const first = onA[0]!;
    t.equal(first.mediationId, 'med-x');
    t.equal(first.record.tenantId, 'tenant-a', 'the record crosses whole');
    t.ok(first.body instanceof Uint8Array && first.body.length === 4 && first.body[0] === 9, 'the body crosses as bytes');
    t.same(onB, Array.from({ length: i }, (_, k) => `msg_${k}`), 'the publisher hears its own arrivals once, not again from Redis');
  });

  t.test('while Redis is down every call fails as unavailable, and all works again when it is back', async (t) => {
    const a = await open(t, 'outage:');
    const b = await open(t, 'outage:');
    const heard: string[] = [];
    a.arrivals.subscribe('med-o', (x) => heard.push(x.record.id));
    await redis.halt();
    for (const [what, call] of [
      ['hit', () => a.limiter.hit('did:o', 10)],
      ['peek', () => a.limiter.peek('did:o')],
      ['replay', () => a.replay.firstSeen('did:o', 'x')],
      ['ping', () => a.ping()],
    ] as const) {
      const err = await (call as () => Promise<unknown>)().then(
        () => undefined,
        (e: unknown) => e,
      );
      t.ok(isLedgerError(err) && err.code === REDIS_UNAVAILABLE && err.kind === 'unavailable', `${what}: ${String(err)}`);
    }
    await t.resolves(b.arrivals.publish(arrival('msg_lost', 'med-o')), 'a publish while down does not throw: the message is stored already');
    await redis.resume();
    await until('ping after the restart', () => a.ping().then(() => true, () => false));
    let i = 0;
    await until('arrivals cross again', async () => {
      await b.arrivals.publish(arrival(`msg_after_${i++}`, 'med-o'));
      await new Promise((r) => setTimeout(r, 30));
      return heard.length > 0;
    });
    t.match(heard[0], /^msg_after_/, 'the subscription was made again on reconnect');
    t.match(await a.limiter.hit('did:o', 10), { allowed: true });
  });

  t.test('an unreachable Redis at start is a clear error', async (t) => {
    const err = await createRedisCoordination({ url: 'redis://127.0.0.1:1', prefix: 'x:', replayWindowMs: 1000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(isLedgerError(err) && err.code === REDIS_UNAVAILABLE, String(err));
    t.match((err as Error).message, /Redis at redis:\/\/127\.0\.0\.1:1 cannot be reached/);
  });
});
