/**
 * Flood protection: token buckets per peer and protocol, and a score per peer that penalties
 * lower and time restores. A peer whose score falls to the ban threshold is disconnected and
 * refused for a while.
 */

export interface PeerLimits {
  /** largest consensus frame (a proposal with a full block, or a sync answer) */
  maxConsensusFrameBytes: number;
  /** largest transaction batch frame */
  maxTxFrameBytes: number;
  consensusFramesPerSecond: number;
  consensusBytesPerSecond: number;
  txFramesPerSecond: number;
  txBytesPerSecond: number;
  /** score at or below which a peer is banned (penalties subtract; the score starts at 0) */
  banThreshold: number;
  banMs: number;
  /** points a penalized score recovers per second */
  recoveryPerSecond: number;
}

export const DEFAULT_PEER_LIMITS: PeerLimits = {
  maxConsensusFrameBytes: 17 * 1024 * 1024,
  maxTxFrameBytes: 2 * 1024 * 1024,
  consensusFramesPerSecond: 2_000,
  consensusBytesPerSecond: 64 * 1024 * 1024,
  txFramesPerSecond: 1_000,
  txBytesPerSecond: 16 * 1024 * 1024,
  banThreshold: -100,
  banMs: 60_000,
  recoveryPerSecond: 1,
};

/** Allows `rate` units a second with bursts up to one second's worth. */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly rate: number,
    now: number,
  ) {
    this.tokens = rate;
    this.at = now;
  }

  take(units: number, now: number): boolean {
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
    if (this.tokens < units) return false;
    this.tokens -= units;
    return true;
  }
}

export class PeerScores {
  private readonly scores = new Map<string, { score: number; at: number }>();
  private readonly bans = new Map<string, number>();

  constructor(private readonly limits: Pick<PeerLimits, 'banThreshold' | 'banMs' | 'recoveryPerSecond'>) {}

  score(peer: string, now: number): number {
    const s = this.scores.get(peer);
    if (!s) return 0;
    const recovered = Math.min(0, s.score + ((now - s.at) / 1000) * this.limits.recoveryPerSecond);
    if (recovered === 0) this.scores.delete(peer);
    return recovered;
  }

  /** Lowers the score; true when this penalty bans the peer. */
  penalize(peer: string, weight: number, now: number): boolean {
    const score = this.score(peer, now) - weight;
    this.scores.set(peer, { score, at: now });
    if (score > this.limits.banThreshold || this.isBanned(peer, now)) return false;
    this.bans.set(peer, now + this.limits.banMs);
    this.scores.delete(peer);
    return true;
  }

  isBanned(peer: string, now: number): boolean {
    const until = this.bans.get(peer);
    if (until === undefined) return false;
    if (now < until) return true;
    this.bans.delete(peer);
    return false;
  }
}
