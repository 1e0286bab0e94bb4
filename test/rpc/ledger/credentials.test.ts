import t from 'tap';
import { toHex, fromHex } from '../../../node/protocol/bytes.js';
import { formatCredentialId } from '../../../node/protocol/credential-id.js';
import {
  encodeCounter,
  issuerCounterKey,
  revocationListKey,
  type CredentialRecord,
} from '../../../node/protocol/credential-records.js';
import { didForIdentifier } from '../../../node/protocol/did.js';
import { didKey, encodeDid } from '../../../node/protocol/records.js';
import { RevocationList } from '../../../node/protocol/revocation-list.js';
import { nextBlock } from '../../fixtures/chain-blocks.js';
import { credentialPuts, credentialRecord } from '../../fixtures/credential-records.js';
import { loadVectors } from '../../fixtures/vectors.js';
import { NETWORK, errorCode, result, setup } from './harness.js';

const ISSUER = new Uint8Array(20).fill(0x61);
const SUBJECT = new Uint8Array(20).fill(0x62);
const ISSUER_DID = didForIdentifier(NETWORK, ISSUER);
const SUBJECT_DID = didForIdentifier(NETWORK, SUBJECT);
const proof = loadVectors('bbs.json').proofs.valid[2];

const record = (n: number, o: Partial<CredentialRecord> = {}) => credentialRecord(n, { issuer: ISSUER, subject: SUBJECT, ...o });

/** Three credentials of a deactivated issuer: a BBS one, a revoked one, and a request still pending. */
async function withCredentials(t: Parameters<typeof setup>[0]) {
  const node = await setup(t, { allowSubjectEnumeration: true });
  const records = [
    record(1, { bbs: { publicKey: fromHex(proof.signerPublicKey), messageCount: proof.totalMessageCount } }),
    record(2, { revokedMs: 1_800 }),
    record(3, { status: 'pending', attestations: [], issuedMs: 0, consensusRound: 0 }),
  ];
  const puts = [
    { key: didKey(ISSUER), value: encodeDid({ did: ISSUER_DID, publicKey: null, service: [], active: false, createdMs: 1, updatedMs: 2, versionId: 2, txHash: new Uint8Array(32) }) },
    { key: issuerCounterKey(ISSUER), value: encodeCounter(3) },
    { key: revocationListKey(ISSUER, 0), value: RevocationList.empty().revoke(1).toChain() },
    ...credentialPuts(records),
  ];
  await node.store.commitBlock(await nextBlock(node.store, { puts }));
  return { ...node, ids: records.map((c) => formatCredentialId(c.id)) };
}

t.test('credentialVerify: valid until revoked; a deactivated issuer shows, and does not invalidate', async (t) => {
  const { call, ids } = await withCredentials(t);
  const ok = result(await call('ledger_credentialVerify', [ids[0]])) as { valid: boolean; revoked: boolean; credential: Record<string, unknown> };
  t.equal(ok.valid, true);
  t.equal(ok.revoked, false);
  t.match(ok.credential, {
    id: ids[0],
    issuer_did: ISSUER_DID,
    subject_did: SUBJECT_DID,
    credential_type: 'KYCCredential',
    kyc_level: 2,
    hash: toHex(new Uint8Array(32).fill(1)),
    issued_ms: 1_500,
    revoked: false,
    revoked_ms: null,
    status: 'registered',
    issuer_active: false,
    consensus_round: 4,
    validator_signatures: [{ signature: '07'.repeat(64) }],
    bbs_message_count: proof.totalMessageCount,
  });
  t.match(result(await call('ledger_credentialVerify', [ids[1]])), { valid: false, revoked: true, credential: { revoked_ms: 1_800 } });
  t.equal(result(await call('ledger_credentialVerify', [ids[2]])), null, 'a pending request is not a credential yet');
  t.match(result(await call('ledger_getCredentialRequest', [ids[2]])), { status: 'pending', attestations: 0, threshold: 1, deadline_height: 301, issued_ms: null });
  t.same(result(await call('ledger_credentialVerify', [ids[0]!.toUpperCase().replace('URN:LEDGER:CREDENTIAL:', '')])), ok, 'the bare UUID, in any case, works too');
});

t.test('by issuer and by subject: registered records only', async (t) => {
  const { call, ids } = await withCredentials(t);
  const byIssuer = result(await call('ledger_credentialsByIssuer', [ISSUER_DID])) as Array<{ id: string }>;
  t.same(byIssuer.map((c) => c.id), ids.slice(0, 2));
  const bySubject = result(await call('ledger_credentialsBySubject', [SUBJECT_DID])) as Array<{ id: string }>;
  t.same(bySubject.map((c) => c.id), ids.slice(0, 2));
  t.same(result(await call('ledger_credentialsByIssuer', [SUBJECT_DID])), []);
  t.same(result(await call('ledger_nextRevocationIndex', [ISSUER_DID])), { status_list: 0, status_index: 3 });
  t.equal(errorCode(await call('ledger_nextRevocationIndex', [didForIdentifier('mainnet', ISSUER)])), -32602);
});

t.test('bbsVerifyCredentialProof: the key and message count come from the chain', async (t) => {
  const { call, ids } = await withCredentials(t);
  const disclosed = proof.disclosedIndexes.map((index: number, i: number) => ({ index, message: proof.disclosedMessages[i] }));
  const args = [proof.proof, proof.header, proof.presentationHeader, disclosed];
  t.match(result(await call('ledger_bbsVerifyCredentialProof', [ids[0], ...args])), { valid: true, proof_valid: true, is_bbs: true, revoked: false, credential: { id: ids[0] } });
  t.match(result(await call('ledger_bbsVerifyCredentialProof', [ids[0], proof.proof, proof.header, 'ff', disclosed])), { valid: false, proof_valid: false });
  t.match(result(await call('ledger_bbsVerifyCredentialProof', [ids[0], '00', '', '', disclosed])), { valid: false, proof_valid: false }, 'a malformed proof is false');
  t.match(result(await call('ledger_bbsVerifyCredentialProof', [ids[1], ...args])), { valid: false, proof_valid: false, is_bbs: false, revoked: true });
});
