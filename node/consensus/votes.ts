import type { QuorumCertificate } from '../protocol/block.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import { timeoutDigest, voteDigest, type QuorumCrypto } from './crypto.js';
import type { Evidence, Timeout, TimeoutCertificate, Vote } from './types.js';
import type { ValidatorSet } from './validators.js';

/**
 * Collects votes (as the next leader) and timeouts (as everyone) until they reach more than 2/3
 * of the weight, then aggregates them into one certificate. Signatures are not checked one by
 * one as they arrive: the aggregate is checked once, and only if it fails is each signature
 * checked to find and drop the bad ones.
 */

interface Signed {
  index: number;
  message: Uint8Array;
  signature: Uint8Array;
  /** already checked (our own signature, or a proposal's) */
  trusted: boolean;
}

/** Aggregates and checks; on failure drops the bad signatures. Returns the good ones and the aggregate, if any. */
function aggregateChecked(crypto: QuorumCrypto, set: ValidatorSet, items: Signed[]): { good: Signed[]; bad: Signed[]; signature: Uint8Array | undefined } {
  const groups = () => {
    const m = new Map<string, { message: Uint8Array; publicKeys: Uint8Array[] }>();
    for (const it of items) {
      const k = toHex(it.message);
      const g = m.get(k) ?? { message: it.message, publicKeys: [] };
      g.publicKeys.push(set.at(it.index)!.blsPublicKey);
      m.set(k, g);
    }
    return [...m.values()];
  };
  try {
    const signature = crypto.aggregate(items.map((i) => i.signature));
    // Every signature already checked (our own, a verified proposal's): nothing left to prove.
    if (items.every((i) => i.trusted)) return { good: items, bad: [], signature };
    if (crypto.verifyAggregate(groups(), signature)) return { good: items, bad: [], signature };
  } catch {
    // a malformed signature: fall through and find it
  }
  const good: Signed[] = [];
  const bad: Signed[] = [];
  for (const it of items) (it.trusted || crypto.verify(it.message, it.signature, set.at(it.index)!.blsPublicKey) ? good : bad).push({ ...it, trusted: true });
  return { good, bad, signature: good.length > 0 ? crypto.aggregate(good.map((g) => g.signature)) : undefined };
}

export interface VoteResult {
  qc?: QuorumCertificate;
  evidence?: Evidence;
  /** votes dropped for a bad signature */
  rejected: number;
}

export class VoteCollector {
  /** round -> voter index -> first vote */
  private readonly byVoter = new Map<number, Map<number, { vote: Vote; trusted: boolean }>>();
  private readonly formed = new Set<number>();

  constructor(
    private readonly chainId: string,
    private readonly epoch: number,
    private readonly set: ValidatorSet,
    private readonly crypto: QuorumCrypto,
  ) {}

  add(vote: Vote, trusted: boolean): VoteResult {
    const index = this.set.indexOf(vote.voter);
    if (index === undefined) return { rejected: 1 };
    const round = this.byVoter.get(vote.round) ?? new Map<number, { vote: Vote; trusted: boolean }>();
    this.byVoter.set(vote.round, round);
    const prior = round.get(index);
    if (prior) {
      if (bytesEqual(prior.vote.blockHash, vote.blockHash) && prior.vote.height === vote.height) return { rejected: 0 };
      return { evidence: this.equivocation(prior, vote, trusted, index), rejected: 0 };
    }
    round.set(index, { vote, trusted });
    if (this.formed.has(vote.round)) return { rejected: 0 };
    const same = [...round].filter(([, v]) => bytesEqual(v.vote.blockHash, vote.blockHash) && v.vote.height === vote.height);
    if (!this.set.isQuorum(this.set.weightOf(same.map(([i]) => i)))) return { rejected: 0 };
    const message = voteDigest(this.chainId, this.epoch, vote.round, vote.height, vote.blockHash);
    const res = aggregateChecked(this.crypto, this.set, same.map(([i, v]) => ({ index: i, message, signature: v.vote.signature, trusted: v.trusted })));
    for (const b of res.bad) round.delete(b.index);
    for (const g of res.good) round.get(g.index)!.trusted = true;
    const goodIdx = res.good.map((g) => g.index);
    if (!res.signature || !this.set.isQuorum(this.set.weightOf(goodIdx))) return { rejected: res.bad.length };
    this.formed.add(vote.round);
    const qc: QuorumCertificate = { round: vote.round, height: vote.height, blockHash: vote.blockHash, signers: this.set.bitmap(goodIdx), signature: res.signature };
    return { qc, rejected: res.bad.length };
  }

