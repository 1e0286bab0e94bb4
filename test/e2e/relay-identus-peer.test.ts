import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { postgresMissing, startPostgres } from '../../bench/lib/servers/postgres.js';
import { didKeyFromSeed } from '../../plugins/relay/wire/dids/did-key.js';
import { mediatorKeysFileText } from '../../plugins/relay/wire/dids/mediator-keys.js';
import { startNodeProcess, tempDataDir, type NodeProcess } from './harness.js';
import { BASIC_MESSAGE, bodyOf, readInvitation, startIdentusAgent, type IdentusAgent, type RelayInvitation } from './identus/agent.js';
import { resolvePeer2 } from './identus/did-peer2.js';

/**
 * The relay's published did:peer:2 (docs/relay.md, "The mediator's identity"): Hyperledger Identus
 * agents with the SDK's own resolvers only get mediation through it and receive a forwarded
 * message, polling and in live mode; the relay's keys come from a keys file, so a node started on an empty data directory
 * with the same configuration has the same DIDs. Its LevelDB records went with the old data
 * directory: the agent mediates again with the DID it knows, without a new invitation. With
 * the records in Postgres, the mediation and a queued message survive the move as well. Keys
 * configured on a data directory that holds others win, with a warning that names both DIDs.
 */

const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A relay "host": its keys file, service-key secret and configuration; each start() is a node on
 * an empty data directory. The secret moves with the host: the seed a relay keeps in Postgres is
 * sealed under it.
 */
async function relayHost(t: Test, env: NodeJS.ProcessEnv = {}) {
  const configDir = await tempDataDir(t);
  const seed = randomBytes(32);
  const keysFile = join(configDir, 'relay-keys.json');
  await writeFile(keysFile, mediatorKeysFileText(seed), { mode: 0o600 });
  const serviceKeySecretFile = join(configDir, 'service-keys.secret');
  await writeFile(serviceKeySecretFile, randomBytes(32).toString('base64url'), { mode: 0o600 });
  const configFile = join(configDir, 'config.json');
  await writeFile(configFile, JSON.stringify({ serviceKeySecretFile, plugins: { relay: { keysFile } } }));
  // the same port on every start: the did:peer:2 carries the endpoint, as publicUrl would in production
  const port = await freePort();
  const start = async (): Promise<NodeProcess> => startNodeProcess(t, await tempDataDir(t), { plugins: { relay: port }, logLevel: 'warn', env: { LEDGER_CONFIG: configFile, ...env } });
  const agents: IdentusAgent[] = [];
  const startAgent = async (name: string, relay: RelayInvitation, liveMode = false) => {
    const a = await startIdentusAgent({ name, relay, stockResolvers: true, ...(liveMode ? { liveMode } : { pollMs: 200 }) });
    agents.push(a);
    return a;
  };
  /** stops `which` (default: every agent still running) */
  const stopAgents = async (which: IdentusAgent[] = [...agents]) => {
    for (const a of which) {
      agents.splice(agents.indexOf(a), 1);
      await a.stop().catch((err: unknown) => t.comment(`${a.name} stop: ${(err as Error).message}`));
    }
  };
  return { seed, start, startAgent, stopAgents };
}

