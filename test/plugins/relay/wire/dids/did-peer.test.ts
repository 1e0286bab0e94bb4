import t from 'tap';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import {
  DidResolver,
  PeerDid4Store,
  didKeyDocument,
  encodeMultikey,
  encodePeerDid2,
  encodePeerDid4,
  peerDid2Document,
  peerDid4Document,
  peerDidDocument,
  type DidcommDidDoc,
} from '../../../../../plugins/relay/wire/dids/index.js';
import { decodeMultikey } from '../../../../../plugins/relay/wire/dids/document.js';
import { loadVectors } from '../../../../fixtures/vectors.js';
import { errorCode } from './error-code.js';

/** did-key.json's did_peer_2 (peer-did-method-spec core.md, "Example Peer DID 2"); did-peer-4.json (the spec's Method 4 example). */
const P2 = loadVectors('did-key.json').did_peer_2;
const P4 = loadVectors('did-peer-4.json');

const code = errorCode;
/** the multikey of a method of the document, to compare with publicKeyMultibase */
const multikeyOf = (doc: DidcommDidDoc, id: string) => {
  const vm = doc.verificationMethod.find((m) => m.id === id);
  return vm ? encodeMultikey(vm.publicKeyJwk.crv, Uint8Array.from(Buffer.from(vm.publicKeyJwk.x, 'base64url'))) : undefined;
};
const services = (doc: DidcommDidDoc) => doc.service.map((s) => ({ id: s.id, type: s.type, serviceEndpoint: { uri: s.serviceEndpoint.uri, accept: s.serviceEndpoint.accept, routingKeys: s.serviceEndpoint.routingKeys } }));
const resolver = () => new DidResolver({ ledger: async () => null, network: 'testnet' });

t.test('did:peer:2: the spec example resolves to the published document (keys, relationships, services)', async (t) => {
  const did: string = P2.did;
  const published = P2.resolvedDidDocument;
  const abs = (ref: string) => `${did}${ref}`;
  const doc = peerDid2Document(did);
  t.equal(doc.id, did);
  t.same(doc.authentication, published.authentication.map(abs), 'authentication: #key-1');
  t.same(doc.keyAgreement, published.keyAgreement.map(abs), 'keyAgreement: #key-2');
  for (const vm of published.verificationMethod) {
    t.equal(multikeyOf(doc, abs(vm.id)), vm.publicKeyMultibase, `${vm.id} carries the published key`);
    t.equal(doc.verificationMethod.find((m) => m.id === abs(vm.id))?.controller, vm.controller);
  }
  t.same(
    services(doc),
    published.service.map((s: { id: string; type: string; serviceEndpoint: object }) => ({ ...s, id: abs(s.id) })),
    'both services, ids #service and #service-1',
  );
  t.same(doc.service[0]!.serviceEndpoint.routing_keys, doc.service[0]!.serviceEndpoint.routingKeys, 'routing_keys mirrors routingKeys');
  const rebuilt = encodePeerDid2(
    P2.inputs.keys.map((k: { purposeCode: 'V' | 'E'; publicKeyMultibase: string }) => ({ purpose: k.purposeCode, publicKeyMultibase: k.publicKeyMultibase })),
    P2.inputs.services,
  );
  t.equal(rebuilt, did, 'encodePeerDid2 rebuilds the example byte for byte');
  t.same(await resolver().resolve(did), doc, 'the resolver gives the same document');
});

