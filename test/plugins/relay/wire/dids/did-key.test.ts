import t from 'tap';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import {
  didKeyDocument,
  didKeyFromEd25519,
  didKeyFromSeed,
  didKeyFromX25519,
  x25519SecretFromEd25519Seed,
  type DidcommDidDoc,
} from '../../../../../plugins/relay/wire/dids/index.js';
import { loadVectors } from '../../../../fixtures/vectors.js';
import { errorCode } from './error-code.js';

/** test/fixtures/vectors/did-key.json: the did:key spec example and test vectors (w3c-ccg/did-method-key @f5abee8). */
const V = loadVectors('did-key.json');

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const unhex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
const jwkKey = (doc: DidcommDidDoc, id: string) => {
  const vm = doc.verificationMethod.find((m) => m.id === id);
  return vm ? { crv: vm.publicKeyJwk.crv, hex: hex(Buffer.from(vm.publicKeyJwk.x, 'base64url')), type: vm.type, controller: vm.controller } : undefined;
};
const code = errorCode;

t.test('the spec example: DID, derived X25519 key and the method ids of its document', async (t) => {
  const ex = V.spec_example;
  t.equal(didKeyFromEd25519(unhex(ex.ed25519PublicKey)), ex.did);
  const doc = didKeyDocument(ex.did);
  const [edId] = ex.didDocument.authentication;
  const xId = ex.didDocument.keyAgreement[0].id;
  t.same(doc.authentication, [edId]);
  t.same(doc.assertionMethod, ex.didDocument.assertionMethod);
  t.same(doc.keyAgreement, [xId]);
  t.equal(xId, `${ex.did}#${ex.x25519Multibase}`);
  t.same(jwkKey(doc, edId), { crv: 'Ed25519', hex: ex.ed25519PublicKey, type: 'JsonWebKey2020', controller: ex.did });
  t.same(jwkKey(doc, xId), { crv: 'X25519', hex: ex.x25519PublicKey_derived, type: 'JsonWebKey2020', controller: ex.did });
  t.same(doc.service, []);
});

t.test('every Ed25519 vector: key from seed, DID, derived X25519 key and secret, method ids', async (t) => {
  t.equal(V.ed25519_with_x25519_vectors.length, 5);
  for (const v of V.ed25519_with_x25519_vectors) {
    const seed = unhex(v.seed);
    t.equal(hex(ed25519.getPublicKey(seed)), v.ed25519PublicKey, `${v.did}: public key`);
    t.equal(didKeyFromEd25519(unhex(v.ed25519PublicKey)), v.did, 'DID from the key');
    t.equal(hex(base58.decode(v.did.slice('did:key:z'.length))), v.multicodecPrefixedKey, 'multicodec prefix ed01');
    const secret = x25519SecretFromEd25519Seed(seed);
    t.equal(hex(secret), v.x25519PrivateKey, 'X25519 secret from the seed');
    t.equal(hex(x25519.getPublicKey(secret)), v.x25519PublicKey, 'the secret matches the derived public key');

    const me = didKeyFromSeed(seed);
    t.equal(me.did, v.did);
    t.equal(hex(me.x25519PublicKey), v.x25519PublicKey);
    t.equal(me.signingKeyId, v.verificationMethodIds.ed25519);
    t.equal(me.keyAgreementKeyId, v.verificationMethodIds.x25519);
    t.same(
      me.secrets.map((s) => [s.id, s.type, s.privateKeyJwk.crv, hex(Buffer.from(s.privateKeyJwk.d, 'base64url'))]),
      [
        [v.verificationMethodIds.x25519, 'JsonWebKey2020', 'X25519', v.x25519PrivateKey],
        [v.verificationMethodIds.ed25519, 'JsonWebKey2020', 'Ed25519', v.seed],
      ],
      'secrets: JWKs with d, ids as in the document',
    );

    const doc = didKeyDocument(v.did);
    t.equal(doc.id, v.did);
    t.same(doc.authentication, [v.verificationMethodIds.ed25519]);
    t.same(doc.assertionMethod, [v.verificationMethodIds.ed25519]);
    t.same(doc.keyAgreement, [v.verificationMethodIds.x25519]);
    t.equal(v.verificationMethodIds.x25519, `${v.did}#${v.x25519Multibase}`);
    t.equal(jwkKey(doc, v.verificationMethodIds.ed25519)?.hex, v.ed25519PublicKey);
    t.equal(jwkKey(doc, v.verificationMethodIds.x25519)?.hex, v.x25519PublicKey);
    t.equal(jwkKey(doc, v.verificationMethodIds.x25519)?.crv, 'X25519');
  }
});

