import t from 'tap';
import { openDatabase } from '../../../../node/state/db.js';
import { didKeyFromSeed } from '../../../../plugins/relay/wire/dids/did-key.js';
import { peerDid2Document } from '../../../../plugins/relay/wire/dids/did-peer.js';
import { ownSecretLookup } from '../../../../plugins/relay/wire/dids/secrets.js';
import { mediatorIdentity } from '../../../../plugins/relay/wire/identity.js';
import { MEDIATION, startRelay } from '../harness.js';

const SEED = Uint8Array.from({ length: 32 }, (_, i) => 100 + i);
const ENDPOINT = 'https://relay.example.com/didcomm';

t.test('one key pair under two DIDs: the did:key and a did:peer:2 with the endpoint', async (t) => {
  const id = mediatorIdentity(SEED);
  const peer = id.peerDid(ENDPOINT);
  t.equal(id.did, didKeyFromSeed(SEED).did);
  t.match(peer, /^did:peer:2\.Ez6LS[^.]+\.Vz6Mk[^.]+\.S[^.]+\.S[^.]+$/);
  const doc = id.documentOf(peer, ENDPOINT)!;
  t.same(doc, peerDid2Document(peer), 'its document is what any did:peer:2 resolver makes of it');
  t.same(
    doc.service.map((s) => s.serviceEndpoint.uri),
    [ENDPOINT, 'wss://relay.example.com/didcomm'],
    'with the HTTP endpoint, then the live WebSocket',
  );
  const keyDoc = id.document(ENDPOINT);
  const jwk = (d: typeof doc, kid: string) => d.verificationMethod.find((m) => m.id === kid)!.publicKeyJwk;
  t.same(jwk(doc, doc.keyAgreement[0]!), jwk(keyDoc, id.keyAgreementKid), 'the same key-agreement key');
  t.same(jwk(doc, doc.authentication[0]!), jwk(keyDoc, keyDoc.authentication[0]!), 'the same signing key');

  t.equal(id.documentOf(id.did, ENDPOINT), keyDoc, 'the did:key document with the services of the endpoint');
  t.equal(id.ownerOf(id.keyAgreementKid), id.did);
  t.equal(id.ownerOf(`${peer}#key-1`), peer, "#key-1 of the did:peer:2 is the relay's");
  const other = id.peerDid('https://elsewhere.example.com/didcomm');
  t.not(other, peer, 'another endpoint is another did:peer:2');
  t.equal(id.ownerOf(`${other}#key-1`), other, 'and still ours: the relay answers under the did:peer:2 of an endpoint it published before');
  t.equal(id.ownerOf(`${peer}#key-2`), undefined, 'the signing key is no recipient');
  t.equal(id.ownerOf(`${mediatorIdentity(new Uint8Array(32).fill(7)).peerDid(ENDPOINT)}#key-1`), undefined, "another key's did:peer:2 is not ours");
  t.equal(id.documentOf('did:peer:2.Ez6LSfoo', ENDPOINT), undefined);

  const secret = ownSecretLookup(id.secrets);
  t.equal(secret(`${peer}#key-1`)?.privateKeyJwk, id.secrets[0]!.privateKeyJwk, '#key-1: the X25519 secret');
  t.equal(secret(`${peer}#key-1`)?.id, `${peer}#key-1`, 'under the id asked for');
  t.equal(secret(`${peer}#key-2`)?.privateKeyJwk, id.secrets[1]!.privateKeyJwk, '#key-2: the Ed25519 secret');
  t.equal(secret(`${peer}#key-3`), null);
  t.equal(secret(`${mediatorIdentity(new Uint8Array(32).fill(7)).peerDid(ENDPOINT)}#key-1`), null, "no secret for another key's DID");
});

t.test('the wire: /invite?did=peer, mediation through the did:peer:2, configured keys win over stored ones', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const first = await startRelay(t, { db });
  const stored = first.mediator;
  t.match(stored, /^did:key:z6Mk/);
  await first.host.stop();

  const relay = await startRelay(t, { db, node: first.node, config: { keys: { ed25519: Buffer.from(SEED).toString('hex') } } });
  const did = didKeyFromSeed(SEED).did;
  t.equal(relay.mediator, did, "configured keys replace the data directory's: the invitation's from is their did:key");
  const inv = (await (await fetch(`${relay.url}/invite?did=peer`)).json()) as { from: string; services: Array<{ serviceEndpoint: { uri: string } }> };
  const peer = inv.from;
  t.equal(peer, mediatorIdentity(SEED).peerDid(relay.didcomm), "?did=peer: from is the did:peer:2 of the same keys and the relay's endpoint");
  t.equal(inv.services[0]!.serviceEndpoint.uri, relay.didcomm);
  t.same(await (await fetch(`${relay.url}/did-document?did=peer`)).json(), peerDid2Document(peer), 'GET /did-document?did=peer is its document');
  const bad = await fetch(`${relay.url}/invite?did=web`);
  t.equal(bad.status, 400);
  t.match(await bad.json(), { code: 'VALIDATION' });

  relay.resolver.add(peerDid2Document(peer));
  const agent = relay.agent();
  const grant = await agent.send(relay.didcomm, peer, `${MEDIATION}/mediate-request`, {});
  t.equal(grant.message?.type, `${MEDIATION}/mediate-grant`, 'mediation requested from the did:peer:2 is granted');
  t.equal(grant.message?.from, peer, 'the reply comes from the DID the agent addressed');
  t.same(grant.message?.body, { routing_did: peer }, 'and routes through it');
  const byKey = await agent.send(relay.didcomm, did, `${MEDIATION}/keylist-query`, {});
  t.equal(byKey.message?.type, `${MEDIATION}/keylist`, 'the did:key reaches the same mediation');
  t.equal(byKey.message?.from, did, 'answered from the did:key');
  const stranger = mediatorIdentity(new Uint8Array(32).fill(7)).peerDid(relay.didcomm);
  relay.resolver.add(peerDid2Document(stranger));
  const refused = await agent.send(relay.didcomm, stranger, `${MEDIATION}/keylist-query`, {});
  t.equal(refused.status, 400);
  t.match(refused.problem, { code: 'NOT_FOR_THIS_MEDIATOR' }, "a did:peer:2 of other keys is not this relay's");
});

t.test("a seed an earlier relay stored in plaintext is sealed at start, and the mediator's DIDs stay", async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const plaintext = db.pluginStore('relay').sublevel<string, Uint8Array>('s', { keyEncoding: 'utf8', valueEncoding: 'view' });
  await plaintext.put('mediator-ed25519-seed', SEED);
  const relay = await startRelay(t, { db });
  t.equal(relay.mediator, didKeyFromSeed(SEED).did, 'the did:key of the stored seed');
  const inv = (await (await fetch(`${relay.url}/invite?did=peer`)).json()) as { from: string };
  t.equal(inv.from, mediatorIdentity(SEED).peerDid(relay.didcomm), 'and its did:peer:2');
  t.same(await plaintext.keys().all(), [], 'the plaintext row is gone: the seed is sealed');
});
