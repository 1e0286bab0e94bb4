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
  const env = { LEDGER_RELAY_POSTGRES_URL: postgres.url, LEDGER_RELAY_REDIS_URL: redis.url };
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

  /** turns live mode on over a socket to `base` and takes deliveries, acknowledging each batch on the socket */
  const listen = async (base: string): Promise<{ socket: Socket; done: Promise<void>; stop(): void }> => {
    const socket = await alice.socket(`${base}/didcomm`);
    let open = true;
    void socket.closed.then(() => (open = false));
    socket.sendRaw(await alice.pack(alice.message(`${PICKUP}/live-delivery-change`, { live_delivery: true }), mediator));
    const unconfirmed: string[][] = [];
    let stopped = false;
    const done = (async () => {
      while (open && !stopped) {
        let m;
        try {
          m = await socket.next(300);
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
        socket.sendRaw(await alice.pack(alice.message(`${PICKUP}/messages-received`, { message_id_list: atts.map((x) => x.id) }), mediator));
      }
    })();
    return { socket, done, stop: () => (stopped = true) };
  };

  const onA = await listen(baseA);
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
  while (byTag.size < FORWARDS / 3) await new Promise((r) => setTimeout(r, 10));
  await a.kill9();
  await onA.done;
  const deliveredBeforeKill = byTag.size;
  const onB = await listen(baseB);
  await Promise.all(senders);
  const deadline = Date.now() + 60_000;
  while ([...accepted].some((tag) => !byTag.has(tag)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  onB.stop();
  await onB.done;
  onB.socket.close();

  t.equal(accepted.size, FORWARDS + 1, 'B accepted every forward while A died');
  t.same([...accepted].filter((tag) => !byTag.has(tag)), [], `every accepted forward was delivered (${deliveredBeforeKill} through A before the kill)`);
  t.same(ackedThenDelivered, [], 'nothing acknowledged was delivered again');
  const twice = [...byTag.values()].filter((atts) => atts.length > 1);
  t.same(
    twice.filter((atts) => atts.slice(1).some((x) => x.description !== 'redelivery' || x.id !== atts[0]!.id)),
    [],
    `what came twice (${twice.length}: delivered by A, not acknowledged before it died) came with its id and marked a redelivery`,
  );
  t.ok(acknowledged.size >= deliveredBeforeKill / 2, `acknowledged: ${acknowledged.size}`);
});