t.test('stock Identus agents mediated through the relay did:peer:2, across a move to an empty data directory', async (t) => {
  const { seed, start, startAgent: startOn, stopAgents } = await relayHost(t);

  let node = await start();
  const base = node.plugins.relay!;
  const keyInvitation = await readInvitation(base);
  t.equal(keyInvitation.mediatorDid, didKeyFromSeed(seed).did, "the did:key invitation's from is the did:key of the configured keys");
  const relay = await readInvitation(base, 'peer');
  const peer = relay.mediatorDid;
  t.match(peer, /^did:peer:2\.Ez6LS[^.]+\.Vz6Mk[^.]+\.S[^.]+\.S[^.]+$/, 'GET /invite?did=peer: from is a did:peer:2 with services');
  t.same(
    resolvePeer2(peer).service.map((s) => (s.serviceEndpoint as { uri: string }).uri),
    [relay.endpoint, relay.endpoint.replace(/^http/, 'ws')],
    "its services are the relay's endpoint and its live WebSocket",
  );
  const keyDoc = (await (await fetch(`${base}/did-document`)).json()) as { keyAgreement: string[]; verificationMethod: Array<{ id: string; publicKeyJwk: { x: string } }> };
  const peerDoc = resolvePeer2(peer);
  const x = (doc: { keyAgreement: string[]; verificationMethod: Array<{ id: string; publicKeyJwk?: unknown }> }) => (doc.verificationMethod.find((m) => m.id === doc.keyAgreement[0])!.publicKeyJwk as { x: string }).x;
  t.equal(x(peerDoc), x(keyDoc), 'both DIDs have the same key-agreement key');

  const startAgent = (name: string, liveMode = false) => startOn(name, relay, liveMode);
  try {
    const alice = await startAgent('alice');
    const bob = await startAgent('bob');
    for (const a of [alice, bob]) {
      t.equal(a.resolver, undefined, `${a.name}: Castor has only the SDK's own resolvers`);
      const m = a.agent.connections.mediator!.asMediator();
      t.equal(m.mediatorDID.toString(), peer, `${a.name}: mediated by the relay's did:peer:2`);
      t.equal(m.routingDID.toString(), peer, `${a.name}: the grant's routing_did is the DID the agent addressed`);
      t.same(
        resolvePeer2(a.did.toString()).service.map((s) => (s.serviceEndpoint as { uri: string }).uri),
        [peer],
        `${a.name}: its peer DID's service endpoint is the relay's did:peer:2`,
      );
    }

    const sent = await bob.send(alice.did, 'hello Alice, through the did:peer:2');
    const arrival = await alice.next((m) => m.id === sent.id);
    t.equal(arrival.message.piuri, BASIC_MESSAGE, 'Alice receives the forwarded message');
    t.same(bodyOf(arrival.message), { content: 'hello Alice, through the did:peer:2' });
    t.equal(arrival.message.from?.toString(), bob.did.toString(), "from is Bob's peer DID");
    t.same([...alice.httpFailures, ...bob.httpFailures], [], 'no HTTP request failed');

    // live mode: the WebSocket is the did:peer:2's second service; pushes come from the did:peer:2
    const carol = await startAgent('carol', true);
    const frames = carol.frames;
    const pushed = await bob.send(carol.did, 'hello Carol, live');
    const live = await carol.next((m) => m.id === pushed.id);
    t.same(bodyOf(live.message), { content: 'hello Carol, live' }, 'a live agent receives the forwarded message');
    t.ok(live.framesBefore > frames, 'in a frame on the live socket');
    const protectedHeader = (frame: string) => JSON.parse(Buffer.from((JSON.parse(frame) as { protected: string }).protected, 'base64url').toString('utf8')) as { skid?: string };
    t.equal(protectedHeader(carol.frameTexts[frames]!).skid, `${peer}#key-1`, 'authcrypted from the did:peer:2 the agent addressed');
    t.same(carol.httpFailures, [], 'no HTTP request of the live agent failed');
    await stopAgents([carol]);
    await alice.pausePolling();
    await bob.pausePolling();

    // the same configuration on another host: an empty data directory, the keys from the file
    t.equal(await node.stop(), 0, 'the first node stops cleanly');
    node = await start();
    t.equal((await readInvitation(node.plugins.relay!)).mediatorDid, keyInvitation.mediatorDid, 'the new node has the same did:key');
    t.equal((await readInvitation(node.plugins.relay!, 'peer')).mediatorDid, peer, 'and the same did:peer:2');

    for (const a of [alice, bob]) {
      // the SDK rejects a non-2xx answer; the relay's 403 carries an encrypted problem report
      const refused = await a.askRelay(`${MEDIATION}/keylist-query`, {}).then(
        () => undefined,
        (err: unknown) => err as { status?: number },
      );
      t.equal(refused?.status, 403, `${a.name}: the relay answers under the same DID, but the mediation was in the old data directory`);
      const failed = a.httpFailures.length;
      const grant = await a.askRelay(`${MEDIATION}/mediate-request`, {});
      t.equal(grant?.piuri, `${MEDIATION}/mediate-grant`, `${a.name}: mediate-request to the DID it knows, no new invitation, is granted`);
      t.equal(bodyOf(grant!).routing_did, peer, `${a.name}: with the same routing_did, so its peer DID stays valid`);
      const update = await a.askRelay(`${MEDIATION}/keylist-update`, { updates: [{ recipient_did: a.did.toString(), action: 'add' }] });
      t.equal(update?.piuri, `${MEDIATION}/keylist-update-response`, `${a.name}: registers its peer DID again`);
      t.same(a.httpFailures.slice(failed), [], `${a.name}: no HTTP request failed after the refusal`);
    }
    const again = await bob.send(alice.did, 'hello Alice, on the new host');
    await alice.pollOnce();
    const moved = await alice.next((m) => m.id === again.id);
    t.same(bodyOf(moved.message), { content: 'hello Alice, on the new host' }, 'Alice receives a message forwarded by the new node, with the peer DID she had');
    t.equal(alice.httpFailures.length + bob.httpFailures.length, 2, 'the only failed HTTP requests were the two refused keylist-queries');
  } finally {
    await stopAgents();
  }
  t.equal(await node.stop(), 0, 'the node stops cleanly');
});