  /** Evidence only when both conflicting votes carry valid signatures. */
  private equivocation(prior: { vote: Vote; trusted: boolean }, vote: Vote, trusted: boolean, index: number): Evidence | undefined {
    const key = this.set.at(index)!.blsPublicKey;
    const ok = (v: Vote, t: boolean) => t || this.crypto.verify(voteDigest(this.chainId, this.epoch, v.round, v.height, v.blockHash), v.signature, key);
    if (!ok(prior.vote, prior.trusted) || !ok(vote, trusted)) return undefined;
    return { kind: 'double-vote', epoch: this.epoch, round: vote.round, validator: vote.voter, first: prior.vote, second: vote };
  }

  prune(belowRound: number): void {
    for (const r of this.byVoter.keys()) if (r < belowRound) this.byVoter.delete(r);
    for (const r of this.formed) if (r < belowRound) this.formed.delete(r);
  }
}

export class TimeoutCollector {
  private readonly byVoter = new Map<number, Map<number, { timeout: Timeout; trusted: boolean }>>();
  private readonly formed = new Set<number>();

  constructor(
    private readonly chainId: string,
    private readonly epoch: number,
    private readonly set: ValidatorSet,
    private readonly crypto: QuorumCrypto,
  ) {}

  /** The weight that timed out in `round` so far. */
  weight(round: number): bigint {
    return this.set.weightOf(this.byVoter.get(round)?.keys() ?? []);
  }

  /** `highQc` must already be verified by the caller. */
  add(t: Timeout, trusted: boolean): { tc?: TimeoutCertificate; rejected: number } {
    const index = this.set.indexOf(t.voter);
    if (index === undefined) return { rejected: 1 };
    const round = this.byVoter.get(t.round) ?? new Map<number, { timeout: Timeout; trusted: boolean }>();
    this.byVoter.set(t.round, round);
    if (round.has(index)) return { rejected: 0 };
    round.set(index, { timeout: t, trusted });
    if (this.formed.has(t.round) || !this.set.isQuorum(this.weight(t.round))) return { rejected: 0 };
    const entries = [...round].sort(([a], [b]) => a - b);
    const res = aggregateChecked(
      this.crypto,
      this.set,
      entries.map(([i, e]) => ({ index: i, message: timeoutDigest(this.chainId, this.epoch, e.timeout.round, e.timeout.highQc.round), signature: e.timeout.signature, trusted: e.trusted })),
    );
    for (const b of res.bad) round.delete(b.index);
    const good = entries.filter(([i]) => round.has(i));
    if (!res.signature || !this.set.isQuorum(this.set.weightOf(good.map(([i]) => i)))) return { rejected: res.bad.length };
    this.formed.add(t.round);
    let highQc = good[0]![1].timeout.highQc;
    for (const [, e] of good) if (e.timeout.highQc.round > highQc.round) highQc = e.timeout.highQc;
    const tc: TimeoutCertificate = {
      round: t.round,
      highQc,
      signers: this.set.bitmap(good.map(([i]) => i)),
      highQcRounds: good.map(([, e]) => e.timeout.highQc.round),
      signature: res.signature,
    };
    return { tc, rejected: res.bad.length };
  }

  prune(belowRound: number): void {
    for (const r of this.byVoter.keys()) if (r < belowRound) this.byVoter.delete(r);
    for (const r of this.formed) if (r < belowRound) this.formed.delete(r);
  }
}
