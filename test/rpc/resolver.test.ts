import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { ed25519PublicKeyMultibase } from '../../node/crypto/multibase.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { bytesEqual } from '../../node/protocol/bytes.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import type { DidRecord } from '../../node/protocol/records.js';
import { resolve, resolveDid, type ResolutionResult } from '../../node/rpc/resolver.js';

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

const RESULT_TYPE = 'application/ld+json;profile="https://w3id.org/did-resolution"';

t.test('an active DID resolves with its document and metadata', async (t) => {
  stored = record;
  const { status, result } = await resolve(deps, did);
  t.equal(status, 200);
  t.same(result.didDocument?.verificationMethod, [{ id: `${did}#key-1`, type: 'Ed25519VerificationKey2020', controller: did, publicKeyMultibase: ed25519PublicKeyMultibase(key.publicKey) }]);
  t.same(result.didDocument?.authentication, [`${did}#key-1`]);
  t.same(result.didDocumentMetadata, { created: '2023-11-14T22:13:20.000Z', updated: '2023-11-14T22:13:20.000Z', deactivated: false, versionId: '1', equivalentId: [] });
  t.same(result.didResolutionMetadata, { contentType: 'application/did+ld+json', duration: 0, retrieved: '2027-01-15T08:00:00.000Z' });
});

t.test('Accept picks the representation; the content type names it', async (t) => {
  stored = record;
  const { result } = await resolve(deps, did);
  const byDefault = await resolveDid(deps, did);
  t.match(byDefault, { status: 200, representation: 'resolution-ld', contentType: RESULT_TYPE });
  t.same(byDefault.body, result, 'no Accept: the resolution result');
  t.same(await resolveDid(deps, did, 'application/json'), byDefault);
  t.same(await resolveDid(deps, did, 'application/did-resolution'), { ...byDefault, representation: 'resolution', contentType: 'application/did-resolution' });
  const document = await resolveDid(deps, did, 'application/did+ld+json');
  t.match(document, { status: 200, representation: 'did-ld-json', contentType: 'application/did+ld+json' });
  t.same(document.body, result.didDocument, 'the document itself, with its @context');
  const plain = await resolveDid(deps, did, 'application/did+json');
  t.match(plain, { status: 200, representation: 'did-json', contentType: 'application/did+json' });
  const { '@context': context, ...rest } = result.didDocument!;
  t.ok(context.length > 0);
  t.same(plain.body, rest, 'the JSON representation: the same entries without @context');
});

t.test('a deactivated DID: 410, deactivated true, no verification methods, as a resolution result even when the document is asked for', async (t) => {
  stored = { ...record, active: false, publicKey: null, versionId: 2 };
  for (const accept of [undefined, 'application/did+ld+json', 'application/did+json']) {
    const answer = await resolveDid(deps, did, accept);
    t.match(answer, { status: 410, representation: 'resolution-ld', contentType: RESULT_TYPE }, String(accept));
    const body = answer.body as ResolutionResult;
    t.equal(body.didDocumentMetadata.deactivated, true);
    t.same(body.didDocument?.verificationMethod, []);
    t.same(body.didDocument?.authentication, []);
    t.equal(body.didResolutionMetadata.contentType, 'application/did+ld+json');
  }
  t.match(await resolveDid(deps, did, 'application/did+json, application/did-resolution;q=0.5'), { status: 410, contentType: 'application/did-resolution' }, 'the best result type the client takes');
});

t.test('errors follow DID Resolution and travel in a resolution result', async (t) => {
  stored = undefined;
  const failure = (status: number, error: string) => ({ status, contentType: RESULT_TYPE, body: { didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error, errorMessage: String } } });
  t.match(await resolveDid(deps, did), failure(404, 'notFound'));
  t.match(await resolveDid(deps, did, 'application/did+ld+json'), failure(404, 'notFound'), 'the document was asked for');
  t.match(await resolveDid(deps, `did:ledger:${did.split(':')[3]}`), failure(400, 'invalidDid'), 'no network segment');
  t.match(await resolveDid(deps, 'did:web:example.com', 'application/did+json'), failure(400, 'invalidDid'));
  t.match(await resolveDid(deps, did.replace('testnet', 'mainnet')), failure(404, 'notFound'));
  t.match(await resolveDid(deps, did, 'text/html'), failure(406, 'representationNotSupported'));
  t.match(await resolveDid(deps, 'not a did', 'text/html'), failure(406, 'representationNotSupported'), 'an Accept it cannot meet answers 406 first');
  t.match(await resolveDid(deps, did, 'application/did-resolution, application/did+ld+json;q=0.5'), { status: 404, contentType: 'application/did-resolution' });
});
