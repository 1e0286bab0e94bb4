import t from 'tap';
import { binary, fromBinary } from '../fixtures/payload-bytes.js';
import { loadVectors } from '../fixtures/vectors.js';
import { ADDRESS_LENGTH } from '../../node/protocol/address.js';
import { ByteWriter, concatBytes, fromHex, toHex } from '../../node/protocol/bytes.js';
import { didForIdentifier } from '../../node/protocol/did.js';
import { FEES } from '../../node/protocol/fees.js';
import { payloadFromJson, payloadToJson, type Payload, type PayloadOf } from '../../node/protocol/payloads.js';
import { decodePendingRecovery, decodeRecoveryPolicy, encodePendingRecovery, encodeRecoveryPolicy, pendingRecoveryKey, recoveryPolicyKey } from '../../node/protocol/recovery-records.js';
import { recoveryMessage, verifyRecovery } from '../../node/protocol/recovery.js';
import { encodeTransaction, signingBytes, signTransaction, transactionFromJson, transactionHash, transactionToJson, verifyTransactionSignature } from '../../node/protocol/transaction.js';

const did = (fill: number) => didForIdentifier('testnet', new Uint8Array(ADDRESS_LENGTH).fill(fill));
const OWNER = did(1);
const G = [did(2), did(3), did(4)];

const str = (s: string) => new ByteWriter().str(s).finish();

const policy: PayloadOf<'SetRecoveryPolicy'> = { kind: 'SetRecoveryPolicy', did: OWNER, guardians: G, threshold: 2, delayBlocks: 100 };

const V = loadVectors('ledger-recovery.json');

