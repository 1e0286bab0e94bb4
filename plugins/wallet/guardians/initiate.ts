import { randomUUID } from 'node:crypto';
import { toHex } from '../../../node/protocol/bytes.js';
import { HttpProblem, validation } from '../../common/http/problems.js';
import type { KeyedSerial } from '../../common/http/router.js';
import type { ThrottleRule } from '../../common/http/throttle.js';
import { DID_PATTERN, onlyFields, requiredString } from '../../common/http/validate.js';
import type { WalletBase } from '../services.js';
import { StoredThrottle } from './limits.js';
import { activeDid } from './policy.js';
import { parsePowProof, PowGate, type PowChallenge, type PowProof } from './pow.js';
import { checkApproval, conflict, isCollecting, iso, messageHex, requestState } from './request-state.js';
import type { Approval, GuardianStore, RecoveryRequest } from './store.js';

/**
 * Starting a recovery (docs/wallet.md, "Starting a recovery"). The caller has no session (the key
 * is lost), so anyone may call it: the rules make it cheap for the owner and costly to abuse.
 *
 * - Limits are per caller, never per target DID, so nobody can spend a victim's allowance: per
 *   remote address and per proposed new key, counted in the store (a restart keeps them).
 * - Each start pays a proof of work (pow.ts), or carries a guardian's approval of it.
 * - One request per (DID, new key): starting again returns it (and keeps the stronger proof).
 * - A DID has at most `maxPendingKeys` requests that no guardian has approved yet. When they are
 *   all taken, a start that proved more work than the weakest takes its place, and one a guardian
 *   signed is always accepted; a request a guardian approved is never displaced. So an attacker
 *   can keep the owner's request out only by outspending the owner's phone on every slot, and
 *   not at all once a guardian vouches for it.
 */

export const INITIATE_WINDOW_MS = 60 * 60_000;
const KEY_HEX = /^[0-9a-fA-F]{64}$/;
const SIGNATURE_HEX = /^[0-9a-fA-F]{128}$/;

export interface InitiateInput {
  subjectDid: string;
  /** 64 lowercase hex */
  newPublicKey: string;
  proof?: PowProof;
  /** a guardian's signature over the recovery message for this DID, key and the DID's current versionId */
  approval?: { guardianDid: string; signature: string };
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
  /** the leading zero bits of the strongest proof of work this request was started with (0: by a guardian) */
  proofBits: number;
  approvals: number;
  expiresAt: string;
}

export interface InitiationDeps {
  base: Pick<WalletBase, 'config' | 'db' | 'chain' | 'network' | 'chainId' | 'now'>;
  store: GuardianStore;
  /** shared with the other recovery steps: a request changes under its id's key */
  serial: KeyedSerial;
  /** overrides of the hourly limits of config `recovery` */
  throttle?: { perAddress?: ThrottleRule; perKey?: ThrottleRule };
}

export function parseInitiate(body: Record<string, unknown>): InitiateInput {
  onlyFields(body, ['subjectDid', 'newPublicKey', 'proof', 'approval']);
  const subjectDid = requiredString(body, 'subjectDid', { max: 128, pattern: DID_PATTERN, patternText: 'a DID (did:ledger:<network>:<id>)' });
  const newPublicKey = requiredString(body, 'newPublicKey', { max: 64, pattern: KEY_HEX, patternText: '64 hex characters (a 32-byte Ed25519 public key)' }).toLowerCase();
  const proof = parsePowProof(body.proof);
  const approval = parseApprovalField(body.approval);
  return { subjectDid, newPublicKey, ...(proof ? { proof } : {}), ...(approval ? { approval } : {}) };
}

function parseApprovalField(value: unknown): InitiateInput['approval'] {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw validation('approval must be {guardianDid, signature}', 'approval');
  const a = value as Record<string, unknown>;
  onlyFields(a, ['guardianDid', 'signature']);
  const guardianDid = requiredString(a, 'guardianDid', { max: 128, pattern: DID_PATTERN, patternText: 'a DID (did:ledger:<network>:<id>)' });
  const signature = requiredString(a, 'signature', { max: 128, pattern: SIGNATURE_HEX, patternText: '128 hex characters (a 64-byte Ed25519 signature)' }).toLowerCase();
  return { guardianDid, signature };
}

export class RecoveryInitiation {
  private readonly byAddress: StoredThrottle;
  private readonly byKey: StoredThrottle;
  private readonly pow: PowGate;

  constructor(private readonly d: InitiationDeps) {
    const { base } = d;
    const limits = base.config.recovery;
    this.byAddress = new StoredThrottle(base.db, 'initiate-address', d.throttle?.perAddress ?? { max: limits.perAddressPerHour, windowMs: INITIATE_WINDOW_MS }, base.now);
    this.byKey = new StoredThrottle(base.db, 'initiate-key', d.throttle?.perKey ?? { max: limits.perKeyPerHour, windowMs: INITIATE_WINDOW_MS }, base.now);
    this.pow = new PowGate({ store: base.db.root, bits: () => base.config.recovery.powBits, now: base.now });
  }

  challenge(): Promise<PowChallenge> {
    return this.pow.issue();
  }

