import { ecvrfVerifyCached } from '../crypto/ecvrf.js';
import { addressBytesFromPublicKey, formatAddress } from '../protocol/address.js';
import { bytesEqual } from '../protocol/bytes.js';
import { attestationThreshold, committeeSeed, isSelected, verifyAttestation } from '../protocol/committee.js';
import { formatCredentialId } from '../protocol/credential-id.js';
import { credentialByIssuerKey, credentialBySubjectKey, encodeCounter, INDEX_MARKER, issuerCounterKey, revocationListKey, type CredentialRecord } from '../protocol/credential-records.js';
import { authenticationKeys } from '../protocol/did-document.js';
import { didForIdentifier } from '../protocol/did.js';
import { ATTESTATION_WINDOW } from '../protocol/params.js';
import type { PayloadOf } from '../protocol/payloads.js';
import type { ReceiptEvent } from '../protocol/receipt.js';
import { REVOCATION_LIST_ENTRIES, RevocationList } from '../protocol/revocation-list.js';
import type { PayloadResult, TxContext } from './context.js';
import { readCredential, readIssuerCounter, writeCredential } from './credential-state.js';
import type { StateOverlay } from './overlay.js';
import { MAX_TASKS_PER_HEIGHT, SCHEDULED_KINDS, scheduleTask, taskCount } from './scheduled.js';
import { credit, debit, readActiveDid, readDid } from './state-access.js';
import { readGovernance } from './chain-params.js';
import { disqualifyHolder } from './eligibility.js';
import { readValidatorSet } from './validator-set.js';

/**
 * Credential issuance and revocation (docs/protocol.md, "Credential issuance"): a request from the
 * issuer, attestations from a VRF-selected committee, registration at the threshold, expiry at the
 * deadline, revocation by the issuer or the governance key.
 */

export async function credentialRequest(
  state: StateOverlay,
  ctx: TxContext,
  senderPubkey: Uint8Array,
  p: PayloadOf<'CredentialRequest'>,
  txHash: Uint8Array,
): Promise<PayloadResult> {
  const id = formatCredentialId(p.credentialId);
  const issuer = await readActiveDid(state, ctx.network, p.issuer, 'issuer DID');
  if ('failure' in issuer) return issuer;
  if (!authenticationKeys(issuer.record).some((k) => bytesEqual(k, senderPubkey))) return { failure: `not signed by the issuer DID's authentication key: ${p.issuer}` };
  const subject = await readActiveDid(state, ctx.network, p.subject, 'subject DID');
  if ('failure' in subject) return subject;
  if (await readCredential(state, p.credentialId)) return { failure: `credential id already in use: ${id}` };
  const next = await readIssuerCounter(state, issuer.identifier);
  const list = Math.floor(next / REVOCATION_LIST_ENTRIES);
  const index = next % REVOCATION_LIST_ENTRIES;
  if (p.statusList !== list || p.statusIndex !== index) {
    return { failure: `revocation position (list ${p.statusList}, index ${p.statusIndex}) is not the issuer's next free position (list ${list}, index ${index})` };
  }
  const set = await readValidatorSet(state);
  if (!set || set.validators.length === 0) return { failure: 'the chain has no validator set to attest credentials' };
  const deadlineHeight = ctx.height + ATTESTATION_WINDOW;
  // a block holds far fewer transactions than this; the cap keeps the deadline list bounded anyway
  if ((await taskCount(state, deadlineHeight)) >= MAX_TASKS_PER_HEIGHT) return { failure: `too many requests already close at height ${deadlineHeight}; send it again in a later block` };
  if (!(await debit(state, addressBytesFromPublicKey(senderPubkey), p.fee))) return { failure: `insufficient balance for the issuance fee ${p.fee}` };

  writeCredential(state, {
    id: p.credentialId,
    credentialType: p.credentialType,
    kycLevel: p.kycLevel,
    issuer: issuer.identifier,
    subject: subject.identifier,
    hash: p.hash,
    evidenceDigest: p.evidenceDigest,
    fee: p.fee,
    statusList: list,
    statusIndex: index,
    ...(p.bbs ? { bbs: p.bbs } : {}),
    status: 'pending',
    requestHeight: ctx.height,
    deadlineHeight,
    seed: committeeSeed(ctx.chainId, ctx.parentHash, p.credentialId),
    threshold: attestationThreshold(set.validators.length),
    attestations: [],
    issuedMs: 0,
    consensusRound: 0,
    revokedMs: null,
    txHash,
  });
  state.put(issuerCounterKey(issuer.identifier), encodeCounter(next + 1));
  state.put(credentialByIssuerKey(issuer.identifier, p.credentialId), INDEX_MARKER);
  state.put(credentialBySubjectKey(subject.identifier, p.credentialId), INDEX_MARKER);
  await scheduleTask(state, deadlineHeight, { kind: SCHEDULED_KINDS.credentialDeadline, id: p.credentialId });
  return { events: [{ type: 'CredentialRequested', id, issuer: p.issuer, subject: p.subject, deadline_height: deadlineHeight }] };
}

