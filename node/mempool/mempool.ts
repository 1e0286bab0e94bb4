import { ecvrfVerifyCached } from '../crypto/ecvrf.js';
import { createSignatureChecker, type SignatureChecker } from '../crypto/signature-checker.js';
import { invalid, isLedgerError, LedgerError } from '../errors.js';
import { readCredential } from '../execution/credential-state.js';
import type { StateReader } from '../execution/overlay.js';
import { addressBytesFromPublicKey, parseAddress } from '../protocol/address.js';
import { toHex, U64_MAX } from '../protocol/bytes.js';
import { formatCredentialId } from '../protocol/credential-id.js';
import { feeFor } from '../protocol/fees.js';
import { parseJson } from '../protocol/json.js';
import { payloadDebit, payloadFromJson, payloadToJson, type PayloadOf } from '../protocol/payloads.js';
import { encodeTransaction, MAX_TX_BYTES, MAX_TX_JSON_BYTES, signingBytes, transactionFromJson, transactionHash, type Transaction } from '../protocol/transaction.js';
import { checkState, conflict } from './checks.js';
import { PendingIndex } from './pending-index.js';
import { selectReady, type SelectOptions } from './select.js';
import { SenderQueue, type PendingTx } from './sender-queue.js';
import { VerifiedCache } from './verified-cache.js';
import { readView } from './view.js';

/**
 * The mempool: signed transactions waiting for a block, in memory only (a crash loses the pool,
 * never committed state). docs/mempool.md has the full rules; in short:
 *
 * Admission, cheapest checks first: size, decoding, chain id, duplicate hash, signature (cached by
 * hash, so block validation can skip it: isVerified), then against committed state plus the
 * sender's pending transactions: nonce (too low, taken, too far ahead), balance (amount + fee of
 * this transaction and of every pending one of the sender), and payload rules (DID exists, DID
 * deactivation rights, unstake within stake).
 *
 * - No replacement: fees are fixed, so a replacement could not pay more, and free replacement would
 *   let a sender churn the network. A second transaction for a pending nonce is NONCE_TAKEN.
 * - Nonce window: a nonce at most `maxNonceGap` past the end of the sender's ready run is kept
 *   (gapped, not selectable until the gap fills); beyond that, NONCE_TOO_HIGH.
 * - When full (count or bytes), a ready newcomer may evict others: the policy is in pending-index.ts.
 */

export interface MempoolOptions {
  chainId: string;
  /** the DID network segment of this chain (did:ledger:<network>:…) */
  network: string;
  /** committed state; replaced by each onCommitted */
  state: StateReader;
  maxTransactions?: number;
  /** limit on the sum of the canonical encodings' lengths */
  maxBytes?: number;
  maxPerSender?: number;
  /** how far past the end of its ready run a sender's nonce may be */
  maxNonceGap?: number;
  /** how many verified transaction hashes to remember */
  verifiedCacheSize?: number;
  /** where signatures are checked; default inline, on the calling thread */
  signatures?: SignatureChecker;
  /** the clock that stamps admissions (metrics only; never used for ordering); default Date.now */
  now?: () => number;
  /** receives an exception thrown by an onAdmitted listener; the admission itself stands */
  onListenerError?: (err: unknown) => void;
}

export const MEMPOOL_DEFAULTS = {
  maxTransactions: 50_000,
  maxBytes: 64 * 1024 * 1024,
  maxPerSender: 1000,
  maxNonceGap: 64,
  verifiedCacheSize: 100_000,
} as const;

/** Payloads whose checks count the sender's pending transactions ahead of them (checks.ts). */
const AHEAD_KINDS = new Set(['Unstake', 'DidDeactivate', 'CredentialRequest', 'SetRecoveryPolicy', 'VerificationRequest']);

export interface AdmitResult {
  hash: string;
  /** true when the transaction can go into the next block (no nonce gap before it) */
  ready: boolean;
  /** hashes of the transactions evicted to make room */
  evicted: string[];
}

export interface CommitResult {
  /** hashes of the committed transactions that were pending here */
  removed: string[];
  /** transactions dropped because the new state invalidates them */
  dropped: Array<{ hash: string; error: LedgerError }>;
}

export type AdmittedListener = (tx: PendingTx) => void;

/** The sender map's key of a base58 address, address bytes or public key. */
function senderKey(sender: string | Uint8Array): string {
  return toHex(typeof sender === 'string' ? parseAddress(sender) : sender.length === 32 ? addressBytesFromPublicKey(sender) : sender);
}

const BAD_SIGNATURE_MESSAGE =
  'signature does not verify for this chain; a transaction signed for another network (another chain id) also fails here';