t.test('did:peer:2: a serviceEndpoint string with r/a beside it (the 2021 form) and several .S elements', async (t) => {
  const x = encodeMultikey('X25519', x25519.getPublicKey(x25519.utils.randomSecretKey()));
  const old = Buffer.from(JSON.stringify({ t: 'dm', s: 'https://example.com/endpoint', r: ['did:example:somemediator#somekey'], a: ['didcomm/v2', 'didcomm/aip2;env=rfc587'] })).toString('base64url');
  const other = Buffer.from(JSON.stringify({ t: 'LinkedDomains', s: 'https://example.com' })).toString('base64url');
  const named = Buffer.from(JSON.stringify({ id: '#mine', t: 'dm', s: { uri: 'https://b.example' } })).toString('base64url');
  const did = `did:peer:2.E${x}.S${old}.S${other}.S${named}`;
  const doc = peerDid2Document(did);
  t.same(services(doc), [
    { id: `${did}#service`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://example.com/endpoint', accept: ['didcomm/v2', 'didcomm/aip2;env=rfc587'], routingKeys: ['did:example:somemediator#somekey'] } },
    { id: `${did}#mine`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://b.example', accept: ['didcomm/v2'], routingKeys: [] } },
  ], 'LinkedDomains is counted (#service-1) but left out; an explicit id is kept; accept defaults to didcomm/v2');
  t.same(doc.keyAgreement, [`${did}#key-1`]);
});

t.test('did:peer:2: the legacy form, one .S holding a JSON list of services (stock Identus agents)', async (t) => {
  // Made by @hyperledger/identus-sdk 7.0.0: castor.createPeerDID([x25519, ed25519], [two DIDCommMessaging services]).
  const did =
    'did:peer:2.Ez6LSi3nNYQxb4rvV3keJfAjFetgrDFkUsEwVuDyLr8fzKmMy.Vz6MkfqaDUDfJzz6W4s1GBkFTNKZLhdTFxyARCs8Qdi1Ebxxo.SW3sidCI6ImRtIiwicyI6eyJ1cmkiOiJodHRwczovL2EuZXhhbXBsZS9kaWRjb21tIiwiciI6W10sImEiOlsiZGlkY29tbS92MiJdfX0seyJ0IjoiZG0iLCJzIjp7InVyaSI6ImRpZDprZXk6ejZNa2lUQnoxeW11ZXBBUTRIRUhZU0YxSDhxdUc1R0xWVlFSM2RqZFgzbURvb1dwIiwiciI6W10sImEiOlsiZGlkY29tbS92MiJdfX1d';
  const doc = await resolver().resolveStrict(did);
  t.same(doc.keyAgreement, [`${did}#key-1`], 'E comes first: #key-1, as Identus numbers it too');
  t.same(doc.authentication, [`${did}#key-2`]);
  t.equal(multikeyOf(doc, `${did}#key-1`), 'z6LSi3nNYQxb4rvV3keJfAjFetgrDFkUsEwVuDyLr8fzKmMy');
  t.equal(multikeyOf(doc, `${did}#key-2`), 'z6MkfqaDUDfJzz6W4s1GBkFTNKZLhdTFxyARCs8Qdi1Ebxxo');
  t.same(services(doc), [
    { id: `${did}#service`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://a.example/didcomm', accept: ['didcomm/v2'], routingKeys: [] } },
    { id: `${did}#service-1`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', accept: ['didcomm/v2'], routingKeys: [] } },
  ]);
});

t.test('did:peer:2: malformed and unsupported', async (t) => {
  const x = encodeMultikey('X25519', x25519.getPublicKey(x25519.utils.randomSecretKey()));
  const e = encodeMultikey('Ed25519', ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
  const svc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  t.equal(code(() => peerDid2Document('did:peer:2')), 'DID_INVALID', 'no elements');
  t.equal(code(() => peerDid2Document(`did:peer:2.Q${x}`)), 'DID_INVALID', 'unknown purpose code');
  t.equal(code(() => peerDid2Document(`did:peer:2.E${x}.S!!!`)), 'DID_INVALID', 'service not base64url');
  t.equal(code(() => peerDid2Document(`did:peer:2.E${x}.S${Buffer.from('not json').toString('base64url')}`)), 'DID_INVALID', 'service not JSON');
  t.equal(code(() => peerDid2Document(`did:peer:2.E${x}.S${svc({ t: 'dm', s: { a: ['didcomm/v2'] } })}`)), 'DID_INVALID', 'DIDCommMessaging without uri');
  t.same(peerDid2Document(`did:peer:2.E${x}.S${svc([])}`).service, [], 'an empty list is no services (Identus writes it)');
  t.equal(code(() => peerDid2Document(`did:peer:2.S${svc({ t: 'dm', s: 'https://a' })}`)), 'DID_UNSUPPORTED', 'no keys at all');
  t.equal(code(() => peerDid2Document(`did:peer:2.E${x}.Ez6LS0OIl`)), 'DID_INVALID', 'a key that is not base58');
  const short = `z${(await import('@scure/base')).base58.encode(Uint8Array.from([0xed, 0x01, ...new Uint8Array(31).fill(7)]))}`;
  t.equal(code(() => peerDid2Document(`did:peer:2.E${x}.V${short}`)), 'DID_INVALID', 'an Ed25519 key of 31 bytes');
  t.equal(code(() => peerDid2Document(`did:peer:2.E${x}${`.V${e}`.repeat(90)}`)), 'DID_TOO_LONG', 'over 4 KB');
  t.equal(code(() => peerDid2Document(`did:peer:2.E${x}${`.V${e}`.repeat(16)}`)), 'DID_INVALID', 'more than 16 keys');
  t.equal(code(() => peerDid2Document(`did:peer:2.E${x}${`.S${svc({ t: 'dm', s: 'https://a' })}`.repeat(17)}`)), 'DID_INVALID', 'more than 16 services');
  t.equal(peerDid2Document(`did:peer:2.E${x}${`.V${e}`.repeat(15)}`).authentication.length, 15, '16 keys are fine');
  // a P-256 key among usable ones is skipped but still numbered
  const p256 = `z${(await import('@scure/base')).base58.encode(Uint8Array.from([0x80, 0x24, ...new Uint8Array(33).fill(2)]))}`;
  const did = `did:peer:2.V${p256}.E${x}`;
  const doc = peerDid2Document(did);
  t.same(doc.keyAgreement, [`${did}#key-2`], 'the X25519 key keeps number 2');
  t.equal(doc.verificationMethod.length, 1);
  t.equal(code(() => peerDid2Document(`did:peer:2.V${p256}`)), 'DID_UNSUPPORTED', 'nothing usable left');
});

t.test('did:peer:0 resolves as did:key under its own DID', async (t) => {
  const key = didKeyDocument('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK');
  const did = 'did:peer:0z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
  const doc = peerDidDocument(did);
  t.equal(doc.id, did);
  t.same(doc.keyAgreement, [`${did}#z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p`]);
  t.same(doc.verificationMethod.map((m) => m.publicKeyJwk), key.verificationMethod.map((m) => m.publicKeyJwk));
  t.equal(code(() => peerDidDocument('did:peer:1zQmZMygzYqNwU6Uhmewx5Xepf2VLp5S4HLSwwgf2aiKZuwa')), 'DID_UNSUPPORTED', 'numalgo 1');
  t.equal(code(() => peerDidDocument('did:peer:3zQmS19jtYDvGtKVrJhQnRFpBQAx3pJ9omx2HpNrcXFuRCz9')), 'DID_UNSUPPORTED', 'numalgo 3');
});

t.test('did:peer:4: the spec example, long form, then its short form', async (t) => {
  const store = new PeerDid4Store(4);
  t.equal(code(() => peerDid4Document(P4.shortForm, store)), 'DID_NOT_FOUND', 'the short form before the long form was seen');
  const long = peerDid4Document(P4.longForm, store);
  t.equal(long.id, P4.longForm);
  for (const [rel, list] of [['keyAgreement', P4.resolved.keyAgreement], ['authentication', P4.resolved.authentication]] as const) {
    t.same(long[rel], list.map((k: { id: string }) => `${P4.longForm}${k.id}`), rel);
    for (const k of list) t.equal(multikeyOf(long, `${P4.longForm}${k.id}`), k.publicKeyMultibase);
  }
  t.same(services(long), P4.resolved.service.map((s: { id: string }) => ({ ...s, id: `${P4.longForm}${s.id}` })));
  t.same(encodePeerDid4(P4.inputDocument), { longForm: P4.longForm, shortForm: P4.shortForm }, 'encodePeerDid4 rebuilds the spec example');

  const short = peerDid4Document(P4.shortForm, store);
  t.equal(short.id, P4.shortForm);
  t.same(short.keyAgreement, [`${P4.shortForm}#6LSqPZfn`]);
  t.same(short.verificationMethod.map((m) => m.publicKeyJwk), long.verificationMethod.map((m) => m.publicKeyJwk));
});

t.test('did:peer:4: built from a document in the test; bad hash; JWK, Multikey and base58 keys', async (t) => {
  const xs = x25519.utils.randomSecretKey();
  const es = ed25519.utils.randomSecretKey();
  const xPub = x25519.getPublicKey(xs);
  const ePub = ed25519.getPublicKey(es);
  const input = {
    '@context': ['https://www.w3.org/ns/did/v1'],
    verificationMethod: [
      { id: '#x', type: 'JsonWebKey2020', publicKeyJwk: { kty: 'OKP', crv: 'X25519', x: Buffer.from(xPub).toString('base64url') } },
      { id: '#p256', type: 'Multikey', publicKeyMultibase: 'zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169' },
    ],
    authentication: [{ id: '#e', type: 'Multikey', publicKeyMultibase: encodeMultikey('Ed25519', ePub) }],
    keyAgreement: ['#x', '#p256'],
    service: [{ id: '#didcomm', type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://peer4.example/didcomm', routingKeys: ['did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW'] } }],
  };
  const { longForm, shortForm } = encodePeerDid4(input);
  t.match(longForm, /^did:peer:4zQm[1-9A-HJ-NP-Za-km-z]+:z[1-9A-HJ-NP-Za-km-z]+$/);
  t.equal(longForm.slice(0, shortForm.length + 1), `${shortForm}:`);

  const r = resolver();
  t.equal(await r.resolve(shortForm), null, 'short form first: unknown');
  const doc = await r.resolveStrict(longForm);
  t.same(doc.keyAgreement, [`${longForm}#x`], 'the P-256 key is skipped, its reference dropped');
  t.same(doc.authentication, [`${longForm}#e`], 'an embedded method');
  t.equal(Buffer.from(doc.verificationMethod.find((m) => m.id === `${longForm}#x`)!.publicKeyJwk.x, 'base64url').toString('hex'), Buffer.from(xPub).toString('hex'));
  t.equal(decodeMultikey(multikeyOf(doc, `${longForm}#e`)!).curve, 'Ed25519');
  t.same(services(doc), [{ id: `${longForm}#didcomm`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://peer4.example/didcomm', accept: ['didcomm/v2'], routingKeys: input.service[0]!.serviceEndpoint.routingKeys } }]);
  const short = await r.resolveStrict(shortForm);
  t.same(short.keyAgreement, [`${shortForm}#x`], 'the short form now resolves (its failure was not cached)');
  t.equal(r.stats().peer4Known, 1);

  // a hash that does not match the document
  const other = encodePeerDid4({ ...input, service: [] });
  const forged = `${other.shortForm}:${longForm.slice(shortForm.length + 1)}`;
  t.equal(code(() => peerDid4Document(forged)), 'DID_INVALID');
  await t.rejects(r.resolveStrict(forged), { code: 'DID_INVALID', message: /hash does not match/ });
  t.equal(await r.resolve(other.shortForm), null, 'a forged long form teaches nothing about the short form');
  // not json multicodec / garbage
  t.equal(code(() => peerDid4Document('did:peer:4zQmd8CpeFPci817KDsbSAKWcXAE2mjvCQSasRewvbSF54Bd:zzzz')), 'DID_INVALID');
  t.equal(code(() => peerDid4Document('did:peer:4zQmd8CpeFPci817KDsbSAKWcXAE2mjvCQSasRewvbSF54Bd')), 'DID_NOT_FOUND', 'no store: short form never resolves');
  // base58 keys of the 2018/2019 suites
  const b58 = encodePeerDid4({
    verificationMethod: [{ id: '#k', type: 'X25519KeyAgreementKey2019', publicKeyBase58: (await import('@scure/base')).base58.encode(xPub) }],
    keyAgreement: ['#k'],
  });
  t.same(peerDid4Document(b58.longForm).keyAgreement, [`${b58.longForm}#k`]);
});

t.test('the short-form store is bounded, least recently used out first', async (t) => {
  const store = new PeerDid4Store(2);
  const make = (n: number) => encodePeerDid4({ verificationMethod: [{ id: '#k', type: 'Multikey', publicKeyMultibase: encodeMultikey('X25519', new Uint8Array(32).fill(n)) }], keyAgreement: ['#k'] });
  const [a, b, c] = [make(1), make(2), make(3)];
  peerDid4Document(a.longForm, store);
  peerDid4Document(b.longForm, store);
  peerDid4Document(a.shortForm, store); // a is now the most recent
  peerDid4Document(c.longForm, store);
  t.equal(store.size, 2);
  t.ok(peerDid4Document(a.shortForm, store));
  t.equal(code(() => peerDid4Document(b.shortForm, store)), 'DID_NOT_FOUND', 'b was evicted');
});

t.test('did:peer:2 with an empty service list (.SW10), as stock Identus agents mediate with', async (t) => {
  const base = encodePeerDid2([
    { purpose: 'E', publicKeyMultibase: 'z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc' },
    { purpose: 'V', publicKeyMultibase: 'z6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V' },
  ]);
  const doc = peerDid2Document(`${base}.SW10`);
  t.equal(doc.service.length, 0);
  t.equal(doc.keyAgreement.length, 1);
});
