import { LedgerError } from '../../../node/errors.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { verifyRecovery } from '../../../node/protocol/recovery.js';
import { verifyTransactionSignature } from '../../../node/protocol/transaction.js';
import { KeyedSerial } from '../../common/http/router.js';
import { validation } from '../../common/http/problems.js';
import { onlyFields, requiredString } from '../../common/http/validate.js';
import type { WalletCaller } from '../http/router.js';
import type { UserStore } from '../users/store.js';
import { activeDid } from './policy.js';
import { decodeSignedTransaction, type Relay } from '../chain/relay.js';
import { RecoveryInitiation, type InitiateAnswer, type InitiateInput, type InitiationDeps } from './initiate.js';
import type { PowChallenge } from './pow.js';
import { checkApproval, conflict, isCollecting, iso, messageHex, recoveryTarget, requestState, type RecoveryStatus } from './request-state.js';
import type { Approval, GuardianStore, RecoveryRequest } from './store.js';

/**
 * Social recovery through the wallet (docs/protocol.md, "Social recovery"). Someone who lost the
 * key initiates a request for a new key (no session: the old one is gone; initiate.ts says what
 * that costs and how it is limited); the DID's guardians, signed in, each approve with their own
 * key's signature over the canonical recovery message; then anyone finalizes by posting the
 * DidRecover that a client signed, which the wallet relays byte for byte. The chain checks
 * everything again: the wallet's checks only make failures early and clear. The request pins the
 * DID's versionId: once the document changes, the guardians' signatures no longer verify, so the
 * request is stale.
 */

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SIGNATURE_HEX = /^[0-9a-fA-F]{128}$/;

export type { InitiateAnswer, RecoveryStatus };

export interface RecoveryStatusView {
  requestId: string;
  subjectDid: string;
  newPublicKey: string;
  status: RecoveryStatus;
  /** why, for `failed` */
  reason: string | null;
  /** for `pending`: the height at which the chain completes the recovery */
  dueHeight: number | null;
  threshold: number;
  guardians: string[];
  approvals: Approval[];
  versionId: number;
  txHash: string | null;
  createdAt: string;
  expiresAt: string;
}

export interface PendingRequestView {
  requestId: string;
  subjectDid: string;
  subjectName: string | null;
  newPublicKey: string;
  versionId: number;
  threshold: number;
  approvals: number;
  recoveryMessage: string;
  createdAt: string;
  expiresAt: string;
}

export interface RecoveryDeps {
  base: InitiationDeps['base'];
  store: GuardianStore;
  relay: Pick<Relay, 'submit'>;
  users: Pick<UserStore, 'byDid'>;
  throttle?: InitiationDeps['throttle'];
}

export function parseRequestId(text: string): string {
  const id = text.toLowerCase();
  if (!UUID_V4.test(id)) throw validation(`a requestId is a v4 UUID, got ${JSON.stringify(text.slice(0, 60))}`, 'requestId');
  return id;
}

export function parseApproval(body: Record<string, unknown>): string {
  onlyFields(body, ['signature']);
  return requiredString(body, 'signature', { max: 128, pattern: SIGNATURE_HEX, patternText: '128 hex characters (a 64-byte Ed25519 signature)' }).toLowerCase();
}

export class RecoveryService {
  private readonly serial = new KeyedSerial();
  private readonly initiation: RecoveryInitiation;

  constructor(private readonly d: RecoveryDeps) {
    this.initiation = new RecoveryInitiation({ base: d.base, store: d.store, serial: this.serial, ...(d.throttle ? { throttle: d.throttle } : {}) });
  }

  /** A proof-of-work challenge for initiate. */
  challenge(): Promise<PowChallenge> {
    return this.initiation.challenge();
  }

  initiate(input: InitiateInput, remote: string): Promise<{ answer: InitiateAnswer; created: boolean }> {
    return this.initiation.initiate(input, remote);
  }

  /** The caller, a guardian of the request, adds its signature; it must verify under its DID's current key. */
  async approve(requestId: string, caller: WalletCaller, signature: string): Promise<RecoveryStatusView> {
    return this.serial.run(requestId, async () => {
      const r = await this.require(requestId);
      if (r.approvals.some((a) => a.guardianDid === caller.did)) throw conflict('ALREADY_APPROVED', 'you already approved this recovery');
      await this.requireCollecting(r);
      await checkApproval(this.d.base, r, caller.did, signature);
      const done = await this.d.store.updateRequest(requestId, (x) => ({ ...x, approvals: [...x.approvals, { guardianDid: caller.did, signature, approvedAt: iso(this.d.base.now()) }] }));
      return this.view(done);
    });
  }

