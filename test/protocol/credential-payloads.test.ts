import t from 'tap';
import { binary, fromBinary } from '../fixtures/payload-bytes.js';
import { UNIT } from '../../node/protocol/amount.js';
import { ByteReader, ByteWriter } from '../../node/protocol/bytes.js';
import { decodeCredential, encodeCredential, type CredentialRecord } from '../../node/protocol/credential-records.js';
import { didForIdentifier } from '../../node/protocol/did.js';
import { decodePayload, encodePayload, payloadFromJson, payloadToJson, type Payload } from '../../node/protocol/payloads.js';

const ISSUER = didForIdentifier('testnet', new Uint8Array(20).fill(1));
const SUBJECT = didForIdentifier('testnet', new Uint8Array(20).fill(2));
const ID = 'urn:ledger:credential:0f8fad5b-d9cb-469f-a165-70867728950e';

function request(o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    CredentialRequest: {
      credential_id: ID,
      credential_type: 'KYCCredential',
      kyc_level: 2,
      subject_did: SUBJECT,
      issuer_did: ISSUER,
      hash: 'aa'.repeat(32),
      evidence_digest: 'bb'.repeat(32),
      fee: (5n * UNIT).toString(),
      status_list: 0,
      status_index: 7,
      ...o,
    },
  };
}

t.test('the three credential payloads round-trip through JSON and binary', async (t) => {
  const samples = [
    request(),
    request({ credential_type: 'EmailVerificationCredential', kyc_level: undefined, fee: '1000000', bbs_public_key: 'cc'.repeat(96), bbs_message_count: 10 }),
    { CredentialAttest: { credential_id: ID, vrf_proof: '01'.repeat(80), signature: '02'.repeat(64) } },
    { CredentialRevoke: { credential_id: ID.toUpperCase().replace('URN:LEDGER:CREDENTIAL:', 'urn:ledger:credential:') } },
  ];
  for (const json of samples) {
    const clean = JSON.parse(JSON.stringify(json));
    const p = payloadFromJson(clean);
    t.same(fromBinary(binary(p)), p, `${Object.keys(clean)[0]} binary`);
    t.same(payloadFromJson(JSON.parse(JSON.stringify(payloadToJson(p), (_k, v) => (typeof v === 'bigint' ? v.toString() : v)))), p, `${Object.keys(clean)[0]} JSON`);
  }
  t.equal((payloadToJson(payloadFromJson(samples[3]!)).CredentialRevoke as { credential_id: string }).credential_id, ID, 'ids come out as the lowercase URN');
});

t.test('malformed requests are refused with the field and the rule', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ status_index: 131_072 }, /status_index 131072 is out of range: a revocation list has 131072 entries/],
    [{ status_index: -1 }, /status_index must be an integer/],
    [{ fee: '100' }, /fee must be the issuance fee of KYCCredential level 2: 500000000 \(5 LGR\), got 100/],
    [{ kyc_level: 4 }, /kyc_level must be an integer from 1 to 3/],
    [{ kyc_level: undefined }, /a KYCCredential has level 1, 2 or 3/],
    [{ credential_type: 'EmailVerificationCredential', fee: '1000000' }, /EmailVerificationCredential has no KYC level/],
    [{ credential_type: 'PassportCredential' }, /credential_type must be one of/],
    [{ credential_id: 'urn:ledger:credential:not-a-uuid' }, /credential_id: not a credential id/],
    [{ subject_did: ISSUER }, /the subject and the issuer must be different DIDs/],
    [{ subject_did: 'did:ledger:abc' }, /subject_did: not a did:ledger DID/],
    [{ hash: 'aa' }, /hash must be 32 bytes/],
    [{ bbs_public_key: 'cc'.repeat(96) }, /bbs_public_key and bbs_message_count come together/],
    [{ bbs_public_key: 'cc'.repeat(96), bbs_message_count: 0 }, /bbs_message_count must be an integer from 1 to 1024/],
    [{ extra: 1 }, /CredentialRequest has no field "extra"/],
  ];
  for (const [o, re] of cases) {
    const json = JSON.parse(JSON.stringify(request(o)));
    t.throws(() => payloadFromJson(json), re, JSON.stringify(o));
  }
});

t.test('the binary decoder enforces the same rules', async (t) => {
  const p = payloadFromJson(request());
  const w = new ByteWriter();
  encodePayload(w, { ...p, statusIndex: 131_072 } as Payload);
  t.throws(() => decodePayload(new ByteReader(w.finish())), /status_index 131072 is out of range/);
  const fee = new ByteWriter();
  encodePayload(fee, { ...p, fee: 1n } as Payload);
  t.throws(() => decodePayload(new ByteReader(fee.finish())), /fee must be the issuance fee/);
});

t.test('credential records encode canonically', async (t) => {
  const c: CredentialRecord = {
    id: new Uint8Array(16).fill(1),
    credentialType: 'KYCCredential',
    kycLevel: 2,
    issuer: new Uint8Array(20).fill(2),
    subject: new Uint8Array(20).fill(3),
    hash: new Uint8Array(32).fill(4),
    evidenceDigest: new Uint8Array(32).fill(5),
    fee: 5n * UNIT,
    statusList: 1,
    statusIndex: 9,
    bbs: { publicKey: new Uint8Array(96).fill(6), messageCount: 4 },
    status: 'registered',
    requestHeight: 10,
    deadlineHeight: 310,
    seed: new Uint8Array(32).fill(7),
    threshold: 3,
    attestations: [{ validator: new Uint8Array(20).fill(8), vrfProof: new Uint8Array(80).fill(9), signature: new Uint8Array(64).fill(10) }],
    issuedMs: 1234,
    consensusRound: 12,
    revokedMs: 5678,
    txHash: new Uint8Array(32).fill(11),
  };
  t.same(decodeCredential(encodeCredential(c)), c);
  const { bbs: _none, ...plain } = c;
  t.same(decodeCredential(encodeCredential({ ...plain, revokedMs: null })), { ...plain, revokedMs: null });
  t.throws(() => decodeCredential(Uint8Array.of(...encodeCredential(c), 0)), /unexpected bytes/);
});
