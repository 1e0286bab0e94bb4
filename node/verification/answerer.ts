import { setTimeout as sleep } from 'node:timers/promises';
import type { EpochValidatorSet } from '../execution/validator-set.js';
import type { Logger } from '../logging.js';
import { addressBytesFromPublicKey } from '../protocol/address.js';
import { toHex } from '../protocol/bytes.js';
import type { Transaction } from '../protocol/transaction.js';
import { signAnswer } from '../protocol/verification-answer.js';
import type { VerificationRecord } from '../protocol/verification-records.js';
import { checkPresentation, type CheckArgs } from './check.js';
import { AnswerSender } from './answer-sender.js';
import type { AnswerSightings } from './answer-sightings.js';
import type { Presentation } from './presentation.js';
import { STANDBY_DELAY_MS } from './defaults.js';
import { committeeSeat } from './seat.js';

/**
 * A validator's side of a verification request: for each presentation that reaches it, it takes
 * its seat on the request's committee (seat.ts) and, first or as a standby still needed, checks
 * the presentation (the proofs in the worker pool) and answers with its claim results, in one
 * transaction with the other answers it has ready (answer-sender.ts). Presentations live in
 * memory only: personal data is never written to disk, and a subject whose validators restarted
 * presents again.
 */

/** `not_needed`: a standby member whose turn never came, because the others answered */
export type AnswerOutcome = 'answered' | 'refused' | 'skipped' | 'not_needed' | 'failed';

export interface AnswererDeps {
  chainId: string;
  /** the validator's 32-byte Ed25519 seed: its VRF key and its account key */
  seed: Uint8Array;
  publicKey: Uint8Array;
  verification(requestId: string): Promise<VerificationRecord | undefined>;
  validatorSet(): Promise<EpochValidatorSet | undefined>;
  /** the lookups and the pool-backed verifiers of check.ts */
  check: Pick<CheckArgs, 'chain' | 'verifyBbs' | 'verifyDirect' | 'hashCredential'>;
  nextNonce(address: Uint8Array): Promise<bigint>;
  submit(tx: Transaction): Promise<void>;
  /** answers seen in the mempool, read by a standby member before its turn */
  sightings?: AnswerSightings;
  /** how long a standby member waits for the first members' answers; default STANDBY_DELAY_MS (defaults.ts) */
  standbyDelayMs?: number;
  /** the shortest time between two answer transactions; default ANSWER_WINDOW_MS (defaults.ts) */
  answerWindowMs?: number;
  log: Logger;
  count?: (outcome: AnswerOutcome) => void;
  /** each answer transaction sent, with the number of answers in it */
  countTransaction?: (answers: number) => void;
}

/** with enough answers in flight, a standby member waits this many more delays before it answers anyway */
const STANDBY_PATIENCE = 2;

/** thrown through the check when the request closed while the check waited */
class RequestClosed extends Error {}

/**
 * At most this many presentations are held at once (standing by, or checked); past it one is
 * dropped, and the subject can present again. The RPC refuses new work long before
 * (BACKLOG_BUSY, defaults.ts), so this bound is for peers that send past it.
 */
const MAX_IN_FLIGHT = 1024;

export class Answerer {
  private inFlight = 0;
  /** presentations past their seat and standby turn: checked, or their answer being sent */
  private checking = 0;
  private readonly sender: AnswerSender;

  constructor(private readonly d: AnswererDeps) {
    const address = addressBytesFromPublicKey(d.publicKey);
    this.sender = new AnswerSender({
      chainId: d.chainId,
      seed: d.seed,
      publicKey: d.publicKey,
      nextNonce: () => d.nextNonce(address),
      submit: d.submit,
      stillOpen: (requestId) => this.stillOpen(requestId),
      ...(d.answerWindowMs === undefined ? {} : { windowMs: d.answerWindowMs }),
      ...(d.countTransaction ? { sent: d.countTransaction } : {}),
    });
  }