export class Mempool {
  private readonly o: Required<Omit<MempoolOptions, 'onListenerError' | 'signatures'>> & Pick<MempoolOptions, 'onListenerError'>;
  private readonly signatures: SignatureChecker;
  private readonly index: PendingIndex;
  private readonly verified: VerifiedCache;
  private readonly listeners = new Set<AdmittedListener>();
  private state: StateReader;
  /** bumped when the committed state changes, so an admission that read the old one reads again */
  private epoch = 0;
  private arrivals = 0;
  private commits: Promise<unknown> = Promise.resolve();

  constructor(options: MempoolOptions) {
    this.o = { ...MEMPOOL_DEFAULTS, now: Date.now, ...options };
    this.state = options.state;
    this.index = new PendingIndex({ maxTransactions: this.o.maxTransactions, maxBytes: this.o.maxBytes });
    this.verified = new VerifiedCache(this.o.verifiedCacheSize);
    this.signatures = options.signatures ?? createSignatureChecker({ threads: 0 });
  }

  get size(): number {
    return this.index.size;
  }

  /** total canonical-encoding bytes of the pending transactions */
  get bytes(): number {
    return this.index.bytes;
  }

  has(hash: string): boolean {
    return this.index.has(hash);
  }

  get(hash: string): PendingTx | undefined {
    return this.index.get(hash);
  }

  /** True when this node verified the transaction's signature (pending or recently seen). */
  isVerified(hash: string): boolean {
    return this.index.has(hash) || this.verified.has(hash);
  }

  /**
   * Whether each transaction's signature verifies, checking in one batch those not verified here
   * before (a gossiped batch, a block's transactions) and remembering the good ones.
   */
  async verifySignatures(txs: readonly Transaction[]): Promise<boolean[]> {
    const hashes = txs.map((tx) => transactionHash(this.o.chainId, tx));
    const unseen = txs.flatMap((tx, i) => (this.isVerified(hashes[i]!) ? [] : [i]));
    const verdicts = await this.signatures.verifyMany(
      unseen.map((i) => ({ publicKey: txs[i]!.senderPubkey, message: signingBytes(this.o.chainId, txs[i]!), signature: txs[i]!.signature })),
    );
    const ok = txs.map(() => true);
    unseen.forEach((i, k) => {
      ok[i] = verdicts[k]!;
      if (ok[i]) this.verified.add(hashes[i]!);
    });
    return ok;
  }

  /**
   * Whether a block could include one of the pending transactions now: a sender with a ready run.
   * A transaction behind a nonce gap costs its sender nothing, so it must not make leaders propose.
   */
  hasReady(): boolean {
    return this.index.hasReady();
  }

  /** A sender's pending transactions in nonce order; the sender as base58 address, address bytes or public key. */
  pending(sender: string | Uint8Array): PendingTx[] {
    return [...(this.index.queue(senderKey(sender))?.entries ?? [])];
  }

  /**
   * The nonce a sender's next transaction should carry (ledger_getNonce "pending"): `committed`
   * (its committed next nonce, read by the caller) plus the length of its contiguous run of pending
   * transactions from there. A transaction after a gap is not counted: the gap must be filled first.
   */
  pendingNonce(sender: string | Uint8Array, committed: bigint): bigint {
    return this.index.queue(senderKey(sender))?.runEnd(committed) ?? committed;
  }

