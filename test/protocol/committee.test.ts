import t from 'tap';
import { ecvrfProve, ecvrfVerify } from '../../node/crypto/ecvrf.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { sha256 } from '../../node/crypto/hash.js';
import { fromHex, toHex } from '../../node/protocol/bytes.js';
import { parseCredentialId } from '../../node/protocol/credential-id.js';
import type { PayloadOf } from '../../node/protocol/payloads.js';
import { transactionFromJson } from '../../node/protocol/transaction.js';
import { loadVectors } from '../fixtures/vectors.js';
import { attestationThreshold, committeeSeed, isSelected, signAttestation, verifyAttestation } from '../../node/protocol/committee.js';

t.test('threshold: 14 of 21, two thirds (rounded up) of smaller sets', async (t) => {
  t.same([1, 2, 3, 4, 7, 20, 21, 100].map(attestationThreshold), [1, 2, 2, 3, 5, 14, 14, 14]);
  t.throws(() => attestationThreshold(0));
});

t.test('with 21 validators or fewer, everyone is in the committee', async (t) => {
  t.ok(isSelected(new Uint8Array(64).fill(0xff), 1n, 21n, 21));
});

t.test('with more, stake-weighted sortition selects about 21', async (t) => {
  const n = 100;
  let selected = 0;
  for (let i = 0; i < 2000; i++) {
    const beta = sha256(Uint8Array.of(i & 0xff, i >> 8));
    if (isSelected(beta, 1n, BigInt(n), n)) selected++;
  }
  const rate = selected / 2000;
  t.ok(rate > 0.17 && rate < 0.25, `selection rate ${rate} is near 21/100`);
  t.notOk(isSelected(new Uint8Array(64).fill(0xff), 1n, 100n, n), 'the highest output is never selected at p = 0.21');
  t.ok(isSelected(new Uint8Array(64), 1n, 100n, n), 'the lowest always is');
  t.ok(isSelected(new Uint8Array(64).fill(0xff), 10n, 100n, n), 'a weight of 10% of 100 members selects with p = 1');
  t.notOk(isSelected(new Uint8Array(64), 0n, 100n, n), 'no weight, no seat');
});

t.test('the seed binds the chain, the parent block and the request; the VRF proves it', async (t) => {
  const a = committeeSeed('chain', new Uint8Array(32), new Uint8Array(16).fill(1));
  t.not(toHex(a), toHex(committeeSeed('other', new Uint8Array(32), new Uint8Array(16).fill(1))));
  t.not(toHex(a), toHex(committeeSeed('chain', new Uint8Array(32).fill(1), new Uint8Array(16).fill(1))));
  t.not(toHex(a), toHex(committeeSeed('chain', new Uint8Array(32), new Uint8Array(16).fill(2))));
  const kp = keyPairFromSeed(new Uint8Array(32).fill(5));
  const proof = ecvrfProve(kp.seed, a);
  t.ok(ecvrfVerify(kp.publicKey, a, proof));
  t.equal(ecvrfVerify(kp.publicKey, committeeSeed('other', new Uint8Array(32), new Uint8Array(16).fill(1)), proof), undefined, 'not for another seed');
});

t.test('attestation signatures cover the chain, the request and the hash', async (t) => {
  const kp = keyPairFromSeed(new Uint8Array(32).fill(6));
  const id = new Uint8Array(16).fill(1);
  const hash = new Uint8Array(32).fill(2);
  const sig = signAttestation(kp.seed, 'chain', id, hash);
  t.ok(verifyAttestation(kp.publicKey, sig, 'chain', id, hash));
  t.notOk(verifyAttestation(kp.publicKey, sig, 'other', id, hash));
  t.notOk(verifyAttestation(kp.publicKey, sig, 'chain', new Uint8Array(16), hash));
  t.notOk(verifyAttestation(kp.publicKey, sig, 'chain', id, new Uint8Array(32)));
  t.notOk(verifyAttestation(kp.publicKey, new Uint8Array(3), 'chain', id, hash), 'malformed input is false, not an exception');
});

t.test('vector: the attestation of docs/protocol.md proves the documented seed and signs the request hash', async (t) => {
  const V = loadVectors('ledger-transactions.json');
  const s = V.committee_seed_of_the_attestation;
  const id = parseCredentialId(s.credential_id);
  const seed = committeeSeed(V.chain_id, fromHex(s.parent_hash), id);
  t.equal(toHex(seed), s.seed);
  const request = transactionFromJson(V.vectors.find((v: { kind: string }) => v.kind === 'CredentialRequest').json).tx.payload as PayloadOf<'CredentialRequest'>;
  const attest = transactionFromJson(V.vectors.find((v: { kind: string }) => v.kind === 'CredentialAttest').json).tx.payload as PayloadOf<'CredentialAttest'>;
  t.ok(ecvrfVerify(fromHex(V.public_key), seed, attest.vrfProof));
  t.ok(verifyAttestation(fromHex(V.public_key), attest.signature, V.chain_id, id, request.hash));
});
