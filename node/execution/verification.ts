import { ecvrfVerifyCached } from '../crypto/ecvrf.js';
import { addressBytesFromPublicKey, formatAddress } from '../protocol/address.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import { attestationThreshold, COMMITTEE_SIZE, committeeSize, isSelected, verificationCommitteeSeed } from '../protocol/committee.js';
import { authenticationKeys } from '../protocol/did-document.js';
import { INDEX_MARKER } from '../protocol/credential-records.js';
import type { PayloadOf, VerificationAnswerItem } from '../protocol/payloads.js';
import type { ReceiptEvent } from '../protocol/receipt.js';
import type { Transaction } from '../protocol/transaction.js';
import { encodeClaims, verifyAnswer } from '../protocol/verification-answer.js';
import { decodeVerification, encodeVerification, requestKeyOf, verificationBySubjectKey, verificationKey, type VerificationRecord } from '../protocol/verification-records.js';
import { DEFAULT_VALID_FOR_BLOCKS, requestVerified } from '../protocol/verification.js';
import type { PayloadResult, TxContext } from './context.js';
import type { StateOverlay, StateReader } from './overlay.js';
import { MAX_TASKS_PER_HEIGHT, SCHEDULED_KINDS, scheduleTask, taskCount } from './scheduled.js';
import { credit, debit, readActiveDid } from './state-access.js';
import { readValidatorSet, type EpochValidatorSet } from './validator-set.js';

/**
 * Verification requests (docs/protocol.md, "Verification requests and responses"): a relying
 * party's signed request holds its fee; the subject presents off chain to a VRF-drawn committee;
 * each member's answer carries its claim results and signature; the answers that agree reach the
 * threshold and make the response final, or the deadline passes and the fee goes back.
 */

export async function readVerification(state: StateReader, requestKey: Uint8Array): Promise<VerificationRecord | undefined> {
  const bytes = await state.get(verificationKey(requestKey));
  return bytes ? decodeVerification(bytes) : undefined;
}

function writeVerification(state: StateOverlay, requestKey: Uint8Array, v: VerificationRecord): void {
  state.put(verificationKey(requestKey), encodeVerification(v));
}

export async function verificationRequest(state: StateOverlay, ctx: TxContext, tx: Transaction, p: PayloadOf<'VerificationRequest'>, txHash: Uint8Array): Promise<PayloadResult> {
  const r = p.request;
  if (r.chainId !== ctx.chainId) return { failure: `the request names chain ${r.chainId}, not ${ctx.chainId}` };
  if (BigInt(r.nonce) !== tx.nonce) return { failure: `the request's nonce ${r.nonce} is not the transaction's ${tx.nonce}` };
  const requester = await readActiveDid(state, ctx.network, r.requester.did, 'requester DID');
  if ('failure' in requester) return requester;
  if (!authenticationKeys(requester.record).some((k) => bytesEqual(k, tx.senderPubkey))) return { failure: `not signed by the requester DID's authentication key: ${r.requester.did}` };
  const subject = await readActiveDid(state, ctx.network, r.subject.did, 'subject DID');
  if ('failure' in subject) return subject;
  const key = requestKeyOf(r.requestId);
  if (await state.get(verificationKey(key))) return { failure: `requestId already used: ${r.requestId}` };
  const set = await readValidatorSet(state);
  if (!set || set.validators.length === 0) return { failure: 'the chain has no validator set to answer requests' };
  const deadlineHeight = ctx.height + (r.validForBlocks ?? DEFAULT_VALID_FOR_BLOCKS);
  if ((await taskCount(state, deadlineHeight)) >= MAX_TASKS_PER_HEIGHT) return { failure: `too many tasks already fall due at height ${deadlineHeight}; send it again in a later block` };
  const fee = BigInt(r.fee);
  if (!(await debit(state, requester.identifier, fee))) return { failure: `insufficient balance for the verification fee ${fee}` };

  writeVerification(state, key, {
    request: r,
    signature: tx.signature,
    requester: requester.identifier,
    subject: subject.identifier,
    fee,
    status: 'pending',
    requestHeight: ctx.height,
    requestMs: ctx.timestampMs,
    deadlineHeight,
    seed: verificationCommitteeSeed(ctx.chainId, ctx.parentHash, key),
    threshold: attestationThreshold(set.validators.length),
    committeeSize: committeeSize(set.validators.length),
    answers: [],
    txHash,
  });
  state.put(verificationBySubjectKey(subject.identifier, key), INDEX_MARKER);
  await scheduleTask(state, deadlineHeight, { kind: SCHEDULED_KINDS.verificationDeadline, id: key });
  return { events: [{ type: 'VerificationRequested', request_id: r.requestId, requester: r.requester.did, subject: r.subject.did, deadline_height: deadlineHeight }] };
}