t.test('the transaction vectors of docs/protocol.md', async (t) => {
  const target = { chainId: V.chain_id, did: V.did, newPublicKey: fromHex(V.new_public_key), versionId: V.recover_version_id };
  t.equal(toHex(recoveryMessage(target)), V.recover_message);
  t.ok(verifyRecovery(fromHex(V.guardian_public_key), fromHex(V.recover_signature), target), 'the guardian signature at version 2');
  const seeds: Record<string, string> = { SetRecoveryPolicy: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', DidRecover: V.new_secret_key };
  t.same(V.transactions.map((v: { kind: string }) => v.kind), ['SetRecoveryPolicy', 'DidRecover']);
  for (const v of V.transactions) {
    const { tx } = transactionFromJson(v.json);
    t.equal(toHex(signingBytes(V.chain_id, tx)), v.signing_bytes, `${v.kind}: signing bytes`);
    t.equal(toHex(tx.signature), v.signature);
    t.equal(transactionHash(V.chain_id, tx), v.hash);
    t.equal(toHex(encodeTransaction(tx)), v.encoded);
    t.ok(verifyTransactionSignature(V.chain_id, tx));
    t.same(signTransaction(V.chain_id, { senderPubkey: tx.senderPubkey, nonce: tx.nonce, payload: tx.payload }, fromHex(seeds[v.kind]!)), tx, 'deterministic');
    t.same(JSON.parse(JSON.stringify(transactionToJson(tx), (_k, x) => (typeof x === 'bigint' ? Number(x) : x))), v.json, 'the JSON form');
  }
  const recoverTx = transactionFromJson(V.transactions[1].json).tx;
  t.same(recoverTx.payload, { kind: 'DidRecover', did: V.did, newPublicKey: fromHex(V.new_public_key), signatures: [{ guardian: V.guardian_did, signature: fromHex(V.recover_signature) }] });
});

t.test('SetRecoveryPolicy: tag 8, did, guardians, u8 threshold, u32 delay', async (t) => {
  const bytes = binary(policy);
  t.equal(toHex(bytes), toHex(concatBytes(Uint8Array.of(8), str(OWNER), Uint8Array.of(3), ...G.map(str), Uint8Array.of(2), Uint8Array.of(0, 0, 0, 100))));
  t.same(fromBinary(bytes), policy);
  t.same(payloadToJson(policy), { SetRecoveryPolicy: { did: OWNER, guardians: G, threshold: 2, delay_blocks: 100 } });
  t.same(payloadFromJson(payloadToJson(policy)), policy, 'standard JSON');
  t.same(payloadFromJson(payloadToJson(policy, 'raw')), policy, 'raw JSON (the same: no byte strings)');
  t.same(payloadFromJson({ SetRecoveryPolicy: { did: OWNER, guardians: G, threshold: 2n, delay_blocks: 1_000_000 } }), { ...policy, delayBlocks: 1_000_000 }, 'bigint integers, the largest delay');
  const removal: Payload = { kind: 'SetRecoveryPolicy', did: OWNER, guardians: [], threshold: 0, delayBlocks: 0 };
  t.same(fromBinary(binary(removal)), removal, 'no guardians, threshold 0, delay 0: the removal');
  t.same(payloadFromJson(payloadToJson(removal)), removal);
});

t.test('SetRecoveryPolicy: both decoders refuse the same policies', async (t) => {
  const eleven = Array.from({ length: 11 }, (_, i) => did(10 + i));
  const bad: Array<[string, PayloadOf<'SetRecoveryPolicy'>]> = [
    ['11 guardians', { ...policy, guardians: eleven, threshold: 1 }],
    ['a duplicate guardian', { ...policy, guardians: [G[0]!, G[1]!, G[0]!] }],
    ['the DID its own guardian', { ...policy, guardians: [G[0]!, OWNER] }],
    ['threshold 0', { ...policy, threshold: 0 }],
    ['threshold above the guardians', { ...policy, threshold: 4 }],
    ['delay above 1,000,000', { ...policy, delayBlocks: 1_000_001 }],
    ['no guardians with a threshold', { ...policy, guardians: [], threshold: 1 }],
    ['no guardians with a delay', { ...policy, guardians: [], threshold: 0, delayBlocks: 5 }],
  ];
  for (const [name, p] of bad) {
    t.throws(() => payloadFromJson(payloadToJson(p)), { code: 'MALFORMED_PAYLOAD' }, `JSON: ${name}`);
    if (name !== '11 guardians') t.throws(() => fromBinary(binary(p)), { code: 'MALFORMED_PAYLOAD' }, `binary: ${name}`);
  }
  const elevenBytes = concatBytes(Uint8Array.of(8), str(OWNER), Uint8Array.of(11), ...eleven.map(str), Uint8Array.of(1), Uint8Array.of(0, 0, 0, 0));
  t.throws(() => fromBinary(elevenBytes), { code: 'MALFORMED_PAYLOAD' }, 'binary: 11 guardians');
  const json = payloadToJson(policy).SetRecoveryPolicy as Record<string, unknown>;
  const badJson: Array<[string, Record<string, unknown>]> = [
    ['a guardian without network', { ...json, guardians: ['did:ledger:2WRXAwiHCW7rvEpkN1nPmFY5hiUC'] }],
    ['a guardian of another method', { ...json, guardians: ['did:web:example.com'] }],
    ['a bad DID', { ...json, did: 'did:ledger:testnet:0OIl' }],
    ['a fractional threshold', { ...json, threshold: 1.5 }],
    ['a string delay', { ...json, delay_blocks: '100' }],
    ['a negative delay', { ...json, delay_blocks: -1 }],
    ['guardians not an array', { ...json, guardians: G[0] }],
    ['a missing threshold', { did: OWNER, guardians: G, delay_blocks: 1 }],
    ['an extra field', { ...json, owner: OWNER }],
  ];
  for (const [name, body] of badJson) t.throws(() => payloadFromJson({ SetRecoveryPolicy: body }), { code: 'MALFORMED_PAYLOAD' }, name);
  const badDid = concatBytes(Uint8Array.of(8), str('did:ledger:x'), Uint8Array.of(0, 0), Uint8Array.of(0, 0, 0, 0));
  t.throws(() => fromBinary(badDid), { code: 'MALFORMED_PAYLOAD' }, 'binary: a bad DID');
  t.throws(() => fromBinary(binary(policy).slice(0, -1)), { code: 'TRUNCATED' });
});

const sig = (fill: number) => new Uint8Array(64).fill(fill);
const recover: PayloadOf<'DidRecover'> = {
  kind: 'DidRecover',
  did: OWNER,
  newPublicKey: new Uint8Array(32).fill(7),
  signatures: [
    { guardian: G[0]!, signature: sig(8) },
    { guardian: G[1]!, signature: sig(9) },
  ],
};

t.test('DidRecover: tag 9, did, new key, guardian signatures', async (t) => {
  const bytes = binary(recover);
  t.equal(toHex(bytes), toHex(concatBytes(Uint8Array.of(9), str(OWNER), recover.newPublicKey, Uint8Array.of(2), str(G[0]!), sig(8), str(G[1]!), sig(9))));
  t.same(fromBinary(bytes), recover);
  t.same(payloadToJson(recover), {
    DidRecover: {
      did: OWNER,
      new_public_key: '07'.repeat(32),
      signatures: [
        { guardian: G[0], signature: '08'.repeat(64) },
        { guardian: G[1], signature: '09'.repeat(64) },
      ],
    },
  });
  t.same(payloadFromJson(payloadToJson(recover)), recover, 'standard JSON (hex)');
  const raw = payloadToJson(recover, 'raw').DidRecover as { new_public_key: unknown };
  t.same(raw.new_public_key, Array(32).fill(7), 'raw JSON writes byte arrays');
  t.same(payloadFromJson(payloadToJson(recover, 'raw')), recover, 'raw JSON round trip');
});

t.test('DidRecover: both decoders refuse no signatures, more than 10, bad lengths and bad DIDs', async (t) => {
  const many = { ...recover, signatures: Array.from({ length: 11 }, (_, i) => ({ guardian: did(20 + i), signature: sig(i) })) };
  const none = { ...recover, signatures: [] };
  for (const [name, p] of [['11 signatures', many], ['no signature', none]] as const) {
    t.throws(() => payloadFromJson(payloadToJson(p)), { code: 'MALFORMED_PAYLOAD' }, `JSON: ${name}`);
    t.throws(() => fromBinary(binary(p)), { code: 'MALFORMED_PAYLOAD' }, `binary: ${name}`);
  }
  const json = payloadToJson(recover).DidRecover as Record<string, unknown>;
  const badJson: Array<[string, Record<string, unknown>]> = [
    ['a 31-byte key', { ...json, new_public_key: '07'.repeat(31) }],
    ['a 33-byte key', { ...json, new_public_key: '07'.repeat(33) }],
    ['uppercase hex', { ...json, new_public_key: '0A'.repeat(32) }],
    ['a 63-byte signature', { ...json, signatures: [{ guardian: G[0], signature: '08'.repeat(63) }] }],
    ['a bad guardian DID', { ...json, signatures: [{ guardian: 'did:ledger:testnet', signature: '08'.repeat(64) }] }],
    ['a signature with an extra field', { ...json, signatures: [{ guardian: G[0], signature: '08'.repeat(64), weight: 1 }] }],
    ['signatures not an array', { ...json, signatures: {} }],
    ['a bad DID', { ...json, did: 'did:ledger:' }],
    ['a missing key', { did: OWNER, signatures: json.signatures }],
  ];
  for (const [name, body] of badJson) t.throws(() => payloadFromJson({ DidRecover: body }), { code: 'MALFORMED_PAYLOAD' }, name);
  const bytes = binary(recover);
  t.throws(() => fromBinary(bytes.slice(0, -1)), { code: 'TRUNCATED' }, 'a short signature');
  const badGuardian = concatBytes(Uint8Array.of(9), str(OWNER), recover.newPublicKey, Uint8Array.of(1), str('did:web:x'), sig(1));
  t.throws(() => fromBinary(badGuardian), { code: 'MALFORMED_PAYLOAD' }, 'binary: a bad guardian DID');
});

t.test('fees', async (t) => {
  t.equal(FEES.SetRecoveryPolicy, 10_000n);
  t.equal(FEES.DidRecover, 100_000n);
});

t.test('state records: policy and pending recovery', async (t) => {
  const id = (fill: number) => new Uint8Array(ADDRESS_LENGTH).fill(fill);
  t.equal(toHex(recoveryPolicyKey(id(1))), '09' + '01'.repeat(20));
  t.equal(toHex(pendingRecoveryKey(id(1))), '0a' + '01'.repeat(20));
  const p = { guardians: [id(2), id(3)], threshold: 2, delayBlocks: 70_000 };
  const bytes = encodeRecoveryPolicy(p);
  t.equal(toHex(bytes), '02' + '00011170' + '02' + '02'.repeat(20) + '03'.repeat(20));
  t.same(decodeRecoveryPolicy(bytes), p);
  t.throws(() => decodeRecoveryPolicy(encodeRecoveryPolicy({ ...p, guardians: [] , threshold: 0, delayBlocks: 0 })), { code: 'BAD_RECOVERY_RECORD' }, 'no empty policy in state');
  t.throws(() => decodeRecoveryPolicy(encodeRecoveryPolicy({ ...p, guardians: [id(2), id(2)] })), { code: 'BAD_RECOVERY_RECORD' });
  t.throws(() => decodeRecoveryPolicy(encodeRecoveryPolicy({ ...p, threshold: 3 })), { code: 'BAD_RECOVERY_RECORD' });
  t.throws(() => decodeRecoveryPolicy(concatBytes(bytes, Uint8Array.of(0))), { code: 'TRAILING_BYTES' });
  const pending = { newPublicKey: new Uint8Array(32).fill(5), dueHeight: 2 ** 40, versionId: 3, txHash: new Uint8Array(32).fill(6) };
  const pb = encodePendingRecovery(pending);
  t.equal(pb.length, 32 + 8 + 8 + 32);
  t.same(decodePendingRecovery(pb), pending);
  t.throws(() => decodePendingRecovery(pb.slice(1)), { code: 'TRUNCATED' });
});
