import { randomUUID } from 'node:crypto';
import { LedgerError } from '../../../node/errors.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { parseDid } from '../../../node/protocol/did.js';
import { recoveryMessage, verifyRecovery } from '../../../node/protocol/recovery.js';
import { SUCCESS } from '../../../node/protocol/receipt.js';
import { verifyTransactionSignature } from '../../../node/protocol/transaction.js';
import { KeyedSerial } from '../../common/http/router.js';
import { HttpProblem, validation } from '../../common/http/problems.js';
import { Throttle, type ThrottleRule } from '../../common/http/throttle.js';
import { DID_PATTERN, onlyFields, requiredString } from '../../common/http/validate.js';
import type { WalletCaller } from '../http/router.js';
import type { WalletBase } from '../services.js';
import type { UserStore } from '../users/store.js';
import { activeDid, forbidden } from './policy.js';
import { decodeSignedTransaction, type Relay } from '../chain/relay.js';
import type { Approval, GuardianStore, RecoveryRequest } from './store.js';

/**
 * Social recovery through the wallet (docs/protocol.md, "Social recovery"). Someone who lost the
 * key initiates a request for a new key (no session: the old one is gone); the DID's guardians,
 * signed in, each approve with their own key's signature over the canonical recovery message;
 * then anyone finalizes by posting the DidRecover that a client signed, which the wallet relays
 * byte for byte. The chain checks everything again: the wallet's checks only make failures early
 * and clear. The request pins the DID's versionId: once the document changes, the guardians'
 * signatures no longer verify, so the request is stale.
 */

/** initiations a remote address, and a DID, may make in the window: a DID's guardians get no flood of requests */
export const INITIATE_PER_ADDRESS: ThrottleRule = { max: 10, windowMs: 60 * 60_000 };
export const INITIATE_PER_DID: ThrottleRule = { max: 5, windowMs: 60 * 60_000 };

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const KEY_HEX = /^[0-9a-fA-F]{64}$/;
const SIGNATURE_HEX = /^[0-9a-fA-F]{128}$/;

export type RecoveryStatus = 'collecting' | 'ready' | 'submitted' | 'pending' | 'completed' | 'failed' | 'expired';

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

export interface InitiateAnswer {
  requestId: string;
  subjectDid: string;
  newPublicKey: string;
  versionId: number;
  threshold: number;
  guardians: string[];
  /** hex of the exact bytes each guardian signs */
  recoveryMessage: string;
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
  base: Pick<WalletBase, 'config' | 'chain' | 'network' | 'chainId' | 'now'>;
  store: GuardianStore;
  relay: Pick<Relay, 'submit'>;
  users: Pick<UserStore, 'byDid'>;
  throttle?: { perAddress?: ThrottleRule; perDid?: ThrottleRule };
}

export function parseRequestId(text: string): string {
  const id = text.toLowerCase();
  if (!UUID_V4.test(id)) throw validation(`a requestId is a v4 UUID, got ${JSON.stringify(text.slice(0, 60))}`, 'requestId');
  return id;
}

export function parseInitiate(body: Record<string, unknown>): { subjectDid: string; newPublicKey: string } {
  onlyFields(body, ['subjectDid', 'newPublicKey']);
  const subjectDid = requiredString(body, 'subjectDid', { max: 128, pattern: DID_PATTERN, patternText: 'a DID (did:ledger:<network>:<id>)' });
  const newPublicKey = requiredString(body, 'newPublicKey', { max: 64, pattern: KEY_HEX, patternText: '64 hex characters (a 32-byte Ed25519 public key)' }).toLowerCase();
  return { subjectDid, newPublicKey };
}

export function parseApproval(body: Record<string, unknown>): string {
  onlyFields(body, ['signature']);
  return requiredString(body, 'signature', { max: 128, pattern: SIGNATURE_HEX, patternText: '128 hex characters (a 64-byte Ed25519 signature)' }).toLowerCase();
}