  /**
   * Relays the client-signed DidRecover for this request, the original text unchanged. Every
   * guardian signature it carries must be by a guardian of the request and verify now (those
   * collected by `approve` did; others, gathered elsewhere, are checked the same way), and there
   * must be at least `threshold` of them. The signatures go into the request's approvals.
   */
  async finalize(requestId: string, text: string): Promise<{ requestId: string; hash: string; status: 'submitted' }> {
    return this.serial.run(requestId, async () => {
      const r = await this.require(requestId);
      const { tx, hash } = decodeSignedTransaction(text, this.d.base.chainId);
      if (r.txHash === hash) return { requestId, hash, status: 'submitted' as const };
      const state = await requestState(this.d.base, r);
      if (state.status === 'pending' || state.status === 'completed') throw conflict('RECOVERY_DONE', `this recovery is already ${state.status}`);
      if (state.status === 'submitted') throw conflict('RECOVERY_SUBMITTED', `a DidRecover for this request (${r.txHash}) is waiting for its block`);
      if (state.status === 'expired' || (state.status === 'failed' && r.txHash === null)) throw conflict('RECOVERY_CLOSED', state.reason ?? `this recovery request expired at ${r.expiresAt}`);
      const { record } = await activeDid(this.d.base, r.subjectDid, 'payload');
      if (record.versionId !== r.versionId) throw conflict('RECOVERY_STALE', `the DID changed since the request was made (versionId ${r.versionId}, now ${record.versionId}); initiate a new request`);
      const p = tx.payload;
      if (p.kind !== 'DidRecover') throw validation(`finalize relays a DidRecover, not a ${p.kind}`, 'payload');
      if (p.did !== r.subjectDid) throw validation(`the DidRecover is for ${p.did}; this request recovers ${r.subjectDid}`, 'payload');
      if (toHex(p.newPublicKey) !== r.newPublicKey) throw validation('the DidRecover\'s new_public_key is not the request\'s newPublicKey', 'payload');
      const approvals = await this.checkSignatures(r, p.signatures);
      if (!verifyTransactionSignature(this.d.base.chainId, tx)) throw validation('the transaction signature does not verify under sender_pubkey', 'signature');
      const submitted = await this.d.relay.submit(text);
      const now = iso(this.d.base.now());
      await this.d.store.updateRequest(requestId, (x) => {
        const known = new Set(x.approvals.map((a) => a.guardianDid));
        const added = approvals.filter((a) => !known.has(a.guardianDid)).map((a) => ({ ...a, approvedAt: now }));
        return { ...x, approvals: [...x.approvals, ...added], status: 'submitted', txHash: submitted, submittedAt: now };
      });
      return { requestId, hash: submitted, status: 'submitted' as const };
    });
  }

  async status(requestId: string): Promise<RecoveryStatusView> {
    return this.view(await this.require(requestId));
  }

  /**
   * Open requests the caller is a guardian of and has not approved, that can still be approved:
   * one per DID and new key (initiate keeps one request per pair; older records may repeat one).
   */
  async pendingFor(caller: WalletCaller): Promise<PendingRequestView[]> {
    const out: PendingRequestView[] = [];
    const seen = new Set<string>();
    for (const r of await this.d.store.requestsForGuardian(caller.did)) {
      if (r.approvals.some((a) => a.guardianDid === caller.did) || seen.has(`${r.subjectDid} ${r.newPublicKey}`)) continue;
      const state = await requestState(this.d.base, r);
      if (state.status === 'expired') await this.serial.run(r.requestId, () => this.d.store.updateRequest(r.requestId, (x) => (x.status === 'open' ? { ...x, status: 'expired' } : x)));
      if (!isCollecting(state)) continue;
      seen.add(`${r.subjectDid} ${r.newPublicKey}`);
      const subject = await this.d.users.byDid(r.subjectDid);
      out.push({
        requestId: r.requestId,
        subjectDid: r.subjectDid,
        subjectName: subject?.displayName ?? subject?.handle ?? null,
        newPublicKey: r.newPublicKey,
        versionId: r.versionId,
        threshold: r.threshold,
        approvals: r.approvals.length,
        recoveryMessage: messageHex(this.d.base.chainId, r),
        createdAt: r.createdAt,
        expiresAt: r.expiresAt,
      });
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  private async checkSignatures(r: RecoveryRequest, signatures: ReadonlyArray<{ guardian: string; signature: Uint8Array }>): Promise<Array<{ guardianDid: string; signature: string }>> {
    const seen = new Set<string>();
    const out: Array<{ guardianDid: string; signature: string }> = [];
    for (const s of signatures) {
      if (seen.has(s.guardian)) throw validation(`guardian ${s.guardian} signs twice`, 'payload');
      seen.add(s.guardian);
      if (!r.guardians.includes(s.guardian)) throw validation(`${s.guardian} is not a guardian of this recovery`, 'payload');
      const signature = toHex(s.signature);
      if (!r.approvals.some((a) => a.guardianDid === s.guardian && a.signature === signature)) {
        const guardian = await activeDid(this.d.base, s.guardian, 'payload');
        if (!verifyRecovery(guardian.publicKey, s.signature, recoveryTarget(this.d.base.chainId, r))) throw validation(`the signature of guardian ${s.guardian} does not verify (its current key, versionId ${r.versionId})`, 'payload');
      }
      out.push({ guardianDid: s.guardian, signature });
    }
    if (out.length < r.threshold) throw validation(`the DidRecover carries ${out.length} guardian signatures; the policy needs ${r.threshold}`, 'payload');
    return out;
  }

  private async require(requestId: string): Promise<RecoveryRequest> {
    const r = await this.d.store.getRequest(requestId);
    if (!r) throw new LedgerError('RECOVERY_NOT_FOUND', `no recovery request ${requestId}`, 'not_found');
    return r;
  }

  /** 409 unless the request still collects approvals: not submitted, not expired, the DID unchanged. */
  private async requireCollecting(r: RecoveryRequest): Promise<void> {
    const state = await requestState(this.d.base, r);
    if (isCollecting(state)) return;
    throw conflict(state.status === 'failed' ? 'RECOVERY_STALE' : 'RECOVERY_CLOSED', state.reason ?? `this recovery is ${state.status}; it takes no more approvals`);
  }

  private async view(r: RecoveryRequest): Promise<RecoveryStatusView> {
    const state = await requestState(this.d.base, r);
    return {
      requestId: r.requestId,
      subjectDid: r.subjectDid,
      newPublicKey: r.newPublicKey,
      status: state.status,
      reason: state.reason,
      dueHeight: state.dueHeight,
      threshold: r.threshold,
      guardians: r.guardians,
      approvals: r.approvals,
      versionId: r.versionId,
      txHash: r.txHash,
      createdAt: r.createdAt,
      expiresAt: r.expiresAt,
    };
  }
}