  private async stillOpen(requestId: string): Promise<boolean> {
    return (await this.d.verification(requestId))?.status === 'pending';
  }

  /** Checks and answers in the background; the returned promise is for tests. */
  onPresentation(p: Presentation): Promise<AnswerOutcome> {
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.d.log.warn({ request: p.requestId, inFlight: this.inFlight }, 'too many presentations being checked; dropped one');
      this.d.count?.('skipped');
      return Promise.resolve('skipped');
    }
    this.inFlight++;
    const done = this.answer(p)
      .catch((err: unknown) => {
        this.d.log.warn({ err, request: p.requestId }, 'could not answer a verification request');
        return 'failed' as const;
      })
      .finally(() => this.inFlight--);
    void done.then((outcome) => this.d.count?.(outcome));
    return done;
  }

  private async answer(p: Presentation): Promise<AnswerOutcome> {
    const v = await this.d.verification(p.requestId);
    if (!v) return 'skipped';
    const seat = committeeSeat(v, await this.d.validatorSet(), { seed: this.d.seed, publicKey: this.d.publicKey });
    if ('skip' in seat) {
      this.d.log.debug({ request: p.requestId, reason: seat.skip }, 'no answer');
      return 'skipped';
    }
    if (seat.standby && !(await this.standbyTurn(p.requestId))) return 'not_needed';
    this.checking++;
    try {
      return await this.checkAndAnswer(p, v, seat.vrfProof);
    } finally {
      this.checking--;
    }
  }

  /** checks waiting or running now: the backlog the RPC reads before it takes new work */
  backlog(): number {
    return this.checking;
  }

  private async checkAndAnswer(p: Presentation, v: VerificationRecord, vrfProof: Uint8Array | undefined): Promise<AnswerOutcome> {
    // A check can wait in the pool's queue for seconds; a request that closed meanwhile (final
    // with others' answers, or expired) is not worth the proof work, nor a transaction.
    const gated = <A extends unknown[], R>(work: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
      if (!(await this.stillOpen(p.requestId))) throw new RequestClosed();
      return work(...args);
    };
    const check = { ...this.d.check, verifyBbs: gated(this.d.check.verifyBbs), verifyDirect: gated(this.d.check.verifyDirect) };
    let outcome;
    try {
      outcome = await checkPresentation({ chainId: this.d.chainId, request: { ...v.request, signature: toHex(v.signature) }, requestMs: v.requestMs, presentation: p, ...check });
    } catch (err) {
      if (err instanceof RequestClosed) return 'skipped';
      throw err;
    }
    if ('refused' in outcome) {
      this.d.log.info({ request: p.requestId, code: outcome.refused.code, reason: outcome.refused.message }, 'presentation refused');
      return 'refused';
    }
    const sent = await this.sender.send({
      requestId: p.requestId,
      ...(vrfProof ? { vrfProof } : {}),
      presentationHash: outcome.presentationHash,
      claims: outcome.claims,
      signature: signAnswer(this.d.seed, this.d.chainId, p.requestId, outcome.presentationHash, outcome.claims),
    });
    if (!sent) return 'skipped';
    this.d.log.info({ request: p.requestId, verified: outcome.claims.every((c) => c.satisfied) }, 'answered verification request');
    return 'answered';
  }

  /**
   * A standby member's turn comes when, after a delay, the request is still open and fewer than
   * its threshold of members have answered, on chain or in flight. Answers in flight that do not
   * close the request (a member that disagrees, an answer that fails) get a little more time, then
   * the standby answers anyway.
   */
  private async standbyTurn(requestId: string): Promise<boolean> {
    for (let waits = 0; ; waits++) {
      await sleep(this.d.standbyDelayMs ?? STANDBY_DELAY_MS);
      const v = await this.d.verification(requestId);
      if (v?.status !== 'pending') return false;
      const answered = this.d.sightings?.count(requestId, v.answers.map((a) => a.publicKey)) ?? v.answers.length;
      if (answered < v.threshold || waits >= STANDBY_PATIENCE) return true;
    }
  }
}