  /** Calls `listener` after each admission; returns a function that unsubscribes it. */
  onAdmitted(listener: AdmittedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Admits the JSON text of a signed transaction (ledger_sendTransaction). */
  async admitJson(text: string): Promise<AdmitResult> {
    const size = text.length > MAX_TX_JSON_BYTES ? text.length : Buffer.byteLength(text, 'utf8');
    if (size > MAX_TX_JSON_BYTES) {
      throw new LedgerError('TX_TOO_LARGE', `transaction JSON is ${size} bytes or more; the limit is ${MAX_TX_JSON_BYTES}`, 'limit', { size, limit: MAX_TX_JSON_BYTES });
    }
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (err) {
      if (!isLedgerError(err)) throw err;
      throw invalid('MALFORMED_TRANSACTION', `transaction is not valid JSON: ${err.message}`, { ...err.data });
    }
    const { tx, chainId } = transactionFromJson(value);
    if (chainId !== undefined && chainId !== this.o.chainId) {
      throw invalid('WRONG_CHAIN', `transaction is for chain ${JSON.stringify(chainId)}; this node runs ${JSON.stringify(this.o.chainId)}`, {
        expected: this.o.chainId,
        given: chainId,
      });
    }
    return this.admitDecoded(tx);
  }

  /**
   * A committee member's VRF proof, checked at admission against the request's seed: a bad one is
   * refused here rather than included as failed, and a good one is memoized, so executing its block
   * on the consensus path costs a lookup. A request not committed (yet, or any more) is left to
   * execution, which fails the attestation with the reason.
   */
  private async checkVrfProof(senderPubkey: Uint8Array, p: PayloadOf<'CredentialAttest'>): Promise<void> {
    const request = await readCredential(this.state, p.credentialId);
    if (request && !ecvrfVerifyCached(senderPubkey, request.seed, p.vrfProof)) {
      throw invalid('BAD_VRF_PROOF', `the VRF proof does not verify for the seed of credential request ${formatCredentialId(p.credentialId)}`, {
        credentialId: formatCredentialId(p.credentialId),
      });
    }
  }

  /**
   * Admits an already decoded transaction (gossip); its payload is checked as the JSON decoder
   * would. That decoder only checks (it changes nothing it accepts), so the transaction itself is
   * admitted, with the encoding and hash it already carries.
   */
  async admit(tx: Transaction): Promise<AdmitResult> {
    if (!(tx.senderPubkey instanceof Uint8Array) || tx.senderPubkey.length !== 32) throw invalid('MALFORMED_TRANSACTION', 'sender_pubkey must be 32 bytes');
    if (!(tx.signature instanceof Uint8Array) || tx.signature.length !== 64) throw invalid('MALFORMED_TRANSACTION', 'signature must be 64 bytes');
    if (typeof tx.nonce !== 'bigint' || tx.nonce < 0n || tx.nonce > U64_MAX) throw invalid('MALFORMED_TRANSACTION', 'nonce must be an integer from 0 to 2^64-1');
    // The JSON decoder holds the payload rules (positive amounts, DID syntax, service limits).
    try {
      payloadFromJson(payloadToJson(tx.payload, 'raw'));
    } catch (err) {
      if (isLedgerError(err)) throw err;
      throw invalid('MALFORMED_PAYLOAD', 'payload is not a transaction payload this node knows');
    }
    return this.admitDecoded(tx);
  }

  private async admitDecoded(tx: Transaction): Promise<AdmitResult> {
    const size = encodeTransaction(tx).length;
    if (size > MAX_TX_BYTES) {
      throw new LedgerError('TX_TOO_LARGE', `transaction encodes to ${size} bytes; the limit is ${MAX_TX_BYTES}`, 'limit', { size, limit: MAX_TX_BYTES });
    }
    const hash = transactionHash(this.o.chainId, tx);
    if (this.index.has(hash)) throw conflict('ALREADY_KNOWN', `transaction ${hash} is already pending`, { hash });
    if (!(await this.verifySignatures([tx]))[0]) throw invalid('BAD_SIGNATURE', BAD_SIGNATURE_MESSAGE, { hash, chainId: this.o.chainId });
    if (tx.payload.kind === 'CredentialAttest') await this.checkVrfProof(tx.senderPubkey, tx.payload);
    const sender = addressBytesFromPublicKey(tx.senderPubkey);
    for (;;) {
      const epoch = this.epoch;
      const view = await readView(this.state, this.o.network, sender, [tx]);
      if (epoch !== this.epoch) continue; // a block committed meanwhile: read the new state
      return this.insertChecked(tx, hash, sender, size, view);
    }
  }

  /** Everything after the state reads: synchronous, so no other admission interleaves. */
  private insertChecked(tx: Transaction, hash: string, sender: Uint8Array, size: number, view: Awaited<ReturnType<typeof readView>>): AdmitResult {
    if (this.index.has(hash)) throw conflict('ALREADY_KNOWN', `transaction ${hash} is already pending`, { hash });
    const key = toHex(sender);
    let q = this.index.queue(key);
    if (!q) q = new SenderQueue(key, sender, view.account.nonce, view.account.balance);
    else if (q.nonce !== view.account.nonce || q.balance !== view.account.balance) this.index.setCommitted(q, view.account.nonce, view.account.balance);

    const nonce = tx.nonce;
    if (nonce < q.nonce) {
      throw conflict('NONCE_TOO_LOW', `nonce ${nonce} is already used; the next nonce is ${q.nonce}`, { expected: q.nonce, given: nonce });
    }
    const taken = q.find(nonce);
    if (taken) {
      throw conflict('NONCE_TAKEN', `pending transaction ${taken.hash} already has nonce ${nonce}; fees are fixed, so it cannot be replaced`, {
        nonce,
        pendingHash: taken.hash,
      });
    }
    const next = q.nextReadyNonce;
    if (nonce > next + BigInt(this.o.maxNonceGap)) {
      throw new LedgerError('NONCE_TOO_HIGH', `nonce ${nonce} is too far ahead: the next nonce is ${next} and at most ${this.o.maxNonceGap} may be skipped`, 'limit', {
        expected: next,
        given: nonce,
        maxGap: this.o.maxNonceGap,
      });
    }
    const cost = payloadDebit(tx.payload) + feeFor(tx.payload.kind);
    const behindCost = q.costAfter(nonce);
    const kind = tx.payload.kind;
    const ahead = AHEAD_KINDS.has(kind) ? q.before(nonce) : [];
    const err = checkState(this.o.network, tx, sender, cost, view, { ahead, aheadCost: q.totalCost - behindCost, behindCost, all: q.entries });
    if (err) throw err;
    if (q.length >= this.o.maxPerSender) {
      throw new LedgerError('MEMPOOL_FULL', `sender already has ${q.length} pending transactions, the most one sender may have`, 'limit', {
        reason: 'per_sender',
        limit: this.o.maxPerSender,
      });
    }
    const evicted = this.index.makeRoom(q, size, nonce === next);
    const entry: PendingTx = { tx, hash, sender, nonce, size, cost, arrival: this.arrivals++, admittedAtMs: this.o.now() };
    this.index.insert(q, entry);
    for (const listener of this.listeners) {
      try {
        listener(entry);
      } catch (e) {
        this.o.onListenerError?.(e);
      }
    }
    return { hash, ready: nonce < q.nextReadyNonce, evicted };
  }

  /**
   * Up to `maxCount` transactions ready for a block, in the order to execute them: per sender a
   * contiguous nonce run from its committed next nonce, across senders by arrival of each head
   * (select.ts). `opts.skip` names those the block's uncommitted ancestors already carry.
   */
  select(maxCount: number, opts: SelectOptions = {}): Transaction[] {
    return this.selectEntries(maxCount, opts).map((e) => e.tx);
  }

  selectEntries(maxCount: number, opts: SelectOptions = {}): PendingTx[] {
    return selectReady(this.index.queues(), maxCount, opts.maxBytes ?? Number.POSITIVE_INFINITY, opts.skip);
  }

  remove(hash: string): boolean {
    return this.index.removeHash(hash) !== undefined;
  }

  /**
   * After a block commits: removes its transactions, then re-checks the affected senders against
   * the new state and drops what it invalidates. `senders` (addresses or public keys of the block's
   * transactions) names whom to re-check; without it every pending sender is re-checked, because a
   * committed transaction this pool never saw can still use a nonce or spend a balance. Calls run
   * one after another, in the order made.
   */
  onCommitted(txHashes: Iterable<string>, state: StateReader, senders?: Iterable<Uint8Array>): Promise<CommitResult> {
    const run = this.commits.then(() => this.applyCommit([...txHashes], state, senders && [...senders]));
    this.commits = run.catch(() => undefined);
    return run;
  }

  private async applyCommit(txHashes: string[], state: StateReader, senders: Uint8Array[] | undefined): Promise<CommitResult> {
    this.state = state;
    this.epoch++;
    const removed: string[] = [];
    const touched = new Set<SenderQueue>();
    for (const hash of txHashes) {
      const q = this.index.removeHash(hash);
      if (!q) continue;
      removed.push(hash);
      touched.add(q);
    }
    if (senders === undefined) for (const q of this.index.queues()) touched.add(q);
    else {
      for (const s of senders) {
        const q = this.index.queue(toHex(s.length === 32 ? addressBytesFromPublicKey(s) : s));
        if (q) touched.add(q);
      }
    }
    const dropped: CommitResult['dropped'] = [];
    const queues = [...touched];
    for (let i = 0; i < queues.length; i += 64) {
      await Promise.all(queues.slice(i, i + 64).map((q) => this.revalidate(q, state, dropped)));
    }
    return { removed, dropped };
  }

  private async revalidate(q: SenderQueue, state: StateReader, dropped: CommitResult['dropped']): Promise<void> {
    if (this.index.queue(q.key) !== q) return;
    const view = await readView(state, this.o.network, q.address, q.entries.map((e) => e.tx));
    if (this.index.queue(q.key) !== q) return; // emptied meanwhile; a new queue read the new state itself
    const expected = view.account.nonce;
    for (const e of this.index.setCommitted(q, expected, view.account.balance)) {
      const error = conflict('NONCE_TOO_LOW', `nonce ${e.nonce} was used by a committed transaction`, { expected, given: e.nonce });
      dropped.push({ hash: e.hash, error });
    }
    const kept: PendingTx[] = [];
    let keptCost = 0n;
    for (const e of [...q.entries]) {
      const error = checkState(this.o.network, e.tx, q.address, e.cost, view, { ahead: kept, aheadCost: keptCost, behindCost: 0n, all: kept });
      if (!error) {
        kept.push(e);
        keptCost += e.cost;
      } else {
        this.index.remove(q, e);
        dropped.push({ hash: e.hash, error });
      }
    }
  }
}