export async function verificationAnswer(state: StateOverlay, ctx: TxContext, senderPubkey: Uint8Array, p: VerificationAnswerItem): Promise<PayloadResult> {
  const key = requestKeyOf(p.requestId);
  const v = await readVerification(state, key);
  if (!v) return { failure: `no verification request ${p.requestId}` };
  if (v.status === 'final') return { failure: `verification request ${p.requestId} is already final` };
  if (v.status === 'expired') return { failure: `verification request ${p.requestId} expired at height ${v.deadlineHeight}` };
  const validator = addressBytesFromPublicKey(senderPubkey);
  const set = await readValidatorSet(state);
  const member = set?.validators.find((m) => bytesEqual(m.address, validator));
  if (!set || !member) return { failure: `${formatAddress(validator)} is not in the current validator set` };
  if (v.answers.some((a) => bytesEqual(a.publicKey, senderPubkey))) return { failure: `${formatAddress(validator)} already answered verification request ${p.requestId}` };
  const seat = committeeSeatFailure(set, member.weight, senderPubkey, v.seed, p.vrfProof);
  if (seat) return { failure: `${seat} (verification request ${p.requestId})` };
  const required = v.request.requiredClaims;
  if (p.claims.length !== required.length || p.claims.some((c, i) => c.type !== required[i]!.type)) {
    return { failure: `the answer must hold one result per required claim, in order: ${required.map((c) => c.type).join(', ')}` };
  }
  if (!verifyAnswer(senderPubkey, p.signature, ctx.chainId, p.requestId, p.presentationHash, p.claims)) return { failure: 'the answer signature does not verify over its claim results' };

  v.answers.push({ publicKey: senderPubkey, presentationHash: p.presentationHash, claims: p.claims, signature: p.signature });
  const events: ReceiptEvent[] = [{ type: 'VerificationAnswered', request_id: p.requestId, validator: formatAddress(validator), answers: v.answers.length }];
  // members agree when they signed the same bytes: the same presentation and the same results
  const mine = agreementKey(v.answers.at(-1)!);
  const agreed = v.answers.flatMap((a, i) => (agreementKey(a) === mine ? [i] : []));
  if (agreed.length >= v.threshold) {
    const verified = requestVerified(v.request.requiredClaims, p.claims);
    v.status = 'final';
    v.outcome = { verified, agreed, height: ctx.height, round: ctx.round, finalMs: ctx.timestampMs };
    await payMembers(state, v.fee, agreed.map((i) => addressBytesFromPublicKey(v.answers[i]!.publicKey)));
    events.push({ type: 'VerificationFinalized', request_id: p.requestId, verified, consensus_round: ctx.round });
  }
  writeVerification(state, key, v);
  return { events };
}

/**
 * Each answer applies or is refused on its own, as if it were its own transaction: an answer to a
 * request that others' answers closed meanwhile must not cost the batch's other answers. A refused
 * answer writes nothing (verificationAnswer writes only once it applies) and leaves a
 * VerificationAnswerRefused event; the batch fails only when every answer is refused.
 */
export async function verificationAnswerBatch(state: StateOverlay, ctx: TxContext, senderPubkey: Uint8Array, p: PayloadOf<'VerificationAnswerBatch'>): Promise<PayloadResult> {
  const events: ReceiptEvent[] = [];
  const refused: string[] = [];
  for (const answer of p.answers) {
    const result = await verificationAnswer(state, ctx, senderPubkey, answer);
    if ('events' in result) {
      events.push(...result.events);
      continue;
    }
    refused.push(result.failure);
    events.push({ type: 'VerificationAnswerRefused', request_id: answer.requestId, validator: formatAddress(addressBytesFromPublicKey(senderPubkey)), reason: result.failure });
  }
  if (refused.length === p.answers.length) return { failure: refused.length === 1 ? refused[0]! : `all ${refused.length} answers refused; the first: ${refused[0]}` };
  return { events };
}

/**
 * Up to 21 validators, every member sits on every committee: a VRF proof would prove nothing, so
 * the answer carries none (and must not, so that an answer has one encoding). Past 21, the proof
 * must verify for the request's seed and its output select the member.
 */
function committeeSeatFailure(set: EpochValidatorSet, weight: bigint, senderPubkey: Uint8Array, seed: Uint8Array, vrfProof: Uint8Array | undefined): string | undefined {
  const n = set.validators.length;
  if (n <= COMMITTEE_SIZE) return vrfProof ? `a set of ${n} validators is the whole committee; the answer carries no VRF proof` : undefined;
  if (!vrfProof) return `a set of ${n} validators draws its committee by VRF; the answer needs its VRF proof`;
  const beta = ecvrfVerifyCached(senderPubkey, seed, vrfProof);
  if (!beta) return 'the VRF proof does not verify for the request\'s seed';
  const total = set.validators.reduce((sum, m) => sum + m.weight, 0n);
  if (!isSelected(beta, weight, total, n)) return `${formatAddress(addressBytesFromPublicKey(senderPubkey))} is not in the committee`;
  return undefined;
}

function agreementKey(a: { presentationHash: Uint8Array; claims: Parameters<typeof encodeClaims>[0] }): string {
  return toHex(a.presentationHash) + toHex(encodeClaims(a.claims));
}

/** The request's fee, split evenly among the members that agreed; the remainder goes to the first. */
async function payMembers(state: StateOverlay, fee: bigint, members: Uint8Array[]): Promise<void> {
  const n = BigInt(members.length);
  const share = fee / n;
  for (const [i, m] of members.entries()) await credit(state, m, i === 0 ? share + (fee - share * n) : share);
}

/** Runs at the deadline height, after its transactions: a request still pending expires and its fee goes back. */
export async function expireVerificationRequest(state: StateOverlay, requestKey: Uint8Array): Promise<void> {
  const v = await readVerification(state, requestKey);
  if (!v || v.status !== 'pending') return;
  writeVerification(state, requestKey, { ...v, status: 'expired' });
  await credit(state, v.requester, v.fee);
}
