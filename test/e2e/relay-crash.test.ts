import t from 'tap';
import { startNodeProcess, tempDataDir, type NodeProcess } from './harness.js';
import { TestAgent, TestResolver } from '../plugins/relay/didcomm-client.js';

/**
 * The relay under load, killed with SIGKILL and restarted on the same data directory: every
 * forward answered 202 is delivered, and nothing acknowledged is ever delivered again.
 */

const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';
const PICKUP = 'https://didcomm.org/messagepickup/3.0';
const KILLS = 3;

t.test('kill -9 under load loses no accepted forward and redelivers nothing acknowledged', async (t) => {
  const dir = await tempDataDir(t);
  let node: NodeProcess = await startNodeProcess(t, dir, { plugins: { relay: 0 }, logLevel: 'warn' });
  let base = node.plugins.relay!;
  const invite = (await (await fetch(`${base}/invite`)).json()) as { from: string };
  const mediator = invite.from;
  const resolver = new TestResolver();
  const alice = new TestAgent(resolver);
  const bob = new TestAgent(resolver);
  t.equal((await alice.send(`${base}/didcomm`, mediator, `${MEDIATION}/mediate-request`, {})).message?.type, `${MEDIATION}/mediate-grant`);
  await alice.send(`${base}/didcomm`, mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: alice.did, action: 'add' }] });

  // forwards packed up front; each inner envelope is told apart by its JWE tag
  const forwards: Array<{ tag: string; packed: string }> = [];
  for (let i = 0; i < 1500; i++) {
    const inner = await bob.pack(bob.message('https://example.org/n', { i }), alice.did, { anon: true });
    forwards.push({ tag: (JSON.parse(inner) as { tag: string }).tag, packed: await bob.forward(mediator, alice.did, inner) });
  }
  const accepted = new Set<string>();
  const received = new Map<string, number>();
  const acknowledged = new Set<string>();
  const redeliveredAfterAck: string[] = [];
  let next = 0;
  let restarting: Promise<void> | null = null;

  const sender = async () => {
    while (next < forwards.length) {
      await restarting;
      const f = forwards[next++]!;
      try {
        const res = await bob.post(`${base}/didcomm`, f.packed);
        if (res.status === 202) accepted.add(f.tag);
      } catch {
        // the connection died with the process: not accepted, so nothing is owed
      }
    }
  };
  // A forward stored just before a kill may be delivered without its 202 ever arriving, so
  // `received` can hold tags that `accepted` lacks: compare by tag, never by count.
  const undelivered = () => [...accepted].filter((tag) => !received.has(tag));
  let sending = true;
  let deadline = Infinity;
  const picker = async () => {
    while ((sending || undelivered().length > 0) && Date.now() < deadline) {
      await restarting;
      try {
        const reply = await alice.send(`${base}/didcomm`, mediator, `${PICKUP}/delivery-request`, { limit: 100 });
        const atts = (reply.message?.attachments ?? []) as Array<{ id: string; data: { json: { tag: string } } }>;
        for (const a of atts) {
          if (acknowledged.has(a.id)) redeliveredAfterAck.push(a.id);
          received.set(a.data.json.tag, (received.get(a.data.json.tag) ?? 0) + 1);
        }
        if (atts.length > 0) {
          const ack = await alice.send(`${base}/didcomm`, mediator, `${PICKUP}/messages-received`, { message_id_list: atts.map((a) => a.id) });
          if (ack.status === 200) for (const a of atts) acknowledged.add(a.id);
        }
        if (atts.length === 0) await new Promise((r) => setTimeout(r, 100));
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const senders = Array.from({ length: 8 }, sender);
  const picking = picker();
  for (let k = 0; k < KILLS; k++) {
    await new Promise((r) => setTimeout(r, 700 + 300 * k));
    let release!: () => void;
    await node.kill9();
    restarting = new Promise<void>((r) => (release = r));
    node = await startNodeProcess(t, dir, { plugins: { relay: 0 }, logLevel: 'warn' });
    base = node.plugins.relay!;
    release();
    restarting = null;
  }
  await Promise.all(senders);
  deadline = Date.now() + 60_000;
  sending = false;
  await picking;
  t.ok(accepted.size > 500, `${accepted.size} forwards accepted across ${KILLS} kills`);
  t.same(undelivered(), [], 'every accepted forward was delivered');
  t.comment(`${[...received.keys()].filter((tag) => !accepted.has(tag)).length} stored forwards lost their 202 to a kill`);
  t.same(redeliveredAfterAck, [], 'nothing acknowledged was delivered again');
  await node.stop();
});