t.test('with Postgres, a mediation and a queued message survive the move to an empty data directory', { skip: postgresMissing() }, async (t) => {
  const postgres = await startPostgres();
  t.teardown(() => postgres.stop());
  const { start, startAgent, stopAgents } = await relayHost(t, { LEDGER_RELAY_POSTGRES_URL: postgres.url });
  let node = await start();
  const relay = await readInvitation(node.plugins.relay!, 'peer');
  try {
    const alice = await startAgent('alice', relay);
    const bob = await startAgent('bob', relay);
    await alice.pausePolling();
    await bob.pausePolling();
    const queued = await bob.send(alice.did, 'queued on the old host');

    t.equal(await node.stop(), 0, 'the old host stops cleanly');
    node = await start();
    t.equal((await readInvitation(node.plugins.relay!, 'peer')).mediatorDid, relay.mediatorDid, 'the new host has the same did:peer:2');
    const after = await bob.send(alice.did, 'sent to the new host');
    await alice.pollOnce();
    for (const [sent, content] of [[queued, 'queued on the old host'], [after, 'sent to the new host']] as const) {
      const arrival = await alice.next((m) => m.id === sent.id);
      t.same(bodyOf(arrival.message), { content }, `Alice's mediation still works, no new mediate-request: "${content}" arrives`);
    }
    const status = await alice.pickupOnce(10);
    t.equal(bodyOf(status!).message_count, 0, 'both acknowledged');
    t.same([...alice.httpFailures, ...bob.httpFailures], [], 'no HTTP request failed');
  } finally {
    await stopAgents();
  }
  t.equal(await node.stop(), 0, 'the node stops cleanly');
});

t.test('keys configured (LEDGER_RELAY_KEYS_FILE) replace the ones in the data directory, and the log says so without the secret', async (t) => {
  const dir = await tempDataDir(t);
  let node = await startNodeProcess(t, dir, { plugins: { relay: 0 }, logLevel: 'info' });
  const before = (await readInvitation(node.plugins.relay!)).mediatorDid;
  t.equal(await node.stop(), 0);

  const seed = randomBytes(32);
  const keysFile = join(dir, 'relay-keys.json');
  await writeFile(keysFile, mediatorKeysFileText(seed), { mode: 0o600 });
  node = await startNodeProcess(t, dir, { plugins: { relay: 0 }, logLevel: 'info', env: { LEDGER_RELAY_KEYS_FILE: keysFile } });
  const after = (await readInvitation(node.plugins.relay!)).mediatorDid;
  t.equal(after, didKeyFromSeed(seed).did, "the configured keys' DID");
  t.not(after, before, 'replaces the one of the data directory');
  const line = node
    .stderr()
    .split('\n')
    .find((l) => l.includes('replaced_did'));
  t.ok(line, 'a log line names the replaced DID');
  t.match(JSON.parse(line ?? '{}'), { level: 40, did: after, replaced_did: before, keys: keysFile }, 'a warning with both DIDs and the keys file');
  const text = node.stderr();
  t.notOk(text.includes(Buffer.from(seed).toString('base64url')) || text.includes(Buffer.from(seed).toString('hex')), 'the secret is nowhere in the log');
  t.equal(await node.stop(), 0);
});
