import { randomUUID } from 'node:crypto';
import { buildCredentialRequest } from '../../../node/client/builder.js';
import { invalid, isLedgerError } from '../../../node/errors.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { credentialHash, signCredential, withExtensions, type ValidatorSignature } from '../../../node/protocol/credential-document.js';
import { parseCredentialId } from '../../../node/protocol/credential-id.js';
import { parseDid } from '../../../node/protocol/did.js';
import { KYC_BBS_MESSAGE_COUNT } from '../../../node/protocol/kyc-bbs.js';
import type { BbsKeyPair } from '../../../node/crypto/bbs.js';
import type { CredentialIssuance, IssuedCredential, KycBase, SessionOutcomes } from '../services.js';
import type { VerificationSession } from '../types.js';
import { birthDateOf, evidenceDigest, isoSecond, jurisdictionOf, kycCredentialBody } from './credential-body.js';
import { kycBbsForm } from './bbs.js';
import type { ServiceKey } from '../../common/chain/service-key.js';
import { JobStore, type IssuanceJob, type PreparedRequest } from './jobs.js';
import type { TxSender } from '../../common/chain/tx-sender.js';

/**
 * Credentials on chain (issue item 4): `requestCredential` records a durable job and returns; one
 * background worker prepares, signs, stores and submits each request in arrival order, follows it
 * until the validators' attesters register it, then signs the W3C credential with the ledger
 * extensions, stores it, makes its OpenID4VCI offer and reports it to the session. After a
 * restart the unfinished jobs resume from their stored state. Each request also registers the
 * issuer's BBS key: the credential's BBS form (bbs.ts) is signed when the request is prepared and
 * stored with the credential, for the holder.
 */

/** Makes (or finds) the OpenID4VCI offer of a session's credential (oid4vci/). */
export interface CredentialOffers {
  offerFor(a: { sessionId: string; organizationId: string; credentialId: string }): Promise<{ credentialOfferUri: string }>;
}

