import t from 'tap';
import { binary, fromBinary } from '../fixtures/payload-bytes.js';
import { BlsQuorumCrypto, voteDigest } from '../../node/consensus/crypto.js';
import { blsPublicKey } from '../../node/crypto/bls.js';
import { ADDRESS_LENGTH, addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { ByteWriter, concatBytes, fromHex, toHex } from '../../node/protocol/bytes.js';
import { payloadFromJson, payloadToJson, type Payload, type PayloadOf } from '../../node/protocol/payloads.js';
import { decodeCandidates, decodeValidator, decodeValidatorSet, encodeCandidates, encodeValidator, encodeValidatorSet, type ValidatorRecord } from '../../node/protocol/records.js';
import { transactionFromJson } from '../../node/protocol/transaction.js';
import { checkEquivocation, checkProofOfPossession, popMessage, proofOfPossession } from '../../node/protocol/validator-keys.js';
import { loadVectors } from '../fixtures/vectors.js';

const V = loadVectors('ledger-transactions.json');

t.test('vectors: the BLS key, the proof of possession and the evidence of docs/protocol.md', async (t) => {
  const sender = addressBytesFromPublicKey(fromHex(V.public_key));
  const pk = blsPublicKey(fromHex(V.bls_secret_key));
  t.equal(toHex(pk), V.bls_public_key);
  t.equal(toHex(popMessage(V.chain_id, sender, pk)), V.pop_message);
  t.equal(toHex(proofOfPossession(V.chain_id, sender, fromHex(V.bls_secret_key)).proofOfPossession), V.proof_of_possession, 'signing is deterministic');
  const register = transactionFromJson(V.vectors.find((v: { kind: string }) => v.kind === 'ValidatorRegister').json).tx.payload as PayloadOf<'ValidatorRegister'>;
  t.equal(toHex(register.proofOfPossession), V.proof_of_possession);
  t.equal(checkProofOfPossession(V.chain_id, sender, register.blsPublicKey, register.proofOfPossession), undefined, 'the vector proof verifies');
  const evidence = transactionFromJson(V.vectors.find((v: { kind: string }) => v.kind === 'SubmitEvidence').json).tx.payload as PayloadOf<'SubmitEvidence'>;
  t.same(
    [evidence.first, evidence.second].map((v) => toHex(voteDigest(V.chain_id, evidence.epoch, evidence.round, v.height, v.blockHash))),
    V.evidence_vote_digests,
  );
  t.equal(checkEquivocation(V.chain_id, pk, evidence), undefined, 'the vector evidence verifies');
});

t.test('ValidatorRegister: tag 16, key then proof; hex or byte arrays in JSON', async (t) => {
  const p: Payload = { kind: 'ValidatorRegister', blsPublicKey: new Uint8Array(48).fill(7), proofOfPossession: new Uint8Array(96).fill(9) };
  const bytes = binary(p);
  t.equal(toHex(bytes), '10' + '07'.repeat(48) + '09'.repeat(96));
  t.same(fromBinary(bytes), p);
  t.same(payloadToJson(p), { ValidatorRegister: { bls_public_key: '07'.repeat(48), proof_of_possession: '09'.repeat(96) } });
  t.same(payloadFromJson(payloadToJson(p)), p, 'standard JSON round trip');
  t.same(payloadFromJson(payloadToJson(p, 'raw')), p, 'raw JSON (byte arrays) round trip');
  const bad: Array<[string, unknown]> = [
    ['short key', { bls_public_key: '07'.repeat(47), proof_of_possession: '09'.repeat(96) }],
    ['uppercase hex', { bls_public_key: '0A'.repeat(48), proof_of_possession: '09'.repeat(96) }],
    ['missing proof', { bls_public_key: '07'.repeat(48) }],
    ['extra field', { bls_public_key: '07'.repeat(48), proof_of_possession: '09'.repeat(96), weight: 3 }],
  ];
  for (const [name, body] of bad) t.throws(() => payloadFromJson({ ValidatorRegister: body }), { code: 'MALFORMED_PAYLOAD' }, name);
  t.throws(() => fromBinary(bytes.slice(0, -1)), { code: 'TRUNCATED' });
});

t.test('SubmitEvidence: tag 17, kind, epoch, round, validator, two signed votes', async (t) => {
  const vote = (fill: number, height: number) => ({ height, blockHash: new Uint8Array(32).fill(fill), signature: new Uint8Array(96).fill(fill) });
  const p: PayloadOf<'SubmitEvidence'> = { kind: 'SubmitEvidence', evidence: 'double-proposal', epoch: 1, round: 9, validator: new Uint8Array(ADDRESS_LENGTH).fill(5), first: vote(1, 4), second: vote(2, 4) };
  const bytes = binary(p);
  const u64 = (n: number) => new ByteWriter().u64(BigInt(n)).finish();
  const expected = concatBytes(Uint8Array.of(17, 1), u64(1), u64(9), p.validator, u64(4), p.first.blockHash, p.first.signature, u64(4), p.second.blockHash, p.second.signature);
  t.equal(toHex(bytes), toHex(expected));
  t.same(fromBinary(bytes), p);
  t.same(payloadFromJson(payloadToJson(p)), p);
  t.same(payloadFromJson(payloadToJson(p, 'raw')), p);
  const json = payloadToJson(p).SubmitEvidence as Record<string, unknown>;
  t.same(Object.keys(json), ['kind', 'epoch', 'round', 'validator', 'first', 'second'], 'the shape of a ledger_getEvidence item');

  const same = { ...p, second: { ...p.first } };
  t.throws(() => payloadFromJson(payloadToJson(same)), { code: 'MALFORMED_PAYLOAD' }, 'two votes for one block are no equivocation');
  t.throws(() => fromBinary(binary(same)), { code: 'MALFORMED_PAYLOAD' }, 'the binary decoder has the same rule');
  t.throws(() => payloadFromJson({ SubmitEvidence: { ...json, kind: 'double-timeout' } }), { code: 'MALFORMED_PAYLOAD' });
  t.throws(() => payloadFromJson({ SubmitEvidence: { ...json, round: -1 } }), { code: 'MALFORMED_PAYLOAD' });
  t.throws(() => payloadFromJson({ SubmitEvidence: { ...json, round: 2n ** 53n } }), { code: 'MALFORMED_PAYLOAD' });
  const huge = new Uint8Array(bytes);
  huge.set(new ByteWriter().u64(2n ** 60n).finish(), 10);
  t.throws(() => fromBinary(huge), { code: 'MALFORMED_PAYLOAD' }, 'rounds above 2^53 - 1 in binary too');
  const unknownKind = new Uint8Array(bytes);
  unknownKind[1] = 2;
  t.throws(() => fromBinary(unknownKind), { code: 'MALFORMED_PAYLOAD' });
});

t.test('a real double vote, signed by the consensus signer, travels through the codec and still verifies', async (t) => {
  const sk = fromHex(V.bls_secret_key);
  const crypto = new BlsQuorumCrypto(sk);
  const blockHash = (fill: number) => new Uint8Array(32).fill(fill);
  const sign = (h: number, fill: number) => ({ height: h, blockHash: blockHash(fill), signature: crypto.sign(voteDigest('c', 0, 3, h, blockHash(fill))) });
  const p: PayloadOf<'SubmitEvidence'> = { kind: 'SubmitEvidence', evidence: 'double-vote', epoch: 0, round: 3, validator: new Uint8Array(20), first: sign(7, 1), second: sign(7, 2) };
  const back = fromBinary(binary(p)) as PayloadOf<'SubmitEvidence'>;
  t.equal(checkEquivocation('c', crypto.publicKey, back), undefined);
});

const record: ValidatorRecord = {
  staked: 2n ** 100n,
  unbonding: [{ amount: 5n, releaseMs: 99 }],
  reputation: 1000,
  active: true,
  ed25519PublicKey: new Uint8Array(32).fill(1),
  blsPublicKey: new Uint8Array(48).fill(2),
};

t.test('validator records: the slashed flag is an optional trailing byte; old records are unchanged', async (t) => {
  const plain = encodeValidator(record);
  t.same(decodeValidator(plain), record, 'no flag: decodes without `slashed`');
  t.equal(toHex(encodeValidator({ ...record, slashed: false })), toHex(plain), 'slashed: false encodes as before');
  const slashed = encodeValidator({ ...record, slashed: true });
  t.equal(toHex(slashed), toHex(plain) + '01');
  t.same(decodeValidator(slashed), { ...record, slashed: true });
  t.throws(() => decodeValidator(concatBytes(plain, Uint8Array.of(0))), { code: 'BAD_VALIDATOR_RECORD' }, 'a zero flags byte is not canonical');
  t.throws(() => decodeValidator(concatBytes(plain, Uint8Array.of(4))), { code: 'BAD_VALIDATOR_RECORD' }, 'unknown bits');
  t.same(decodeValidator(concatBytes(plain, Uint8Array.of(3))), { ...record, slashed: true, qualified: true }, 'bit 1: qualified (the KYC rule)');
  t.same(encodeValidator({ ...record, qualified: true }), concatBytes(plain, Uint8Array.of(2)));
  t.throws(() => decodeValidator(concatBytes(slashed, Uint8Array.of(1))), { code: 'TRAILING_BYTES' });
});

t.test('validator set and candidate index encodings', async (t) => {
  const a = new Uint8Array(ADDRESS_LENGTH).fill(1);
  const b = new Uint8Array(ADDRESS_LENGTH).fill(2);
  const set = { epoch: 3, firstHeight: 300, length: 100, validators: [a, b].map((address, i) => ({ address, blsPublicKey: new Uint8Array(48).fill(9 + i), weight: BigInt(i + 1) })) };
  const bytes = encodeValidatorSet(set);
  const u64 = (n: number) => new ByteWriter().u64(BigInt(n)).finish();
  t.equal(toHex(bytes), toHex(concatBytes(u64(3), u64(300), u64(100), Uint8Array.of(0, 2), a, set.validators[0]!.blsPublicKey, u64(1), b, set.validators[1]!.blsPublicKey, u64(2))));
  t.same(decodeValidatorSet(bytes), set);
  t.throws(() => decodeValidatorSet(encodeValidatorSet({ ...set, validators: [...set.validators].reverse() })), { code: 'BAD_VALIDATOR_SET' }, 'not in canonical order');
  t.same(decodeCandidates(encodeCandidates([a, b])), [a, b]);
  t.equal(toHex(encodeCandidates([a])), '00000001' + toHex(a));
  t.throws(() => decodeCandidates(encodeCandidates([b, a])), { code: 'BAD_VALIDATOR_SET' });
  t.throws(() => decodeCandidates(encodeCandidates([a, a])), { code: 'BAD_VALIDATOR_SET' }, 'no duplicates');
});
