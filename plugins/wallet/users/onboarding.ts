import { isLedgerError } from '../../../node/errors.js';
import { parseAddress } from '../../../node/protocol/address.js';
import { feeFor } from '../../../node/protocol/fees.js';
import type { Batch, PluginDb, Table } from '../../common/store/tables.js';
import type { WalletBase } from '../services.js';
import type { FundResult, Sponsor } from './sponsor.js';

/**
 * Creating a new wallet's DID on chain. The client's signed DidCreate is stored (table
 * `onboarding`, by the account address; `onboarding-pending` lists the unfinished ones) and a
 * worker takes it to the chain: a fresh account cannot pay the DidCreate fee, so the sponsor
 * funds it first (within its allowance), and once the account's committed balance covers the
 * fee the DidCreate is submitted, exactly the client's bytes. An account that already has the fee
 * gets no funding. The worker runs a pass on start (so a restart resumes where it stopped) and
 * whenever the chain head moves (polled every `pollMs`), one pass at a time.
 *
 * Status: `funding` (waiting for the fee; `reason` says why when the sponsor refused), then
 * `submitted`, then `active` once the DID is on chain, or `failed` with the receipt's reason.
 */

export type OnboardingStatus = 'funding' | 'submitted' | 'active' | 'failed';

export interface OnboardingRecord {
  /** the DidCreate sender's account */
  address: string;
  userId: string;
  did: string;
  /** the client's signed DidCreate, the JSON text as received */
  txJson: string;
  txHash: string;
  nonce: string;
  status: OnboardingStatus;
  /** why it waits (a refused funding) or why it failed; null otherwise */
  reason: string | null;
  /** the sponsor's funding Transfer, when it sent one */
  fundTx: string | null;
  submittedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface OnboardingOptions {
  /** how often the chain head is polled for a new block */
  pollMs?: number;
  /** a submitted DidCreate with no receipt after this long is submitted again (the mempool may have dropped it) */
  resubmitMs?: number;
  /** a funding the sponsor refused for a passing reason (hourly allowance, no funds) is asked again after this long */
  refundMs?: number;
}

/** refusals that can pass: the sponsor is asked again later */
const PASSING: ReadonlySet<string> = new Set(['HOURLY_LIMIT', 'SPONSOR_NO_FUNDS', 'SPONSOR_REFUSED']);
const TERMINAL: ReadonlySet<OnboardingStatus> = new Set(['active', 'failed']);

export interface NewOnboarding {
  userId: string;
  did: string;
  address: string;
  txJson: string;
  txHash: string;
  nonce: bigint;
}

export class Onboarding {
  private readonly records: Table<OnboardingRecord>;
  private readonly pending: Table<number>;
  private readonly pollMs: number;
  private readonly resubmitMs: number;
  /** a DidCreate submitted before this start was in a mempool that is gone: it is sent again at once */
  private startedAt = 0;
  private readonly refundMs: number;
  private timer: NodeJS.Timeout | undefined;
  private lastSeq: number | undefined;
  private dirty = true;
  private pass: Promise<void> | undefined;
  /** address → when the sponsor may be asked again */
  private readonly askAgainAt = new Map<string, number>();

  constructor(
    private readonly base: WalletBase,
    private readonly sponsor: Sponsor,
    o: OnboardingOptions = {},
  ) {
    this.records = base.db.json<OnboardingRecord>('onboarding');
    this.pending = base.db.json<number>('onboarding-pending');
    this.pollMs = o.pollMs ?? 200;
    this.resubmitMs = o.resubmitMs ?? 30_000;
    this.refundMs = o.refundMs ?? 30_000;
  }

  private get db(): PluginDb {
    return this.base.db;
  }

  /** Resubmits what a restart may have lost, then runs a pass now and one on every new block. */
  async start(): Promise<void> {
    if (this.timer) return;
    this.startedAt = this.base.now();
    await this.sponsor.resubmitPending();
    this.dirty = true;
    this.timer = setInterval(() => this.tick(), this.pollMs);
    this.timer.unref();
    this.tick();
  }

  /** Stops polling and waits for the pass under way; the stored records stay for the next start. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pass;
  }

  /** Stores a registration's DidCreate (replacing a failed one of the same account) and wakes the worker. */
  async enqueue(o: NewOnboarding): Promise<OnboardingRecord> {
    const batch = this.db.batch();
    const record = this.stage(batch, o);
    await batch.write();
    this.wake(o.address);
    return record;
  }

  /**
   * Puts a new onboarding into `batch`, the one that stores its user, so that a crash keeps both
   * or neither (a user without its onboarding would never reach the chain). `wake` after the write.
   */
  stage(batch: Batch, o: NewOnboarding): OnboardingRecord {
    const now = this.base.now();
    const record: OnboardingRecord = { ...o, nonce: o.nonce.toString(), status: 'funding', reason: null, fundTx: null, submittedAt: null, createdAt: now, updatedAt: now };
    batch.put(this.records, o.address, record).put(this.pending, o.address, now);
    return record;
  }

  /** Works the onboarding of `address` now (its record was just written). */
  wake(address: string): void {
    this.askAgainAt.delete(address);
    this.dirty = true;
    this.tick();
  }

  get(address: string): Promise<OnboardingRecord | undefined> {
    return this.records.get(address);
  }

