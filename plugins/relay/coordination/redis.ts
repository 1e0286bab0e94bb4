import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { unavailable } from '../../../node/errors.js';
import { redactUrl } from '../../../node/config/redact-url.js';
import { decodeArrival, encodeArrival } from './arrival-frame.js';
import { LocalListeners } from './local-listeners.js';
import type { Coordination, RateVerdict } from './types.js';

/**
 * Coordination of several relay instances through one Redis (`plugins.relay.redisUrl`):
 *   - rate limits: a counter per DID that expires with its minute, counted by a script so that
 *     two instances cannot both let the last envelope through;
 *   - replay: `SET NX` of the (sender, id) pair's hash, expiring with the window;
 *   - live delivery: a pub/sub channel per mediation, subscribed while this instance holds a live
 *     connection for it. The publishing instance tells its own listeners directly and skips its
 *     own frames when they come back.
 * Commands are not queued while Redis is down: they fail at once with RELAY_REDIS_UNAVAILABLE
 * (a 503 on the wire and the operator API) and the client reconnects in the background.
 */

export const REDIS_UNAVAILABLE = 'RELAY_REDIS_UNAVAILABLE';
const WINDOW_MS = 60_000;

// count one unless at the limit; answers {counted, count, ms left}
const HIT = `local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if n >= tonumber(ARGV[2]) then return {0, n, ttl} end
n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {1, n, ttl}`;

export interface RedisCoordinationOptions {
  url: string;
  /** namespaces every key and channel, so relays of several networks can share one Redis */
  prefix: string;
  replayWindowMs: number;
  /** ms to wait for a command; default 1000 */
  commandTimeoutMs?: number;
  onError?: (err: unknown, what: string) => void;
}

const secondsLeft = (ms: number): number => (ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : WINDOW_MS / 1000);

export async function createRedisCoordination(opts: RedisCoordinationOptions): Promise<Coordination> {
  const where = redactUrl(opts.url);
  const common = { commandTimeout: opts.commandTimeoutMs ?? 1000, retryStrategy: (n: number) => Math.min(100 * n, 2000), lazyConnect: true };
  // commands fail at once while disconnected, instead of waiting in a queue behind the outage
  const client = new Redis(opts.url, { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  // subscriptions are kept and sent again on every reconnect
  const sub = new Redis(opts.url, { ...common, enableOfflineQueue: true, maxRetriesPerRequest: null });
  const report = (what: string) => (err: unknown) => opts.onError?.(err, what);
  client.on('error', report('redis client'));
  sub.on('error', report('redis subscriber'));
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if ((err as Error)?.name === 'ReplyError') throw err; // the command itself is wrong: a bug
      throw unavailable(REDIS_UNAVAILABLE, `Redis at ${where} cannot be reached: ${(err as Error).message}`, { retryAfterSeconds: 2 });
    }
  };
  await Promise.all([client.connect(), sub.connect()]).catch((err: unknown) => {
    client.disconnect();
    sub.disconnect();
    throw unavailable(REDIS_UNAVAILABLE, `Redis at ${where} cannot be reached: ${(err as Error).message}`, { retryAfterSeconds: 2 });
  });

  const origin = randomUUID();
  const listeners = new LocalListeners();
  const channel = (mediationId: string) => `${opts.prefix}arrivals:${mediationId}`;
  sub.on('messageBuffer', (ch: Buffer, frame: Buffer) => {
    const decoded = decodeArrival(frame);
    if (!decoded || decoded.origin === origin || ch.toString() !== channel(decoded.arrival.mediationId)) return;
    listeners.tell(decoded.arrival);
  });

  return {
    backend: 'redis',
    limiter: {
      async hit(did, limitPerMin): Promise<RateVerdict> {
        const [counted, count, ttl] = (await guard(() => client.eval(HIT, 1, `${opts.prefix}rl:${did}`, WINDOW_MS, limitPerMin))) as [number, number, number];
        return { allowed: counted === 1, count, retryAfter: secondsLeft(ttl) };
      },
      async peek(did) {
        const key = `${opts.prefix}rl:${did}`;
        const [count, ttl] = await guard(() => Promise.all([client.get(key), client.pttl(key)]));
        return { count: Number(count ?? 0), retryAfter: secondsLeft(ttl) };
      },
    },
    replay: {
      async firstSeen(sender, id) {
        const key = `${opts.prefix}rp:${createHash('sha256').update(`${sender ?? ''}\u0000${id}`).digest('base64url')}`;
        return (await guard(() => client.set(key, '1', 'PX', opts.replayWindowMs, 'NX'))) === 'OK';
      },
    },
    arrivals: {
      async publish(arrival) {
        listeners.tell(arrival);
        // the message is stored already: a lost notice delays its push to the next pickup, nothing more
        await client.publish(channel(arrival.mediationId), encodeArrival(origin, arrival)).catch(report('redis publish'));
      },
      subscribe(mediationId, listener) {
        return listeners.add(
          mediationId,
          listener,
          () => void sub.subscribe(channel(mediationId)).catch(report('redis subscribe')),
          () => void sub.unsubscribe(channel(mediationId)).catch(report('redis unsubscribe')),
        );
      },
      get listening() {
        return listeners.size;
      },
    },
    async ping() {
      await guard(() => client.ping());
    },
    async close() {
      await Promise.allSettled([client.quit(), sub.quit()]);
      client.disconnect();
      sub.disconnect();
    },
  };
}