export class RecoveryService {
  private readonly serial = new KeyedSerial();
  private readonly byAddress: Throttle;
  private readonly byDid: Throttle;

  constructor(private readonly d: RecoveryDeps) {
    this.byAddress = new Throttle(d.throttle?.perAddress ?? INITIATE_PER_ADDRESS, d.base.now);
    this.byDid = new Throttle(d.throttle?.perDid ?? INITIATE_PER_DID, d.base.now);
  }

  async initiate(input: { subjectDid: string; newPublicKey: string }, remote: string): Promise<InitiateAnswer> {
    const wait = Math.max(this.byAddress.retryAfter(remote), this.byDid.retryAfter(input.subjectDid));
    if (wait > 0) throw new HttpProblem('rate-limited', `too many recovery requests from this address or for this DID; try again in ${wait} s`, { headers: { 'retry-after': String(wait) } });
    this.byAddress.hit(remote);
    this.byDid.hit(input.subjectDid);

    const { identifier, record, publicKey } = await activeDid(this.d.base, input.subjectDid, 'subjectDid');
    const policy = await this.d.base.chain.recoveryPolicy(identifier);
    if (!policy) throw conflict('NO_RECOVERY_POLICY', `${input.subjectDid} has no recovery policy on chain: it cannot be recovered by guardians`);
    if (policy.pending) throw conflict('RECOVERY_PENDING', `a recovery of ${input.subjectDid} to ${policy.pending.new_public_key} is already pending, due at height ${policy.pending.due_height}`);
    if (toHex(publicKey) === input.newPublicKey) throw validation('newPublicKey is the DID\'s current key', 'newPublicKey');

    const now = this.d.base.now();
    const request: RecoveryRequest = {
      requestId: randomUUID(),
      subjectDid: input.subjectDid,
      newPublicKey: input.newPublicKey,
      versionId: record.versionId,
      guardians: [...policy.guardians],
      threshold: policy.threshold,
      delayBlocks: policy.delay_blocks,
      approvals: [],
      status: 'open',
      createdAt: iso(now),
      expiresAt: iso(now + this.d.base.config.recoveryTtlSeconds * 1000),
      txHash: null,
      submittedAt: null,
    };
    await this.d.store.createRequest(request);
    return {
      requestId: request.requestId,
      subjectDid: request.subjectDid,
      newPublicKey: request.newPublicKey,
      versionId: request.versionId,
      threshold: request.threshold,
      guardians: request.guardians,
      recoveryMessage: this.messageHex(request),
      expiresAt: request.expiresAt,
    };
  }