  /** One pass over the unfinished onboardings (the worker's; tests call it directly). */
  async step(): Promise<void> {
    for await (const address of this.pending.keys()) {
      const record = await this.records.get(address);
      if (!record || TERMINAL.has(record.status)) {
        await this.pending.del(address);
        continue;
      }
      try {
        await this.advance(record);
      } catch (err) {
        this.base.log.warn({ err, did: record.did }, 'an onboarding step failed; it is retried on the next block');
      }
    }
  }

  private tick(): void {
    if (!this.timer || this.pass) return;
    const seq = this.base.chain.head()?.seq;
    if (!this.dirty && seq === this.lastSeq) return;
    this.dirty = false;
    this.lastSeq = seq;
    this.pass = this.step()
      .catch((err: unknown) => this.base.log.warn({ err }, 'an onboarding pass failed'))
      .finally(() => {
        this.pass = undefined;
      });
  }

  private async advance(r: OnboardingRecord): Promise<void> {
    const { chain } = this.base;
    const receipt = await chain.receipt(r.txHash);
    if (receipt) {
      if (receipt.status === 'success') return this.save(r, { status: 'active', reason: null });
      return this.save(r, { status: 'failed', reason: `the DidCreate ${r.txHash} was included and failed: ${receipt.status.replace(/^failed: /, '')}` });
    }
    const identifier = parseAddress(r.address);
    const did = await chain.did(identifier);
    if (did) return this.save(r, { status: 'active', reason: `the DID was created by another transaction (${Buffer.from(did.txHash).toString('hex')})` });
    const account = await chain.account(identifier);
    if (account.nonce > BigInt(r.nonce)) {
      return this.save(r, { status: 'failed', reason: `the account used nonce ${r.nonce} for another transaction; sign a new DidCreate with nonce ${account.nonce} and register again` });
    }
    if (r.status === 'submitted') {
      const at = r.submittedAt ?? 0;
      if (at < this.startedAt || this.base.now() - at >= this.resubmitMs) await this.submit(r);
      return;
    }
    if (account.balance >= feeFor('DidCreate')) return this.submit(r);
    await this.fund(r);
  }

  private async fund(r: OnboardingRecord): Promise<void> {
    if (r.fundTx) {
      const funded = await this.base.chain.receipt(r.fundTx);
      if (funded && funded.status !== 'success') return this.save(r, { fundTx: null, reason: `the sponsor's funding ${r.fundTx} failed: ${funded.status}` });
      if (funded) return this.save(r, { reason: `the account was funded (${r.fundTx}) and still cannot pay the DidCreate fee of ${feeFor('DidCreate')} units; send it the rest` });
      return; // the funding is on its way
    }
    const now = this.base.now();
    if ((this.askAgainAt.get(r.address) ?? 0) > now) return;
    const result: FundResult = await this.sponsor.fund(r.address, r.did);
    if (result.ok) {
      this.askAgainAt.delete(r.address);
      return this.save(r, { fundTx: result.funding.hash, reason: null });
    }
    // a lasting refusal is asked again after a restart at the earliest; a passing one after refundMs
    this.askAgainAt.set(r.address, PASSING.has(result.code) ? now + this.refundMs : Number.POSITIVE_INFINITY);
    const reason = `${result.reason}; the DidCreate waits until the account can pay its fee of ${feeFor('DidCreate')} units`;
    if (reason !== r.reason) this.base.log.warn({ did: r.did, address: r.address, code: result.code }, `the wallet sponsor refused a funding: ${result.reason}`);
    return this.save(r, { reason });
  }

  private async submit(r: OnboardingRecord): Promise<void> {
    try {
      await this.base.submit(r.txJson);
    } catch (err) {
      if (!isLedgerError(err)) throw err;
      if (err.code === 'ALREADY_KNOWN') return this.save(r, { status: 'submitted', submittedAt: this.base.now(), reason: null });
      // these pass (a pending transaction ahead, a clash the next block settles): try again on the next block
      if (['INSUFFICIENT_BALANCE', 'NONCE_TOO_LOW', 'NONCE_TAKEN', 'DID_EXISTS', 'MEMPOOL_FULL'].includes(err.code)) {
        return this.save(r, { reason: `the DidCreate was not admitted yet: ${err.message}` });
      }
      this.base.log.warn({ err, did: r.did }, 'the mempool refused a registration DidCreate');
      return this.save(r, { status: 'failed', reason: `the DidCreate was refused: ${err.message}` });
    }
    this.base.log.info({ did: r.did, txHash: r.txHash }, 'a new wallet DID was submitted');
    return this.save(r, { status: 'submitted', submittedAt: this.base.now(), reason: null });
  }

  private async save(r: OnboardingRecord, change: Partial<OnboardingRecord>): Promise<void> {
    const next: OnboardingRecord = { ...r, ...change, updatedAt: this.base.now() };
    if (next.status === r.status && next.reason === r.reason && next.fundTx === r.fundTx && next.submittedAt === r.submittedAt) return;
    const batch = this.db.batch().put(this.records, r.address, next);
    if (TERMINAL.has(next.status)) {
      batch.del(this.pending, r.address);
      this.askAgainAt.delete(r.address);
      if (next.status === 'failed') this.base.log.warn({ did: r.did, reason: next.reason }, 'a new wallet DID could not be created');
    }
    Object.assign(r, next);
    await batch.write();
  }
}
