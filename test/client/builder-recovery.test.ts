import t from 'tap';
import { buildDidRecover, buildSetRecoveryPolicy, guardianSignature, signAndEncode } from '../../node/client/builder.js';
import { fromHex } from '../../node/protocol/bytes.js';
import { parseJson } from '../../node/protocol/json.js';
import { transactionFromJson, verifyTransactionSignature } from '../../node/protocol/transaction.js';
import { loadVectors } from '../fixtures/vectors.js';

const V = loadVectors('ledger-recovery.json');
const owner = { seed: fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'), publicKey: fromHex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a') };
const relayer = { seed: fromHex(V.new_secret_key), publicKey: fromHex(V.new_public_key) };

t.test('guardianSignature reproduces the vectors', async (t) => {
  const args = { chainId: V.chain_id, did: V.did, newPublicKey: V.new_public_key, guardianSeed: fromHex(V.guardian_secret_key) };
  t.equal(guardianSignature({ ...args, versionId: 1 }), V.signature);
  t.equal(guardianSignature({ ...args, versionId: 2, newPublicKey: fromHex(V.new_public_key) }), V.recover_signature, 'the key as bytes');
  t.throws(() => guardianSignature({ ...args, versionId: 0 }), { code: 'BAD_VERSION' });
  t.throws(() => guardianSignature({ ...args, versionId: 1, newPublicKey: 'abcd' }), { code: 'BAD_HEX' });
});

t.test('the builders produce the vector transactions', async (t) => {
  const policy = buildSetRecoveryPolicy({ senderPubkey: owner.publicKey, nonce: 0, did: V.did, guardians: [V.guardian_did], threshold: 1, delayBlocks: 100 });
  const recover = buildDidRecover({
    senderPubkey: relayer.publicKey,
    nonce: 0,
    did: V.did,
    newPublicKey: V.new_public_key,
    signatures: [{ guardian: V.guardian_did, signature: V.recover_signature }],
  });
  for (const [unsigned, seed, v] of [[policy, owner.seed, V.transactions[0]], [recover, relayer.seed, V.transactions[1]]] as const) {
    const signed = signAndEncode(V.chain_id, unsigned, seed);
    t.equal(signed.hash, v.hash, v.kind);
    t.ok(verifyTransactionSignature(V.chain_id, transactionFromJson(parseJson(signed.json)).tx));
  }
  const removal = buildSetRecoveryPolicy({ senderPubkey: owner.publicKey, nonce: 1, did: V.did, guardians: [], threshold: 0 });
  t.same(removal.payload, { kind: 'SetRecoveryPolicy', did: V.did, guardians: [], threshold: 0, delayBlocks: 0 });
});

t.test('the builders refuse what the node would refuse', async (t) => {
  const base = { senderPubkey: owner.publicKey, nonce: 0, did: V.did };
  t.throws(() => buildSetRecoveryPolicy({ ...base, guardians: [V.guardian_did], threshold: 2 }), { code: 'MALFORMED_PAYLOAD' });
  t.throws(() => buildSetRecoveryPolicy({ ...base, guardians: [V.did], threshold: 1 }), { code: 'MALFORMED_PAYLOAD' }, 'its own guardian');
  const sig = { guardian: V.guardian_did, signature: V.signature };
  t.throws(() => buildDidRecover({ ...base, newPublicKey: V.new_public_key, signatures: [] }), { code: 'MALFORMED_PAYLOAD' });
  t.throws(() => buildDidRecover({ ...base, newPublicKey: new Uint8Array(31), signatures: [sig] }), { code: 'MALFORMED_PAYLOAD' });
  t.throws(() => buildDidRecover({ ...base, newPublicKey: V.new_public_key, signatures: [{ ...sig, signature: 'ab' }] }), { code: 'BAD_HEX' });
});
