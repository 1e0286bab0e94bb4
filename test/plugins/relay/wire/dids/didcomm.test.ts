import t from 'tap';
import { randomUUID } from 'node:crypto';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { Message, type IMessage, type Secret } from 'didcomm-node';
import {
  DidResolver,
  didKeyFromSeed,
  encodeMultikey,
  encodePeerDid2,
  okpJwk,
  staticSecretsResolver,
  x25519SecretFromEd25519Seed,
} from '../../../../../plugins/relay/wire/dids/index.js';
import { didDocumentRpc, type DidDocumentRpc } from '../../../../../node/protocol/did-document.js';
import { didForPublicKey } from '../../../../../node/protocol/did.js';

/**
 * Real didcomm-node (the reference DIDComm v2 library, WASM) round trips, with every document
 * coming from our resolver: authcrypt did:peer:2 → did:key (the mediator) and back, Forward
 * wrapping from a service's routingKeys, and a did:ledger recipient.
 */

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** A did:peer:2 agent with fresh keys: `.E` X25519 (#key-1), `.V` Ed25519 (#key-2), one service. */
function peerAgent(service: { uri: string; routingKeys?: string[] }) {
  const xSecret = x25519.utils.randomSecretKey();
  const eSeed = ed25519.utils.randomSecretKey();
  const xPub = x25519.getPublicKey(xSecret);
  const ePub = ed25519.getPublicKey(eSeed);
  const did = encodePeerDid2(
    [
      { purpose: 'E', publicKeyMultibase: encodeMultikey('X25519', xPub) },
      { purpose: 'V', publicKeyMultibase: encodeMultikey('Ed25519', ePub) },
    ],
    [{ type: 'DIDCommMessaging', serviceEndpoint: { uri: service.uri, accept: ['didcomm/v2'], routingKeys: service.routingKeys ?? [] } }],
  );
  const secrets: Secret[] = [
    { id: `${did}#key-1`, type: 'JsonWebKey2020', privateKeyJwk: { ...okpJwk('X25519', xPub), d: b64(xSecret) } },
    { id: `${did}#key-2`, type: 'JsonWebKey2020', privateKeyJwk: { ...okpJwk('Ed25519', ePub), d: b64(eSeed) } },
  ];
  return { did, secrets };
}

function plaintext(from: string, to: string, body: Record<string, unknown>): IMessage {
  return { id: randomUUID(), typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/basicmessage/2.0/message', from, to: [to], body, created_time: 1_700_000_000 };
}

async function pack(msg: IMessage, to: string, from: string | null, signBy: string | null, resolver: DidResolver, secrets: Secret[], options = {}) {
  const m = new Message(msg);
  try {
    return await m.pack_encrypted(to, from, signBy, resolver.didcommResolver(), staticSecretsResolver(secrets), options);
  } finally {
    m.free();
  }
}

async function unpack(packed: string, resolver: DidResolver, secrets: Secret[]) {
  const [m, meta] = await Message.unpack(packed, resolver.didcommResolver(), staticSecretsResolver(secrets), {});
  try {
    return { message: m.as_value(), meta };
  } finally {
    m.free();
  }
}

const mediatorSeed = new Uint8Array(32).fill(42);
const mediator = didKeyFromSeed(mediatorSeed);
const noChain = () => new DidResolver({ ledger: async () => null, network: 'testnet' });

t.test('x25519SecretFromEd25519Seed is the secret of the did:key keyAgreement key', async (t) => {
  t.same(mediator.secrets[0]!.privateKeyJwk.d, b64(x25519SecretFromEd25519Seed(mediatorSeed)));
  t.same(b64(x25519.getPublicKey(x25519SecretFromEd25519Seed(mediatorSeed))), b64(mediator.x25519PublicKey));
});

t.test('authcrypt from a did:peer:2 sender to the did:key mediator, unpacked with our resolver', async (t) => {
  const alice = peerAgent({ uri: 'https://alice.example/didcomm' });
  const [packed, packMeta] = await pack(plaintext(alice.did, mediator.did, { hello: 'mediator' }), mediator.did, alice.did, null, noChain(), alice.secrets);
  t.equal(packMeta.from_kid, `${alice.did}#key-1`);
  t.same(packMeta.to_kids, [mediator.keyAgreementKeyId]);
  t.match(JSON.parse(Buffer.from(JSON.parse(packed).protected, 'base64url').toString()), { alg: 'ECDH-1PU+A256KW', skid: `${alice.did}#key-1` });

  const resolver = noChain();
  const { message, meta } = await unpack(packed, resolver, mediator.secrets);
  t.match(message, { from: alice.did, to: [mediator.did], body: { hello: 'mediator' } });
  t.match(meta, { encrypted: true, authenticated: true, anonymous_sender: false, encrypted_from_kid: `${alice.did}#key-1`, encrypted_to_kids: [mediator.keyAgreementKeyId] });
  t.match(resolver.stats(), { staticEntries: 1, misses: 1 }, "unpack resolves only the sender's DID (the recipient key comes from the secrets)");
});

t.test('the reverse: the mediator authcrypts and signs to the did:peer:2 agent', async (t) => {
  const alice = peerAgent({ uri: 'https://alice.example/didcomm' });
  const [packed, packMeta] = await pack(plaintext(mediator.did, alice.did, { hello: 'alice' }), alice.did, mediator.did, mediator.signingKeyId, noChain(), mediator.secrets);
  t.equal(packMeta.from_kid, mediator.keyAgreementKeyId);
  t.equal(packMeta.sign_by_kid, mediator.signingKeyId);
  t.same(packMeta.to_kids, [`${alice.did}#key-1`]);
  t.notOk(packMeta.messaging_service, 'no routing keys: no Forward');

  const { message, meta } = await unpack(packed, noChain(), alice.secrets);
  t.match(message, { from: mediator.did, body: { hello: 'alice' } });
  t.match(meta, { authenticated: true, non_repudiation: true, sign_from: mediator.signingKeyId, encrypted_from_kid: mediator.keyAgreementKeyId });

  await t.rejects(unpack(packed, noChain(), mediator.secrets), 'not for the mediator: it cannot open it');
});

t.test("a recipient's routingKeys make the sender wrap a Forward that the mediator opens", async (t) => {
  const bob = peerAgent({ uri: 'https://relay.example/didcomm', routingKeys: [mediator.keyAgreementKeyId] });
  const alice = peerAgent({ uri: 'https://alice.example/didcomm' });
  const [packed, packMeta] = await pack(plaintext(alice.did, bob.did, { to: 'bob' }), bob.did, alice.did, null, noChain(), alice.secrets);
  t.same(packMeta.messaging_service, { id: `${bob.did}#service`, service_endpoint: 'https://relay.example/didcomm' });

  const atMediator = await unpack(packed, noChain(), mediator.secrets);
  t.match(atMediator.message, { type: 'https://didcomm.org/routing/2.0/forward', body: { next: bob.did } });
  t.match(atMediator.meta, { encrypted: true, anonymous_sender: true, encrypted_to_kids: [mediator.keyAgreementKeyId] });
  const inner = JSON.stringify((atMediator.message.attachments![0]!.data as { json: unknown }).json);
  const atBob = await unpack(inner, noChain(), bob.secrets);
  t.match(atBob.message, { from: alice.did, body: { to: 'bob' } });
  t.match(atBob.meta, { authenticated: true, encrypted_from_kid: `${alice.did}#key-1` });
});

t.test('a did:ledger recipient: its key agreement key is derived from the on-chain Ed25519 key', async (t) => {
  const seed = new Uint8Array(32).fill(5);
  const publicKey = ed25519.getPublicKey(seed);
  const did = didForPublicKey('testnet', publicKey);
  const rpc: DidDocumentRpc = didDocumentRpc({ did, publicKey, service: [{ id: '#relay', type: 'DIDCommMessaging', serviceEndpoint: 'https://relay.example/didcomm' }], active: true, createdMs: 1, updatedMs: 1, versionId: 1, txHash: new Uint8Array(32) });
  const resolver = new DidResolver({ ledger: async (d) => (d === did ? rpc : null), network: 'testnet' });
  const holderSecrets: Secret[] = [
    { id: `${did}#key-x25519-1`, type: 'JsonWebKey2020', privateKeyJwk: { ...okpJwk('X25519', x25519.getPublicKey(x25519SecretFromEd25519Seed(seed))), d: b64(x25519SecretFromEd25519Seed(seed)) } },
  ];
  const [packed, packMeta] = await pack(plaintext(mediator.did, did, { n: 1 }), did, mediator.did, null, resolver, mediator.secrets);
  t.same(packMeta.to_kids, [`${did}#key-x25519-1`]);
  const { message, meta } = await unpack(packed, resolver, holderSecrets);
  t.match(message, { body: { n: 1 } });
  t.match(meta, { authenticated: true, encrypted_from_kid: mediator.keyAgreementKeyId });
  t.equal(resolver.stats().ledgerReads, 1, 'one chain read for pack and unpack together');
});

t.test('a malformed sender key id: the resolver answers didcomm-node null and reports why, never throws', async (t) => {
  const alice = peerAgent({ uri: 'https://alice.example/didcomm' });
  const [packed] = await pack(plaintext(alice.did, mediator.did, {}), mediator.did, alice.did, null, noChain(), alice.secrets);
  // the skid is swapped for a malformed did:peer:2 key id
  const failures: string[] = [];
  const strict = new DidResolver({ ledger: async () => null, network: 'testnet', onFailure: (_d, r) => failures.push(r.code) });
  const tampered = packed.replace(/"protected":"([^"]+)"/, (_m, p: string) => {
    const h = JSON.parse(Buffer.from(p, 'base64url').toString());
    h.skid = `did:peer:2.Ez6LS0OIl#key-1`;
    h.apu = Buffer.from(h.skid).toString('base64url');
    return `"protected":"${Buffer.from(JSON.stringify(h)).toString('base64url')}"`;
  });
  await t.rejects(unpack(tampered, strict, mediator.secrets));
  t.same(failures, ['DID_INVALID'], 'the resolver reported why, and answered null');
});