export interface IssuanceOptions {
  /** how often the worker looks at its jobs when nothing wakes it (ms) */
  pollMs?: number;
  /** a submitted request without a receipt for this long is submitted again (ms) */
  resubmitAfterMs?: number;
  /** the back-off after a failed attempt, doubled per attempt up to maxBackoffMs (ms) */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export class IssuanceService implements CredentialIssuance {
  readonly store: JobStore;
  private outcomes: SessionOutcomes | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private lastResubmit = 0;
  /** the head's seq at the last pass: jobs waiting on the chain are looked at again when it moves */
  private seenSeq: number | undefined;
  private readonly o: Required<IssuanceOptions>;

  constructor(
    private readonly base: KycBase,
    private readonly key: ServiceKey,
    private readonly bbsKey: BbsKeyPair,
    private readonly tx: TxSender,
    private readonly offers: CredentialOffers,
    options: IssuanceOptions = {},
  ) {
    this.store = new JobStore(base.db);
    this.o = { pollMs: options.pollMs ?? 100, resubmitAfterMs: options.resubmitAfterMs ?? 15_000, backoffMs: options.backoffMs ?? 1000, maxBackoffMs: options.maxBackoffMs ?? 60_000 };
  }

  /** Who hears of each registered credential (verification/); set before start(). */
  setOutcomes(outcomes: SessionOutcomes): void {
    this.outcomes = outcomes;
  }

  async requestCredential(session: VerificationSession): Promise<void> {
    if (!session.subjectDid) throw invalid('SUBJECT_DID_REQUIRED', `session ${session.id} has no subjectDid: a credential is issued to a DID`);
    const subject = parseDid(session.subjectDid);
    if (subject.network !== this.base.network) throw invalid('SUBJECT_DID_NETWORK', `subjectDid ${session.subjectDid} is not a DID of this network (${this.base.network})`);
    const { id, organizationId, level, sandbox, subjectDid, documents, liveness } = session;
    const added = await this.store.add({ id, organizationId, level, sandbox, subjectDid, documents, ...(liveness ? { liveness } : {}) }, this.base.now());
    if (added) this.wake?.();
  }

  /** Resubmits what the mempool may have lost, then runs the worker until stop(). */
  async start(): Promise<void> {
    if (this.running) return;
    if (!this.outcomes) throw new Error('IssuanceService.setOutcomes must be called before start');
    this.running = true;
    await this.tx.resubmitPending();
    this.lastResubmit = this.base.now();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  pendingJobs(): Promise<number> {
    return this.store.countUnfinished();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.pass();
      } catch (err) {
        this.base.log.error({ err }, 'the KYC issuance worker failed a pass; it tries again');
      }
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.o.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /**
   * One look at every unfinished job, oldest first. Jobs waiting on the chain are looked at only
   * when a block has been committed since the last pass (or a resubmission is due): until then
   * nothing they wait for can have happened, and with many jobs in flight those reads were most
   * of the worker's cost.
   */
  async pass(): Promise<void> {
    const issuerDid = await this.base.chain.did(this.key.identifier);
    const head = this.base.chain.head()?.seq ?? -1;
    const chainMoved = head !== this.seenSeq;
    const resubmitDue = this.base.now() - this.lastResubmit > this.o.resubmitAfterMs;
    for (const job of await this.store.unfinished()) {
      if (!this.running) return;
      if (job.notBefore !== undefined && job.notBefore > this.base.now()) continue;
      try {
        if (job.state === 'queued') {
          if (!issuerDid?.active) continue; // issuer-did.ts creates it and reports why in health
          await this.prepareAndSubmit(job);
        } else if (job.state === 'submitted') {
          if (chainMoved || resubmitDue) await this.followSubmitted(job);
        } else if (job.state === 'requested' && chainMoved) await this.followRequested(job);
      } catch (err) {
        await this.backOff(job, err instanceof Error ? err.message : String(err));
        if (!isLedgerError(err)) this.base.log.warn({ err, sessionId: job.sessionId }, 'a KYC credential job failed; it is retried');
      }
    }
    this.seenSeq = head;
  }

  private async prepareAndSubmit(job: IssuanceJob): Promise<void> {
    const subjectDid = job.session.subjectDid!;
    const subject = await this.base.chain.did(parseDid(subjectDid).identifier);
    if (!subject?.active) {
      await this.backOff(job, `subject DID ${subjectDid} is not an active DID on this chain`);
      return;
    }
    const uuid = randomUUID();
    const now = this.base.now();
    let prepared: Omit<PreparedRequest, 'nonce' | 'txHash' | 'txJson' | 'submittedAt'> | undefined;
    try {
      await this.tx.send({
        kind: 'CredentialRequest',
        ref: job.sessionId,
        withPosition: true,
        build: async (nonce, position) => {
          const at = position!;
          const body = kycCredentialBody({
            uuid,
            session: job.session,
            issuer: { did: this.key.did, name: this.base.config.issuer.name },
            jurisdiction: jurisdictionOf(job.session, this.base.config.issuer.jurisdiction),
            issuedMs: now,
            validityDays: this.base.config.issuer.credentialValidityDays,
            listUrl: `${this.base.publicUrl()}/v1/revocation-lists/${at.list}`,
            index: at.index,
          });
          const hash = await credentialHash(body);
          const evidence = evidenceDigest(job.session);
          // signed now, with the key this request registers, over the body's very id and dates
          const bbs = await kycBbsForm(this.bbsKey, body, birthDateOf(job.session, now));
          prepared = { uuid, credentialId: body.id, body, hash: toHex(hash), evidenceDigest: toHex(evidence), bbs, position: at };
          return buildCredentialRequest({
            senderPubkey: this.key.publicKey,
            nonce,
            credentialId: uuid,
            credentialType: 'KYCCredential',
            kycLevel: job.session.level,
            subjectDid,
            issuerDid: this.key.did,
            hash,
            evidenceDigest: evidence,
            statusList: at.list,
            statusIndex: at.index,
            bbs: { publicKey: this.bbsKey.publicKey, messageCount: KYC_BBS_MESSAGE_COUNT },
          });
        },
        // the job holds the signed request before it is submitted
        record: (batch, sent) => {
          const next: IssuanceJob = { ...job, state: 'submitted', attempts: job.attempts + 1, updatedAt: now, prepared: { ...prepared!, nonce: sent.nonce, txHash: sent.hash, txJson: sent.json, submittedAt: now } };
          delete next.notBefore;
          batch.put(this.store.jobs, job.sessionId, next);
        },
      });
    } catch (err) {
      // refused by the mempool (funds, limits): nothing is in flight, so the job stays queued
      await this.backOff({ ...job, attempts: job.attempts + 1 }, `the request was refused: ${err instanceof Error ? err.message : String(err)}`);
      if (isLedgerError(err) && err.code === 'INSUFFICIENT_BALANCE') {
        this.base.log.warn({ address: this.key.address }, `the KYC issuer ${this.key.address} cannot pay credential fees; send it tokens (ledger tx transfer) so it can issue credentials`);
      } else if (!isLedgerError(err)) throw err;
    }
  }

  private async followSubmitted(job: IssuanceJob): Promise<void> {
    const p = job.prepared!;
    const receipt = await this.base.chain.receipt(p.txHash);
    if (!receipt) {
      const { nonce } = await this.base.chain.account(this.key.identifier);
      // its nonce went to another transaction: this request can never be included
      if (BigInt(p.nonce) < nonce && !(await this.base.chain.receipt(p.txHash))) return this.reprepare(job, `nonce ${p.nonce} was used by another transaction`);
      if (this.base.now() - Math.max(p.submittedAt, this.lastResubmit) > this.o.resubmitAfterMs) {
        this.lastResubmit = this.base.now();
        await this.tx.resubmitPending();
      }
      return;
    }
    if (receipt.status !== 'success') return this.reprepare(job, `the request failed on chain: ${receipt.status}`);
    const next: IssuanceJob = { ...job, state: 'requested', updatedAt: this.base.now() };
    await this.store.put(next);
    await this.followRequested(next);
  }

  private async followRequested(job: IssuanceJob): Promise<void> {
    const p = job.prepared!;
    const record = await this.base.chain.credential(parseCredentialId(p.credentialId));
    if (!record) return this.reprepare(job, `the chain has no record of ${p.credentialId}`);
    if (record.status === 'expired') return this.reprepare(job, `the request ${p.credentialId} expired before the validators attested it`);
    if (record.status !== 'registered') return;
    await this.finish(job);
  }

  /** Registered: the W3C credential with the validators' signatures, signed, stored, offered, reported. */
  private async finish(job: IssuanceJob): Promise<void> {
    const p = job.prepared!;
    const verified = await this.base.chain.verifyCredential(parseCredentialId(p.credentialId));
    if (!verified) throw new Error(`${p.credentialId} is registered but ledger_credentialVerify has no answer`);
    const view = verified.credential as { validator_signatures: ValidatorSignature[]; consensus_round: number };
    const extended = await withExtensions(p.body, { validatorSignatures: view.validator_signatures, consensusRound: view.consensus_round });
    const credential = await signCredential(extended, this.key.seed, isoSecond(this.base.now()));
    const existing = await this.store.credentials.get(p.credentialId);
    if (!existing) {
      await this.store.credentials.put(p.credentialId, {
        credentialId: p.credentialId,
        sessionId: job.sessionId,
        organizationId: job.organizationId,
        subjectDid: job.session.subjectDid!,
        credential,
        ...(p.bbs ? { bbs: p.bbs } : {}),
        txHash: p.txHash,
        issuedAt: this.base.now(),
      });
    }
    const { credentialOfferUri } = await this.offers.offerFor({ sessionId: job.sessionId, organizationId: job.organizationId, credentialId: p.credentialId });
    const issued: IssuedCredential = {
      credentialId: p.credentialId,
      type: [...p.body.type],
      issuer: this.key.did,
      subjectDid: job.session.subjectDid!,
      issuanceDate: p.body.issuanceDate,
      expirationDate: p.body.expirationDate,
      txHash: p.txHash,
      credentialOfferUri,
    };
    await this.outcomes!.credentialIssued(job.sessionId, issued);
    const done: IssuanceJob = { ...job, state: 'done', updatedAt: this.base.now(), result: { credentialId: p.credentialId, txHash: p.txHash, credentialOfferUri } };
    delete done.lastError;
    await this.store.db.batch().put(this.store.jobs, job.sessionId, done).del(this.store.open, job.order).write();
  }

  /** Back to queued: prepared again, with a fresh id, nonce and revocation position. */
  private async reprepare(job: IssuanceJob, why: string): Promise<void> {
    this.base.log.warn({ sessionId: job.sessionId, credentialId: job.prepared?.credentialId }, `KYC credential request prepared again: ${why}`);
    const next: IssuanceJob = { ...job, state: 'queued', updatedAt: this.base.now(), lastError: why };
    delete next.prepared;
    await this.store.put(next);
  }

  private async backOff(job: IssuanceJob, why: string): Promise<void> {
    const delay = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** Math.min(job.attempts, 16));
    await this.store.put({ ...job, lastError: why, notBefore: this.base.now() + delay, updatedAt: this.base.now() });
  }

  /** The stored credential of a session, when it has one. */
  async credentialOfSession(sessionId: string) {
    const job = await this.store.get(sessionId);
    return job?.result ? this.store.credentials.get(job.result.credentialId) : undefined;
  }
}

