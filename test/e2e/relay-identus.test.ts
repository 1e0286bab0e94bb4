import { performance } from 'node:perf_hooks';
import t from 'tap';
import { startNodeProcess, tempDataDir } from './harness.js';
import { TestAgent, TestResolver } from '../plugins/relay/didcomm-client.js';
import { BASIC_MESSAGE, PICKUP, bodyOf, readInvitation, socketErrors, startIdentusAgent, type IdentusAgent } from './identus/agent.js';
import { resolvePeer2 } from './identus/did-peer2.js';
import { didKeyDocumentProblems, type JsonDidDocument } from './identus/relay-did-key.js';

/**
 * The relay as the mediator of Hyperledger Identus SDK 7 agents (the SDK itself, in this
 * process, against a real node with the relay): mediation and keylist-update as the SDK does
 * them, a BasicMessage forwarded and picked up (Pickup 3.0) and acknowledged, live mode over the
 * WebSocket of the relay's DID document, and messages between an Identus agent and a
 * didcomm-node agent (the relay tests' own) both ways.
 */

const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';

async function metric(rpcUrl: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${rpcUrl}/metrics`)).text();
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

t.test('Identus SDK agents mediated by the relay', async (t) => {
  const started = performance.now();
  const dir = await tempDataDir(t);
  const node = await startNodeProcess(t, dir, { plugins: { relay: 0 }, logLevel: 'warn' });
  const base = node.plugins.relay!;
  t.ok(base, 'the relay is running');
  const relay = await readInvitation(base);
  const mediator = relay.mediatorDid;
  t.match(mediator, /^did:key:z6Mk/, "the invitation's from is the relay's did:key");
  t.equal(relay.didDocumentUrl, `${base}/did-document`, 'the DID document is next to the endpoint of the invitation');

  const doc = (await (await fetch(relay.didDocumentUrl)).json()) as JsonDidDocument;
  t.same(didKeyDocumentProblems(mediator, doc), [], "GET /did-document is the did:key document of the invitation's from");
  t.same(
    (doc.service ?? []).map((s) => [s.type, typeof s.serviceEndpoint === 'string' ? s.serviceEndpoint : s.serviceEndpoint.uri]),
    [
      ['DIDCommMessaging', relay.endpoint],
      ['DIDCommMessaging', relay.endpoint.replace(/^http/, 'ws')],
    ],
    'its services: the POST endpoint first, then the live WebSocket',
  );

  const agents: IdentusAgent[] = [];
  const start = async (...args: Parameters<typeof startIdentusAgent>) => {
    const a = await startIdentusAgent(...args);
    agents.push(a);
    return a;
  };
  let alice: IdentusAgent | undefined;
  let bob: IdentusAgent | undefined;

  try {
    await t.test('mediation: mediate-request → grant, then keylist-update of a new peer DID', async (t) => {
      alice = await start({ name: 'alice', relay, pollMs: 200 });
      bob = await start({ name: 'bob', relay, pollMs: 200 });
      for (const a of [alice, bob]) {
        const m = a.agent.connections.mediator!;
        t.equal(m.state, 4, `${a.name}: the mediation is granted`);
        t.equal(m.asMediator().mediatorDID.toString(), mediator, `${a.name}: the mediator is the invitation's DID`);
        t.equal(m.asMediator().routingDID.toString(), mediator, `${a.name}: the grant's routing_did is the relay's DID`);
        t.ok(a.resolver!.fetches >= 1, `${a.name}: the relay's DID was resolved through GET /did-document`);
        t.same(a.resolver!.errors, [], `${a.name}: the did:key resolver had no error`);
        t.match(a.did.toString(), /^did:peer:2\.Ez6LS[^.]+\.Vz6Mk[^.]+\.S[^.]+$/, `${a.name}: a did:peer:2 with a service`);
        t.same(
          resolvePeer2(a.did.toString()).service.map((s) => (s.serviceEndpoint as { uri: string }).uri),
          [mediator],
          `${a.name}: the peer DID's service endpoint is the relay's DID`,
        );
        const keylist = await a.askRelay(`${MEDIATION}/keylist-query`, {});
        t.equal(keylist?.piuri, `${MEDIATION}/keylist`, `${a.name}: keylist-query is answered with a keylist`);
        t.same(
          ((bodyOf(keylist!).keys ?? []) as Array<{ recipient_did: string }>).map((k) => k.recipient_did),
          [a.did.toString()],
          `${a.name}: the relay's keylist holds the DID the SDK registered (keylist-update from the host DID)`,
        );
      }
      t.not(alice.hostDid.toString(), bob.hostDid.toString(), 'two mediations');
    });
    if (!alice || !bob) return;
    const [A, B] = [alice, bob];

    await t.test('polling: Bob → Alice through a forward, picked up and acknowledged', async (t) => {
      const sent = await B.send(A.did, 'hello Alice (pickup)');
      const arrival = await A.next((m) => m.id === sent.id, 10_000);
      const got = arrival.message;
      t.equal(got.piuri, BASIC_MESSAGE);
      t.same(bodyOf(got), { content: 'hello Alice (pickup)' }, 'the body is intact');
      t.equal(got.from?.toString(), B.did.toString(), "from is Bob's peer DID");
      t.equal(got.to?.toString(), A.did.toString(), "to is Alice's peer DID");

      // the loop's round that received it also sent messages-received: stop polling, then ask again
      await A.pausePolling();
      for (let i = 1; i <= 2; i++) {
        const again = await A.pickupOnce(10);
        t.equal(again?.piuri, `${PICKUP}/status`, `pickup ${i} after the acknowledgement: a status, not a delivery`);
        t.equal(bodyOf(again!).message_count, 0, `pickup ${i}: nothing is queued for Alice`);
      }
      t.equal(A.arrivals.filter((a) => a.message.id === sent.id).length, 1, 'Alice got the message once');
      t.same(A.errors, [], 'no pickup failed');
      t.same([...A.httpFailures, ...B.httpFailures], [], 'no HTTP request failed');
    });

    await t.test('live mode: the relay pushes a message over the WebSocket, no polling', async (t) => {
      // as the SDK always does it: live-delivery-change goes out on the socket during start(), and
      // the keylist-update of the new peer DID comes after it
      const live = await start({ name: 'alice-live', relay, liveMode: true });
      t.equal(await metric(node.url, 'ledger_relay_live_connections'), 1, 'the relay counts one live connection');
      // live-delivery-change went out on the socket when it opened; its status comes back as a frame
      const deadline = Date.now() + 2000;
      while (live.frames === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      t.ok(live.frames >= 1, 'the relay answered live-delivery-change on the socket');
      const status = await live.agent.mercury.unpackMessage(live.frameTexts[0]!);
      t.equal(status.piuri, `${PICKUP}/status`, 'with a status');
      t.equal(bodyOf(status).live_delivery, true, 'that says live delivery is on');

      const posts = live.posts;
      const frames = live.frames;
      const sent = await B.send(live.did, 'hello Alice (live)');
      let arrival;
      try {
        // how it came, pushed or picked up, is what the checks below tell; next()'s deadline only ends the wait
        arrival = await live.next((m) => m.id === sent.id);
      } catch (err) {
        t.fail(`the message never came on the live socket: ${(err as Error).message}`);
        const queued = await live.askRelay(`${PICKUP}/status-request`, {});
        t.comment(`the relay holds it (status-request over HTTP: ${JSON.stringify(queued && bodyOf(queued))}) but did not push it on the live socket`);
        return;
      }
      t.same(bodyOf(arrival.message), { content: 'hello Alice (live)' });
      t.equal(arrival.message.from?.toString(), B.did.toString());
      t.ok(arrival.framesBefore > frames, 'it came in a frame on the live socket');
      // the SDK acknowledges a delivery (messages-received, over HTTP) before it emits the message:
      // the only POST by then is that acknowledgement, after the frame; no delivery-request was sent
      const pushedAt = live.frameTimes[frames]!;
      t.equal(arrival.postsBefore, posts + 1, 'Alice made one HTTP request before the message was emitted: its acknowledgement');
      t.ok(
        live.postTimes.slice(posts).every((at) => at > pushedAt),
        'and it followed the frame: the delivery was pushed, not picked up',
      );
      const again = await live.pickupOnce(10);
      t.equal(again?.piuri, `${PICKUP}/status`, 'a pickup afterwards gets a status');
      t.equal(bodyOf(again!).message_count, 0, 'nothing is queued for the live agent');
      t.equal(live.socketClose, undefined, 'the socket is still open');
      t.same(socketErrors, [], 'no socket error');
      t.same(live.httpFailures, [], 'no HTTP request failed');
    });

    await t.test('across stacks: a didcomm-node agent and an Identus agent, both ways', async (t) => {
      const resolver = new TestResolver();
      const carol = new TestAgent(resolver, { serviceUri: mediator });
      // the didcomm-node resolver learns Alice's DID from the DID itself (did:peer:2 decoded here);
      // it must be the same document the SDK's Castor makes of it
      const aliceDoc = resolvePeer2(A.did.toString());
      resolver.add(aliceDoc);
      const castorDoc = await A.agent.castor.resolveDID(A.did.toString());
      const castorKeys = castorDoc.verificationMethods.map((m) => [m.id, m.publicKeyJwk?.crv, m.publicKeyJwk?.x]).sort();
      const ourKeys = aliceDoc.verificationMethod.map((m) => [m.id, (m.publicKeyJwk as { crv: string }).crv, (m.publicKeyJwk as { x: string }).x]).sort();
      t.same(ourKeys, castorKeys, "the didcomm-node agent and Castor agree on the keys of Alice's DID");

      const grant = await carol.send(relay.endpoint, mediator, `${MEDIATION}/mediate-request`, {});
      t.equal(grant.message?.type, `${MEDIATION}/mediate-grant`, 'carol (didcomm-node) is granted mediation');
      const update = await carol.send(relay.endpoint, mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: carol.did, action: 'add' }] });
      t.equal(update.status, 200, 'and registers her DID');

      // didcomm-node → Identus: authcrypted to Alice's peer DID, in an anoncrypted forward to the relay
      const note = carol.message(BASIC_MESSAGE, { content: 'hello Alice, from didcomm-node' }, { lang: 'en' });
      const inner = await carol.pack(note, A.did.toString());
      const posted = await carol.post(relay.endpoint, await carol.forward(mediator, A.did.toString(), inner));
      t.equal(posted.status, 202, 'the relay accepts the forward');
      await A.pollOnce(); // Alice's polling loop was paused above: one pickup, handled by the SDK
      const fromCarol = await A.next((m) => m.id === note.id, 5000);
      t.equal(fromCarol.message.piuri, BASIC_MESSAGE, 'the Identus agent receives it');
      t.same(bodyOf(fromCarol.message), { content: 'hello Alice, from didcomm-node' });
      t.equal(fromCarol.message.from?.toString(), carol.did, "from is carol's DID (authcrypt verified by the SDK)");
      const after = await A.pickupOnce(10);
      t.equal(bodyOf(after!).message_count, 0, 'and acknowledges it');

      // Identus → didcomm-node: the SDK resolves carol's did:peer:2, whose service is the relay's DID
      const sent = await A.send(carol.did, 'hello carol, from Identus');
      const delivery = await carol.send(relay.endpoint, mediator, `${PICKUP}/delivery-request`, { limit: 10 });
      t.equal(delivery.message?.type, `${PICKUP}/delivery`, 'carol picks up a delivery');
      const atts = (delivery.message?.attachments ?? []) as Array<{ id: string; data: { json?: unknown; base64?: string } }>;
      t.equal(atts.length, 1, 'with one message');
      const envelope = atts[0]!.data.json !== undefined ? JSON.stringify(atts[0]!.data.json) : Buffer.from(atts[0]!.data.base64 ?? '', 'base64').toString('utf8');
      const unpacked = await carol.unpack(envelope);
      t.equal(unpacked.id, sent.id, "the Identus agent's message");
      t.equal(unpacked.type, BASIC_MESSAGE);
      t.same(unpacked.body, { content: 'hello carol, from Identus' });
      t.equal(unpacked.from, A.did.toString(), "from is Alice's peer DID (authcrypt verified by didcomm-node)");
      const ack = await carol.send(relay.endpoint, mediator, `${PICKUP}/messages-received`, { message_id_list: atts.map((a) => a.id) });
      t.equal(ack.message?.type, `${PICKUP}/status`);
      t.equal((ack.message?.body as { message_count?: number }).message_count, 0, "carol's queue is empty after her acknowledgement");
    });
  } finally {
    for (const a of agents) await a.stop().catch((err: unknown) => t.comment(`${a.name} stop: ${(err as Error).message}`));
  }
  const stopped = await node.stop();
  t.equal(stopped, 0, 'the node stops cleanly');
  t.comment(`took ${Math.round(performance.now() - started)} ms`);
});