  /** The request for this DID and key: a new one (`created`), or the one already open for them. */
  async initiate(input: InitiateInput, remote: string): Promise<{ answer: InitiateAnswer; created: boolean }> {
    const wait = Math.max(...(await Promise.all([this.byAddress.take(remote), this.byKey.take(input.newPublicKey)])));
    if (wait > 0) {
      throw new HttpProblem('rate-limited', `too many recovery initiations from this address, or proposing this new key; try again in ${wait} s`, { code: 'RATE_LIMITED', headers: { 'retry-after': String(wait) } });
    }
    const bits = input.proof || !input.approval ? await this.pow.verify(input.proof, input.subjectDid, input.newPublicKey) : 0;
    return this.d.serial.run(`initiate ${input.subjectDid}`, () => this.start(input, bits));
  }

  private async start(input: InitiateInput, bits: number): Promise<{ answer: InitiateAnswer; created: boolean }> {
    const { base, store } = this.d;
    const { identifier, record, publicKey } = await activeDid(base, input.subjectDid, 'subjectDid');
    const policy = await base.chain.recoveryPolicy(identifier);
    if (!policy) throw conflict('NO_RECOVERY_POLICY', `${input.subjectDid} has no recovery policy on chain: it cannot be recovered by guardians`);
    if (policy.pending) throw conflict('RECOVERY_PENDING', `a recovery of ${input.subjectDid} to ${policy.pending.new_public_key} is already pending, due at height ${policy.pending.due_height}`);
    if (toHex(publicKey) === input.newPublicKey) throw validation('newPublicKey is the DID\'s current key', 'newPublicKey');
    const target = { subjectDid: input.subjectDid, newPublicKey: input.newPublicKey, versionId: record.versionId, guardians: [...policy.guardians] };
    if (input.approval) await checkApproval(base, target, input.approval.guardianDid, input.approval.signature);
    const now = iso(base.now());
    const approvals: Approval[] = input.approval ? [{ ...input.approval, approvedAt: now }] : [];

    const existing = await this.live(await store.requestFor(input.subjectDid, input.newPublicKey));
    if (existing) return { answer: this.answer(await this.strengthen(existing, bits, approvals)), created: false };

    const displaced = approvals.length > 0 ? undefined : await this.slot(input.subjectDid, bits);
    const request: RecoveryRequest = {
      requestId: randomUUID(),
      ...target,
      threshold: policy.threshold,
      delayBlocks: policy.delay_blocks,
      approvals,
      status: 'open',
      createdAt: now,
      expiresAt: iso(base.now() + base.config.recoveryTtlSeconds * 1000),
      txHash: null,
      submittedAt: null,
      proofBits: bits,
    };
    if (displaced) await this.change(displaced, (x) => (x.status === 'open' && x.approvals.length === 0 ? { ...x, status: 'superseded', supersededBy: request.requestId } : x));
    await store.createRequest(request);
    return { answer: this.answer(request), created: true };
  }

  /** `r` while it is still under way; one that is over (expired, stale, failed) is closed, so the key may start again. */
  private async live(r: RecoveryRequest | undefined): Promise<RecoveryRequest | undefined> {
    if (!r) return undefined;
    const state = await requestState(this.d.base, r);
    if (state.status !== 'failed' && state.status !== 'expired') return r;
    await this.change(r, (x) => ({ ...x, status: 'expired' }));
    return undefined;
  }

  /** A repeated start: the request keeps the stronger proof, and the guardian's approval it carries. */
  private strengthen(r: RecoveryRequest, bits: number, approvals: Approval[]): Promise<RecoveryRequest> {
    return this.change(r, (x) => {
      if (x.status !== 'open') return x;
      const added = approvals.filter((a) => !x.approvals.some((b) => b.guardianDid === a.guardianDid));
      return { ...x, proofBits: Math.max(x.proofBits ?? 0, bits), approvals: [...x.approvals, ...added] };
    });
  }

  /**
   * Room for one more request that no guardian approved: undefined when there is a free slot, the
   * request to displace when the new one proved more than the weakest, else 409.
   */
  private async slot(did: string, bits: number): Promise<RecoveryRequest | undefined> {
    const waiting: RecoveryRequest[] = [];
    for (const r of await this.d.store.requestsOf(did)) {
      if (r.status !== 'open' || r.approvals.length > 0) continue;
      if (await this.live(r)) waiting.push(r);
    }
    const max = this.d.base.config.recovery.maxPendingKeys;
    if (waiting.length < max) return undefined;
    const weakest = waiting.sort((a, b) => (a.proofBits ?? 0) - (b.proofBits ?? 0) || a.createdAt.localeCompare(b.createdAt))[0]!;
    if (bits > (weakest.proofBits ?? 0)) return weakest;
    throw new HttpProblem(
      'conflict',
      `${waiting.length} requests for other new keys wait for the guardians of ${did}; a start needs a proof of more than ${weakest.proofBits ?? 0} bits, or a guardian's approval`,
      { code: 'PENDING_KEYS_FULL' },
    );
  }

  private change(r: RecoveryRequest, fn: (x: RecoveryRequest) => RecoveryRequest): Promise<RecoveryRequest> {
    return this.d.serial.run(r.requestId, () => this.d.store.updateRequest(r.requestId, fn));
  }

  private answer(r: RecoveryRequest): InitiateAnswer {
    return {
      requestId: r.requestId,
      subjectDid: r.subjectDid,
      newPublicKey: r.newPublicKey,
      versionId: r.versionId,
      threshold: r.threshold,
      guardians: r.guardians,
      recoveryMessage: messageHex(this.d.base.chainId, r),
      proofBits: r.proofBits ?? 0,
      approvals: r.approvals.length,
      expiresAt: r.expiresAt,
    };
  }
}