  /** The caller, a guardian of the request, adds its signature; it must verify under its DID's current key. */
  async approve(requestId: string, caller: WalletCaller, signature: string): Promise<RecoveryStatusView> {
    return this.serial.run(requestId, async () => {
      const r = await this.require(requestId);
      if (!r.guardians.includes(caller.did)) throw forbidden(`${caller.did} is not a guardian of this recovery`, 'NOT_A_GUARDIAN');
      if (r.approvals.some((a) => a.guardianDid === caller.did)) throw conflict('ALREADY_APPROVED', 'you already approved this recovery');
      await this.requireCollecting(r);
      const guardian = await activeDid(this.d.base, caller.did, 'did').catch((err: unknown) => {
        if (err instanceof LedgerError) throw conflict('GUARDIAN_DID_NOT_ACTIVE', `your DID cannot sign a recovery: ${err.message}`);
        throw err;
      });
      if (!verifyRecovery(guardian.publicKey, Buffer.from(signature, 'hex'), this.target(r))) {
        throw new LedgerError('BAD_RECOVERY_SIGNATURE', `the signature does not verify under the current key of ${caller.did} over the recovery message (versionId ${r.versionId})`, 'invalid', { field: 'signature' });
      }
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
      const state = await this.derive(r);
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

  /** Open requests the caller is a guardian of and has not approved, that can still be approved. */
  async pendingFor(caller: WalletCaller): Promise<PendingRequestView[]> {
    const out: PendingRequestView[] = [];
    for (const r of await this.d.store.requestsForGuardian(caller.did)) {
      if (r.approvals.some((a) => a.guardianDid === caller.did)) continue;
      const state = await this.derive(r);
      if (state.status === 'expired') await this.serial.run(r.requestId, () => this.d.store.updateRequest(r.requestId, (x) => (x.status === 'open' ? { ...x, status: 'expired' } : x)));
      if (state.status !== 'collecting' && state.status !== 'ready') continue;
      const subject = await this.d.users.byDid(r.subjectDid);
      out.push({
        requestId: r.requestId,
        subjectDid: r.subjectDid,
        subjectName: subject?.displayName ?? subject?.handle ?? null,
        newPublicKey: r.newPublicKey,
        versionId: r.versionId,
        threshold: r.threshold,
        approvals: r.approvals.length,
        recoveryMessage: this.messageHex(r),
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
        if (!verifyRecovery(guardian.publicKey, s.signature, this.target(r))) throw validation(`the signature of guardian ${s.guardian} does not verify (its current key, versionId ${r.versionId})`, 'payload');
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
    const state = await this.derive(r);
    if (state.status === 'collecting' || state.status === 'ready') return;
    throw conflict(state.status === 'failed' ? 'RECOVERY_STALE' : 'RECOVERY_CLOSED', state.reason ?? `this recovery is ${state.status}; it takes no more approvals`);
  }

  /** The request's status from the chain: the stored record says only open, submitted or expired. */
  private async derive(r: RecoveryRequest): Promise<{ status: RecoveryStatus; reason: string | null; dueHeight: number | null }> {
    const at = (status: RecoveryStatus, reason: string | null = null, dueHeight: number | null = null) => ({ status, reason, dueHeight });
    const { identifier } = parseDid(r.subjectDid);
    const record = await this.d.base.chain.did(identifier);
    if (record?.publicKey && toHex(record.publicKey) === r.newPublicKey) return at('completed');
    if (r.txHash !== null) {
      const receipt = await this.d.base.chain.receipt(r.txHash);
      if (!receipt) return at('submitted');
      if (receipt.status !== SUCCESS) return at('failed', receipt.status.replace(/^failed: /, ''));
      const pending = (await this.d.base.chain.recoveryPolicy(identifier))?.pending;
      if (pending && pending.new_public_key === r.newPublicKey) return at('pending', null, pending.due_height);
      return at('failed', 'the recovery was cancelled by the owner (a SetRecoveryPolicy during the delay) or voided by a change to the DID');
    }
    if (r.status === 'expired' || Date.parse(r.expiresAt) <= this.d.base.now()) return at('expired', `this recovery request expired at ${r.expiresAt}`);
    if (!record?.active) return at('failed', `${r.subjectDid} is deactivated`);
    if (record.versionId !== r.versionId) {
      return at('failed', `the DID changed since the request was made (versionId ${r.versionId}, now ${record.versionId}): the guardians' signatures no longer count; initiate a new request`);
    }
    return at(r.approvals.length >= r.threshold ? 'ready' : 'collecting');
  }

  private async view(r: RecoveryRequest): Promise<RecoveryStatusView> {
    const state = await this.derive(r);
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

  private target(r: RecoveryRequest) {
    return { chainId: this.d.base.chainId, did: r.subjectDid, newPublicKey: Buffer.from(r.newPublicKey, 'hex'), versionId: r.versionId };
  }

  private messageHex(r: RecoveryRequest): string {
    return toHex(recoveryMessage(this.target(r)));
  }
}

function conflict(code: string, message: string): LedgerError {
  return new LedgerError(code, message, 'conflict');
}

const iso = (ms: number): string => new Date(ms).toISOString();
