import t from 'tap';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import {
  DidResolver,
  ledgerDidDocument,
  parseLedgerServiceEndpoint,
  x25519SecretFromEd25519Seed,
} from '../../../../../plugins/relay/wire/dids/index.js';
import { didDocumentRpc, type DidDocumentRpc } from '../../../../../node/protocol/did-document.js';
import { didForPublicKey } from '../../../../../node/protocol/did.js';
import type { ServiceEndpoint } from '../../../../../node/protocol/payloads.js';

/** An on-chain DID document as ledger_didResolve gives it, built by the node's own code. */
function onChain(seed: Uint8Array, service: ServiceEndpoint[], active = true): DidDocumentRpc {
  const publicKey = ed25519.getPublicKey(seed);
  const did = didForPublicKey('testnet', publicKey);
  return didDocumentRpc({ did, publicKey: active ? publicKey : null, service, active, createdMs: 1, updatedMs: 2, versionId: active ? 1 : 2, txHash: new Uint8Array(32) });
}

const seed = new Uint8Array(32).fill(9);
const routingKey = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW';

t.test('ledgerDidDocument: Ed25519 in authentication, X25519 derived as #key-x25519-1, DIDComm services', async (t) => {
  const rpc = onChain(seed, [
    { id: '#relay', type: 'DIDCommMessaging', serviceEndpoint: 'https://relay.example/didcomm' },
    { id: '#routed', type: 'DIDCommMessaging', serviceEndpoint: JSON.stringify({ uri: 'https://relay.example/didcomm', routingKeys: [routingKey] }) },
    { id: '#via-mediator', type: 'DIDCommMessaging', serviceEndpoint: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' },
    { id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example/alice' },
    { id: '#broken', type: 'DIDCommMessaging', serviceEndpoint: '{"uri": 5}' },
    { id: '#broken-json', type: 'DIDCommMessaging', serviceEndpoint: '{not json' },
  ]);
  const did = rpc.id;
  const doc = ledgerDidDocument(rpc);
  t.equal(doc.id, did);
  t.same(doc.authentication, [`${did}#key-1`]);
  t.same(doc.keyAgreement, [`${did}#key-x25519-1`]);
  t.same(doc.assertionMethod, [`${did}#key-1`]);
  const ed = doc.verificationMethod.find((m) => m.id === `${did}#key-1`)!;
  const xm = doc.verificationMethod.find((m) => m.id === `${did}#key-x25519-1`)!;
  t.same(ed, { id: `${did}#key-1`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(ed25519.getPublicKey(seed)).toString('base64url') } });
  t.same(xm.publicKeyJwk, { kty: 'OKP', crv: 'X25519', x: Buffer.from(x25519.getPublicKey(x25519SecretFromEd25519Seed(seed))).toString('base64url') }, 'the holder decrypts with x25519SecretFromEd25519Seed(seed)');
  t.same(doc.service, [
    { id: `${did}#relay`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://relay.example/didcomm', accept: ['didcomm/v2'], routingKeys: [], routing_keys: [] } },
    { id: `${did}#routed`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://relay.example/didcomm', accept: ['didcomm/v2'], routingKeys: [routingKey], routing_keys: [routingKey] } },
    { id: `${did}#via-mediator`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', accept: ['didcomm/v2'], routingKeys: [], routing_keys: [] } },
  ], 'other types and unparsable endpoints are left out');
});

t.test('parseLedgerServiceEndpoint: a URI string, or a JSON object string', async (t) => {
  t.same(parseLedgerServiceEndpoint('https://a.example/x'), { uri: 'https://a.example/x' });
  t.same(parseLedgerServiceEndpoint('{"uri":"https://a","routing_keys":["did:key:z6Mk#z6LS"],"accept":["didcomm/v2"]}'), { uri: 'https://a', accept: ['didcomm/v2'], routingKeys: ['did:key:z6Mk#z6LS'] });
  t.equal(parseLedgerServiceEndpoint('{"uri":'), null);
  t.equal(parseLedgerServiceEndpoint('[1]'), null, 'a JSON list is not an endpoint');
  t.equal(parseLedgerServiceEndpoint(''), null);
  t.equal(parseLedgerServiceEndpoint('relay.example/didcomm'), null, 'a string without a URI scheme');
});

t.test('a deactivated DID throws DID_DEACTIVATED; through the resolver it is null with that reason', async (t) => {
  const rpc = onChain(seed, [], false);
  t.throws(() => ledgerDidDocument(rpc), { code: 'DID_DEACTIVATED', kind: 'not_found' });
  const failures: Array<[string, string]> = [];
  const r = new DidResolver({ ledger: async (did) => (did === rpc.id ? rpc : null), network: 'testnet', onFailure: (did, reason) => failures.push([did, reason.code]) });
  t.equal(await r.resolve(rpc.id), null);
  t.same(failures, [[rpc.id, 'DID_DEACTIVATED']]);
  await t.rejects(r.resolveStrict(rpc.id), { code: 'DID_DEACTIVATED' });
  t.same(failures, [[rpc.id, 'DID_DEACTIVATED']], 'the cached negative result does not report again');
});

t.test('did:ledger through the resolver with a fake ledger; other networks and unknown DIDs', async (t) => {
  const rpc = onChain(seed, [{ id: '#relay', type: 'DIDCommMessaging', serviceEndpoint: 'https://relay.example/didcomm' }]);
  const asked: string[] = [];
  const failures: string[] = [];
  const r = new DidResolver({
    ledger: async (did) => {
      asked.push(did);
      return did === rpc.id ? rpc : null;
    },
    network: 'testnet',
    onFailure: (_did, reason) => failures.push(reason.code),
  });
  const doc = await r.resolve(rpc.id);
  t.same(doc, ledgerDidDocument(rpc));
  t.ok(Object.isFrozen(doc) && Object.isFrozen(doc!.service[0]!.serviceEndpoint.routingKeys), 'shared documents are frozen');
  t.same(await r.resolve(`${rpc.id}#key-x25519-1`), doc, 'a DID URL resolves as its DID');
  t.equal(asked.length, 1);

  const mainnet = rpc.id.replace(':testnet:', ':mainnet:');
  t.equal(await r.resolve(mainnet), null);
  await t.rejects(r.resolveStrict(mainnet), { code: 'DID_WRONG_NETWORK', data: { network: 'mainnet', expected: 'testnet' } });
  const unknown = didForPublicKey('testnet', ed25519.getPublicKey(new Uint8Array(32).fill(1)));
  await t.rejects(r.resolveStrict(unknown), { code: 'DID_NOT_FOUND', kind: 'not_found' });
  t.equal(await r.resolve('did:ledger:testnet:0OIl'), null);
  t.same(asked, [rpc.id, unknown], 'another network and a malformed DID never reach the chain');
  t.same(failures, ['DID_WRONG_NETWORK', 'DID_WRONG_NETWORK', 'DID_NOT_FOUND', 'DID_INVALID']);

  const broken = new DidResolver({ ledger: async () => { throw new Error('LevelDB is closed'); }, network: 'testnet' });
  t.equal(await broken.resolve(rpc.id), null, 'a failing chain read is null, not a throw');
  await t.rejects(broken.resolveStrict(rpc.id), { code: 'DID_RESOLUTION_FAILED', kind: 'internal', message: /LevelDB is closed/ });
  t.equal(broken.stats().ledgerReads, 2, 'and it is not cached');

  const liar = new DidResolver({ ledger: async () => rpc, network: 'testnet' });
  await t.rejects(liar.resolveStrict(unknown), { code: 'DID_RESOLUTION_FAILED' }, "a document for another DID is refused");
});
