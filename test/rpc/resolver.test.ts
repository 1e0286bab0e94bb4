import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { ed25519PublicKeyMultibase } from '../../node/crypto/multibase.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { bytesEqual } from '../../node/protocol/bytes.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import type { DidRecord } from '../../node/protocol/records.js';
import { resolveDid } from '../../node/rpc/resolver.js';

const key = keyPairFromSeed(new Uint8Array(32).fill(9));
const did = didForPublicKey('testnet', key.publicKey);
const id = addressBytesFromPublicKey(key.publicKey);
const record: DidRecord = {
  did,
  publicKey: key.publicKey,
  service: [{ id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example' }],
  active: true,
  createdMs: 1_700_000_000_000,
  updatedMs: 1_700_000_000_000,
  versionId: 1,
  txHash: new Uint8Array(32),
};
let stored: DidRecord | undefined = record;
const deps = { network: 'testnet', lookup: async (i: Uint8Array) => (bytesEqual(i, id) ? stored : undefined), now: () => 1_800_000_000_000 };

t.test('an active DID resolves with its document and metadata', async (t) => {
  stored = record;
  const { status, body } = await resolveDid(deps, did, 'application/did+ld+json');
  t.equal(status, 200);
  t.same(body.didDocument?.verificationMethod, [{ id: `${did}#key-1`, type: 'Ed25519VerificationKey2020', controller: did, publicKeyMultibase: ed25519PublicKeyMultibase(key.publicKey) }]);
  t.same(body.didDocument?.authentication, [`${did}#key-1`]);
  t.same(body.didDocumentMetadata, { created: '2023-11-14T22:13:20.000Z', updated: '2023-11-14T22:13:20.000Z', deactivated: false, versionId: '1', equivalentId: [] });
  t.same(body.didResolutionMetadata, { contentType: 'application/did+ld+json', duration: 0, retrieved: '2027-01-15T08:00:00.000Z' });
});

t.test('a deactivated DID: 410, deactivated true, no verification methods', async (t) => {
  stored = { ...record, active: false, publicKey: null, versionId: 2 };
  const { status, body } = await resolveDid(deps, did);
  t.equal(status, 410);
  t.equal(body.didDocumentMetadata.deactivated, true);
  t.same(body.didDocument?.verificationMethod, []);
  t.same(body.didDocument?.authentication, []);
});

t.test('errors follow DID Resolution', async (t) => {
  stored = undefined;
  t.match(await resolveDid(deps, did), { status: 404, body: { didDocument: null, didResolutionMetadata: { error: 'notFound' } } });
  t.match(await resolveDid(deps, `did:ledger:${did.split(':')[3]}`), { status: 400, body: { didResolutionMetadata: { error: 'invalidDid' } } }, 'no network segment');
  t.match(await resolveDid(deps, 'did:web:example.com'), { status: 400, body: { didResolutionMetadata: { error: 'invalidDid' } } });
  t.match(await resolveDid(deps, did.replace('testnet', 'mainnet')), { status: 404, body: { didResolutionMetadata: { error: 'notFound' } } });
  t.match(await resolveDid(deps, did, 'text/html'), { status: 406, body: { didResolutionMetadata: { error: 'representationNotSupported' } } });
});
