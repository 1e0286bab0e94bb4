import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Reply } from '../../../common/http/router.js';
import { type RouteDeps } from '../router.js';

/**
 * GET /health and /v1/health, no credential (seed 000 "Health"). The check names are the
 * contract's; each says what it really probes in `backend` (docs/relay.md, "Backends"):
 *   - `postgres`: the record store (mediations, messages, documents, keys): one document written
 *     and read back, and a pending count read, in Postgres (`backend: "postgres"`) or, on the
 *     embedded default, in the relay's LevelDB (`backend: "leveldb"`);
 *   - `redis`: what the instances share (rate limits, replay window, live fan-out): a PING to
 *     Redis (`backend: "redis"`) or, on one instance, the in-process limiter (`in-process`);
 *   - `ledgerRpc`: the chain the relay routes by, in process: the head is there and its block
 *     readable (`height`, `headAgeMs` say how fresh it is; an old head does not fail the check).
 * `status` is `ok`, or `degraded` with HTTP 503 when any check fails. `ms` is measured.
 */

/** a check that takes longer fails */
export const CHECK_TIMEOUT_MS = 2000;
/** the reserved tenant of the store probe: tenant ids of operators start with a letter or digit */
const PROBE_TENANT = '_health';

interface Check {
  ok: boolean;
  ms: number;
  backend: string;
  error?: string;
  [extra: string]: unknown;
}

async function timed(backend: string, probe: () => Promise<Record<string, unknown> | void>): Promise<Check> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    });
    const extra = (await Promise.race([probe(), timeout])) ?? {};
    return { ok: true, ms: Math.round(performance.now() - start), backend, ...extra };
  } catch (err) {
    return { ok: false, ms: Math.round(performance.now() - start), backend, error: err instanceof Error ? err.message.slice(0, 200) : 'failed' };
  } finally {
    clearTimeout(timer);
  }
}

export function mountHealth({ router, services, version, now }: RouteDeps): void {
  const { store, chain, coordination } = services;

  const handler = async () => {
    const [postgres, redis, ledgerRpc] = await Promise.all([
      timed(store.backend, async () => {
        const nonce = randomBytes(8).toString('hex');
        await store.documents.put(PROBE_TENANT, 'probe', 'store', { nonce, at: now() });
        const back = await store.documents.get<{ nonce: string }>(PROBE_TENANT, 'probe', 'store');
        if (back?.nonce !== nonce) throw new Error('the probe document did not read back');
        const pending = await store.messages.countPending(['did:probe:health']);
        if (!Number.isInteger(pending)) throw new Error('the queue answered no count');
      }),
      timed(coordination.backend, () => coordination.ping()),
      timed('in-process', async () => {
        const head = chain.head();
        if (!head) throw new Error('the chain has no head yet');
        const block = await chain.blockBySeq(head.seq);
        if (!block) throw new Error(`the head block (seq ${head.seq}) cannot be read`);
        return { height: head.height, headAgeMs: Math.max(0, now() - block.header.timestampMs) };
      }),
    ]);
    const ok = postgres.ok && redis.ok && ledgerRpc.ok;
    const body = {
      status: ok ? 'ok' : 'degraded',
      service: 'relay',
      version,
      network: services.network,
      time: new Date(now()).toISOString(),
      checks: { postgres, redis, ledgerRpc },
      // email notifications: over SMTP, or kept in the mail outbox when no SMTP is configured
      notifications: { email: services.events.notifier.mailVia },
    };
    return new Reply(ok ? 200 : 503, body, { 'cache-control': 'no-store' });
  };

  router.add('GET', '/health', 'none', handler);
  router.add('GET', '/v1/health', 'none', handler);
}
