import { MAX_SYNC_RESPONSE_BYTES } from '../consensus/codec.js';

/**
 * Flood protection: token buckets per peer and protocol, and a score per peer that penalties
 * lower and time restores. A peer whose score falls to the ban threshold is disconnected and
 * refused for a while.
 */

/** The largest consensus frame: a sync answer of 64 blocks (the codec caps each type further). */
export const MAX_CONSENSUS_FRAME_BYTES = MAX_SYNC_RESPONSE_BYTES + 1024 * 1024;
/** The largest transaction batch frame; senders keep batches under MAX_TX_BATCH_BYTES (tx-batch.ts). */
export const MAX_TX_FRAME_BYTES = 2 * 1024 * 1024;
/** One presentation (node/verification/presentation.ts caps its JSON at 64 KiB), with room for framing. */
export const MAX_PRESENTATION_FRAME_BYTES = 80 * 1024;

export interface PeerLimits {
  /** largest consensus frame (a proposal with a full block, or a sync answer) */
  maxConsensusFrameBytes: number;
  /** largest transaction batch frame */
  maxTxFrameBytes: number;
  consensusFramesPerSecond: number;
  consensusBytesPerSecond: number;
  txFramesPerSecond: number;
  txBytesPerSecond: number;
  presentationFramesPerSecond: number;
  presentationBytesPerSecond: number;
  /** score at or below which a peer is banned (penalties subtract; the score starts at 0) */
  banThreshold: number;
  banMs: number;
  /** points a penalized score recovers per second */
  recoveryPerSecond: number;
}

/**
 * Sized for a devnet at ~2,000 tx/s: a peer sends at most ~200 tx frames a second (one flush per
 * 5 ms) and a few hundred consensus messages, so the limits only bite on a flood.
 */
export const DEFAULT_PEER_LIMITS: Readonly<PeerLimits> = Object.freeze({
  maxConsensusFrameBytes: MAX_CONSENSUS_FRAME_BYTES,
  maxTxFrameBytes: MAX_TX_FRAME_BYTES,
  consensusFramesPerSecond: 2_000,
  consensusBytesPerSecond: 64 * 1024 * 1024,
  txFramesPerSecond: 1_000,
  txBytesPerSecond: 16 * 1024 * 1024,
  // a presentation is one frame; a subject presents once per request
  presentationFramesPerSecond: 500,
  presentationBytesPerSecond: 8 * 1024 * 1024,
  banThreshold: -100,
  banMs: 60_000,
  recoveryPerSecond: 1,
});

/** Penalty weights; consensus and the mempool pass their own through `penalize`. */
export const PENALTY = Object.freeze({
  oversizedFrame: 50,
  undecodable: 20,
  rateLimited: 2,
  default: 10,
});

/**
 * Allows `rate` units a second with bursts up to one second's worth. A full bucket admits one
 * request larger than its capacity (going into debt), so a low byte rate never blocks a
 * legitimate large frame forever.
 */
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
    this.tokens = Math.min(this.rate, this.tokens + (Math.max(0, now - this.at) / 1000) * this.rate);
    this.at = now;
    if (this.tokens < Math.min(units, this.rate)) return false;
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
    if (this.isBanned(peer, now)) return false;
    const score = this.score(peer, now) - weight;
    if (score > this.limits.banThreshold) {
      this.scores.set(peer, { score, at: now });
      return false;
    }
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

  /** Forgets expired bans and fully recovered scores, so the maps stay bounded by active peers. */
  prune(now: number): void {
    for (const peer of this.bans.keys()) this.isBanned(peer, now);
    for (const peer of this.scores.keys()) this.score(peer, now);
  }
}
