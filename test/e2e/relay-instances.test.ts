import t from 'tap';
import { postgresMissing, startPostgres } from '../../bench/lib/servers/postgres.js';
import { redisMissing, startRedis } from '../../bench/lib/servers/redis.js';
import { TestAgent, TestResolver } from '../plugins/relay/didcomm-client.js';
import { startNodeProcess, tempDataDir } from './harness.js';

/**
 * Two relay instances on one Postgres and one Redis (docs/relay.md, "Several instances"): relay A
 * on the validator, relay B on a node that follows it (`ledger start --follow`). Mediation is
 * granted through A, forwards go through B and reach the agent live on A; A is killed with -9
 * mid-stream, the agent reconnects to B, and every accepted forward arrives, nothing acknowledged
 * comes again, and whatever comes twice is marked a redelivery.
 */

const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';
const PICKUP = 'https://didcomm.org/messagepickup/3.0';
const FORWARDS = 400;

type Attachment = { id: string; description?: string; data: { json: { tag: string } } };
type Socket = Awaited<ReturnType<TestAgent['socket']>>;

t.test('two relay instances: live across them, and a kill -9 of one mid-stream', { skip: postgresMissing() ?? redisMissing() }, async (t) => {
  const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  t.teardown(async () => {
    await redis.stop();
    await postgres.stop();
  });
  // the mediator's seed in Postgres is sealed under the service-key secret: both instances need the same
  const env = { LEDGER_RELAY_POSTGRES_URL: postgres.url, LEDGER_RELAY_REDIS_URL: redis.url, LEDGER_SERVICE_KEY_SECRET: 'the-secret-both-relay-instances-share' };
  const a = await startNodeProcess(t, await tempDataDir(t), { plugins: { relay: 0 }, env, logLevel: 'warn' });
  const b = await startNodeProcess(t, await tempDataDir(t), { plugins: { relay: 0 }, env, logLevel: 'warn', follow: a.url });
  const [baseA, baseB] = [a.plugins.relay!, b.plugins.relay!];
  const mediator = ((await (await fetch(`${baseA}/invite`)).json()) as { from: string }).from;
  t.equal(((await (await fetch(`${baseB}/invite`)).json()) as { from: string }).from, mediator, 'both instances are one mediator: its key is in Postgres');
  const health = (await (await fetch(`${baseB}/v1/health`)).json()) as { checks: Record<string, { ok: boolean; backend: string; ms: number }> };
  t.match(health.checks, { postgres: { ok: true, backend: 'postgres' }, redis: { ok: true, backend: 'redis' } }, 'health names the engines that answered');

  const resolver = new TestResolver();
  const alice = new TestAgent(resolver);
  const bob = new TestAgent(resolver);
  t.equal((await alice.send(`${baseA}/didcomm`, mediator, `${MEDIATION}/mediate-request`, {})).message?.type, `${MEDIATION}/mediate-grant`, 'mediation granted through A');
  await alice.send(`${baseA}/didcomm`, mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: alice.did, action: 'add' }] });

  const forwards: Array<{ tag: string; packed: string }> = [];
  for (let i = 0; i < FORWARDS + 1; i++) {
    const inner = await bob.pack(bob.message('https://example.org/n', { i }), alice.did, { anon: true });
    forwards.push({ tag: (JSON.parse(inner) as { tag: string }).tag, packed: await bob.forward(mediator, alice.did, inner) });
  }
  const byTag = new Map<string, Attachment[]>();
  const acknowledged = new Set<string>();
  const ackedThenDelivered: string[] = [];

  /** why the relays closed the agent's sockets (a relay closes a socket that has too many frames in flight) */
  const closes: string[] = [];

  /**
   * Turns live mode on over a socket to `base` and takes deliveries, acknowledging each batch on
   * the socket. A socket the relay closes is opened again, as agents do, until `stop()` or until
   * `base` is gone (`alive()` false).
   */
  const listen = (base: string, alive: () => boolean = () => true): { done: Promise<void>; stop(): void } => {
    let stopped = false;
    let socket: Socket | undefined;
    const session = async (): Promise<void> => {
      const s = await alice.socket(`${base}/didcomm`);
      socket = s;
      let open = true;
      void s.closed.then((c) => {
        open = false;
        if (!stopped && alive()) closes.push(`${c.code} ${c.reason}`);
      });
      s.sendRaw(await alice.pack(alice.message(`${PICKUP}/live-delivery-change`, { live_delivery: true }), mediator));
      const unconfirmed: string[][] = [];
      while (open && !stopped) {
        let m;
        try {
          m = await s.next(300);
        } catch {
          continue;
        }
        if (m.type === `${PICKUP}/status`) {
          for (const id of unconfirmed.shift() ?? []) acknowledged.add(id);
          continue;
        }
        if (m.type !== `${PICKUP}/delivery`) continue;
        const atts = m.attachments as Attachment[];
        for (const att of atts) {
          if (acknowledged.has(att.id)) ackedThenDelivered.push(att.id);
          byTag.set(att.data.json.tag, [...(byTag.get(att.data.json.tag) ?? []), att]);
        }
        unconfirmed.push(atts.map((x) => x.id));
        if (open) s.sendRaw(await alice.pack(alice.message(`${PICKUP}/messages-received`, { message_id_list: atts.map((x) => x.id) }), mediator));
      }
    };
    const done = (async () => {
      while (!stopped && alive()) {
        await session().catch(() => undefined);
        if (!stopped && alive()) await new Promise((r) => setTimeout(r, 100));
      }
    })();
    return {
      done,
      stop: () => {
        stopped = true;
        socket?.close();
      },
    };
  };

  let aAlive = true;
  const onA = listen(baseA, () => aAlive);
  const first = forwards[0]!;
  const sentAt = Date.now();
  t.equal((await bob.post(`${baseB}/didcomm`, first.packed)).status, 202, 'a forward accepted by B');
  while (!byTag.has(first.tag) && Date.now() - sentAt < 10_000) await new Promise((r) => setTimeout(r, 5));
  t.ok(byTag.has(first.tag), `delivered live by A in ${Date.now() - sentAt} ms`);

  const accepted = new Set<string>([first.tag]);
  let next = 1;
  const sender = async () => {
    while (next <= FORWARDS) {
      const f = forwards[next++]!;
      const res = await bob.post(`${baseB}/didcomm`, f.packed);
      if (res.status === 202) accepted.add(f.tag);
    }
  };
  const senders = Array.from({ length: 4 }, sender);
  const started = Date.now();
  while (byTag.size < FORWARDS / 3) {
    if (Date.now() - started > 60_000) {
      throw new Error(`a third not delivered through A in 60 s: sent ${next - 1}, accepted ${accepted.size}, delivered ${byTag.size}\nA:\n${a.stderr().slice(-3000)}\nB:\n${b.stderr().slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  aAlive = false;
  await a.kill9();
  await onA.done;
  const deliveredBeforeKill = byTag.size;
  const onB = listen(baseB);
  await Promise.all(senders);
  const deadline = Date.now() + 60_000;
  while ([...accepted].some((tag) => !byTag.has(tag)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  onB.stop();
  await onB.done;
  if (closes.length > 0) t.comment(`sockets the relays closed, opened again: ${closes.join('; ')}`);

  t.equal(accepted.size, FORWARDS + 1, 'B accepted every forward while A died');
  const missing = [...accepted].filter((tag) => !byTag.has(tag));
  t.same(missing, [], `every accepted forward was delivered (${deliveredBeforeKill} through A before the kill)`);
  if (missing.length > 0) t.comment(`relay B's log:\n${b.stderr().slice(-4000)}`);
  t.same(ackedThenDelivered, [], 'nothing acknowledged was delivered again');
  const twice = [...byTag.values()].filter((atts) => atts.length > 1);
  t.same(
    twice.filter((atts) => atts.slice(1).some((x) => x.description !== 'redelivery' || x.id !== atts[0]!.id)),
    [],
    `what came twice (${twice.length}: delivered by A, not acknowledged before it died) came with its id and marked a redelivery`,
  );
  t.ok(acknowledged.size >= deliveredBeforeKill / 2, `acknowledged: ${acknowledged.size}`);
});