t.test('every X25519 vector: DID from the key, one keyAgreement method', async (t) => {
  t.equal(V.x25519_vectors.length, 4);
  for (const v of V.x25519_vectors) {
    t.equal(didKeyFromX25519(unhex(v.x25519PublicKey)), v.did);
    t.equal(hex(base58.decode(v.did.slice('did:key:z'.length))), v.multicodecPrefixedKey, 'multicodec prefix ec01');
    const doc = didKeyDocument(v.did);
    t.same(doc.keyAgreement, [v.verificationMethodId]);
    t.same(doc.authentication, []);
    t.equal(doc.verificationMethod.length, 1);
    t.same(jwkKey(doc, v.verificationMethodId), { crv: 'X25519', hex: v.x25519PublicKey, type: 'JsonWebKey2020', controller: v.did });
    const upstream = v.upstreamDidDocument.verificationMethod[0];
    if (upstream.publicKeyJwk) t.same(doc.verificationMethod[0]!.publicKeyJwk, upstream.publicKeyJwk, 'the JsonWebKey2020 vector: the same JWK');
    else t.equal(hex(base58.decode(upstream.publicKeyBase58)), v.x25519PublicKey);
  }
});

t.test('other key types and malformed did:key are refused with typed errors', async (t) => {
  const mk = (prefix: number[], key: Uint8Array) => `did:key:z${base58.encode(Uint8Array.from([...prefix, ...key]))}`;
  t.equal(code(() => didKeyDocument(mk([0xe7, 0x01], new Uint8Array(33).fill(2)))), 'DID_UNSUPPORTED', 'secp256k1 (zQ3s…)');
  t.equal(code(() => didKeyDocument(mk([0x80, 0x24], new Uint8Array(33).fill(2)))), 'DID_UNSUPPORTED', 'P-256 (zDn…)');
  t.equal(code(() => didKeyDocument(mk([0xea, 0x01], new Uint8Array(48).fill(1)))), 'DID_UNSUPPORTED', 'BLS12-381 G1');
  t.equal(code(() => didKeyDocument(mk([0xeb, 0x01], new Uint8Array(96).fill(1)))), 'DID_TOO_LONG', 'BLS12-381 G2 is over the 128-character cap');
  try {
    didKeyDocument(mk([0xe7, 0x01], new Uint8Array(33).fill(2)));
  } catch (err) {
    t.match(err, { code: 'DID_UNSUPPORTED', kind: 'invalid', data: { multicodec: '0xe7' }, message: /secp256k1-pub/ });
  }
  t.equal(code(() => didKeyDocument(mk([0xed, 0x01], new Uint8Array(31).fill(1)))), 'DID_INVALID', 'a 31-byte key');
  t.equal(code(() => didKeyDocument(mk([0xed, 0x01], new Uint8Array(32)))), 'DID_INVALID', 'a small-order Ed25519 point');
  t.equal(code(() => didKeyDocument('did:key:z6Mk0OIl')), 'DID_INVALID', 'not base58');
  t.equal(code(() => didKeyDocument('did:key:6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')), 'DID_INVALID', 'no multibase z');
  t.equal(code(() => didKeyDocument(`did:key:z${'1'.repeat(130)}`)), 'DID_TOO_LONG');
  t.equal(code(() => didKeyFromEd25519(new Uint8Array(31))), 'DID_INVALID');
  t.equal(code(() => x25519SecretFromEd25519Seed(new Uint8Array(16))), 'DID_INVALID');
});