function notPending(c: CredentialRecord): string | undefined {
  const id = formatCredentialId(c.id);
  if (c.status === 'registered') return `credential ${id} is already registered`;
  if (c.status === 'expired') return `credential request ${id} expired at height ${c.deadlineHeight}`;
  return undefined;
}

export async function credentialAttest(state: StateOverlay, ctx: TxContext, senderPubkey: Uint8Array, p: PayloadOf<'CredentialAttest'>): Promise<PayloadResult> {
  const id = formatCredentialId(p.credentialId);
  const c = await readCredential(state, p.credentialId);
  if (!c) return { failure: `no credential request ${id}` };
  const closed = notPending(c);
  if (closed) return { failure: closed };
  const validator = addressBytesFromPublicKey(senderPubkey);
  const set = await readValidatorSet(state);
  const member = set?.validators.find((v) => bytesEqual(v.address, validator));
  if (!set || !member) return { failure: `${formatAddress(validator)} is not in the current validator set` };
  if (c.attestations.some((a) => bytesEqual(a.validator, validator))) return { failure: `${formatAddress(validator)} already attested credential ${id}` };
  // memoized by the exact inputs: the answer is the one verifying again would give
  const beta = ecvrfVerifyCached(senderPubkey, c.seed, p.vrfProof);
  if (!beta) return { failure: `the VRF proof does not verify for the seed of credential request ${id}` };
  const total = set.validators.reduce((n, v) => n + v.weight, 0n);
  if (!isSelected(beta, member.weight, total, set.validators.length)) return { failure: `${formatAddress(validator)} is not in the committee of credential request ${id}` };
  if (!verifyAttestation(senderPubkey, p.signature, ctx.chainId, c.id, c.hash)) return { failure: 'the attestation signature does not verify over the credential hash' };

  c.attestations.push({ validator, vrfProof: p.vrfProof, signature: p.signature });
  const events: ReceiptEvent[] = [{ type: 'CredentialAttested', id, validator: formatAddress(validator), attestations: c.attestations.length }];
  if (c.attestations.length >= c.threshold) {
    c.status = 'registered';
    c.issuedMs = ctx.timestampMs;
    c.consensusRound = ctx.round;
    await payAttesters(state, c);
    events.push({ type: 'CredentialRegistered', id, consensus_round: ctx.round });
  }
  writeCredential(state, c);
  return { events };
}

/** The issuance fee, split evenly among the attesters that registered the credential; the remainder goes to the first. */
async function payAttesters(state: StateOverlay, c: CredentialRecord): Promise<void> {
  const n = BigInt(c.attestations.length);
  const share = c.fee / n;
  for (const [i, a] of c.attestations.entries()) await credit(state, a.validator, i === 0 ? share + (c.fee - share * n) : share);
}

/** Runs at the deadline height, after its transactions: a request still pending expires and its fee goes back. */
export async function expireCredentialRequest(state: StateOverlay, id: Uint8Array): Promise<void> {
  const c = await readCredential(state, id);
  if (!c || c.status !== 'pending') return;
  writeCredential(state, { ...c, status: 'expired' });
  await credit(state, c.issuer, c.fee);
}

export async function credentialRevoke(state: StateOverlay, ctx: TxContext, senderPubkey: Uint8Array, p: PayloadOf<'CredentialRevoke'>): Promise<PayloadResult> {
  const id = formatCredentialId(p.credentialId);
  const c = await readCredential(state, p.credentialId);
  if (!c) return { failure: `no credential ${id}` };
  if (c.status === 'pending') return { failure: `credential ${id} is not registered yet` };
  if (c.status === 'expired') return { failure: `credential request ${id} expired at height ${c.deadlineHeight}` };
  if (c.revokedMs !== null) return { failure: `credential ${id} is already revoked` };
  const issuerDid = await readDid(state, c.issuer);
  const byIssuer = issuerDid !== undefined && authenticationKeys(issuerDid).some((k) => bytesEqual(k, senderPubkey));
  const governance = await readGovernance(state);
  const byGovernance = governance !== undefined && bytesEqual(governance, addressBytesFromPublicKey(senderPubkey));
  if (!byIssuer && !byGovernance) return { failure: `only the issuer ${didForIdentifier(ctx.network, c.issuer)} or the governance key can revoke credential ${id}` };

  const key = revocationListKey(c.issuer, c.statusList);
  const stored = await state.get(key);
  const list = stored ? RevocationList.fromChain(stored) : RevocationList.empty();
  state.put(key, list.revoke(c.statusIndex).toChain());
  writeCredential(state, { ...c, revokedMs: ctx.timestampMs });
  await disqualifyHolder(state, c);
  return { events: [{ type: 'CredentialRevoked', id, status_list: c.statusList, status_index: c.statusIndex }] };
}
