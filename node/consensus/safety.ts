import type { Block, QuorumCertificate } from '../protocol/block.js';
import { bytesEqual } from '../protocol/bytes.js';
import type { SafetyState, TimeoutCertificate } from './types.js';

/**
 * The safety rules, as pure functions over SafetyState: no I/O, no clock. The engine persists the
 * state these return before it sends the vote or timeout they allowed.
 *
 *  - vote rule: a validator votes at most once per round, only for a round above the last one it
 *    voted or timed out in, and only for a block that extends its locked block or whose justify
 *    QC is newer than the lock (HotStuff's safeNode predicate);
 *  - lock rule: on a QC for b'', lock on b''.justify (the QC of b', the head of the 2-chain);
 *  - high QC / high TC: keep the highest seen; the current round is one past the higher of them.
 */

/** What the vote rule needs to know about the block tree: a block's round and parent by hash. */
export type AncestorLookup = (hash: Uint8Array) => { round: number; parentHash: Uint8Array } | undefined;

/** The rules at the start of an epoch: locked on, and extending, the epoch's start QC. */
export function initialSafety(startQc: QuorumCertificate, epoch = 0): SafetyState {
  return { epoch, lastVotedRound: 0, lockedQc: startQc, highQc: startQc, highTc: undefined };
}

export function currentRound(s: SafetyState): number {
  return Math.max(s.highQc.round, s.highTc?.round ?? 0) + 1;
}

export function updateHighQc(s: SafetyState, qc: QuorumCertificate): SafetyState {
  return qc.round > s.highQc.round ? { ...s, highQc: qc } : s;
}

export function updateHighTc(s: SafetyState, tc: TimeoutCertificate): SafetyState {
  return tc.round > (s.highTc?.round ?? 0) ? { ...s, highTc: tc } : s;
}

/**
 * On a QC for block b'' (whose own justify certifies b'): lock on b'.
 * `certifiedJustify` is b''.header.justify.
 */
export function updateLock(s: SafetyState, certifiedJustify: QuorumCertificate): SafetyState {
  return certifiedJustify.round > s.lockedQc.round ? { ...s, lockedQc: certifiedJustify } : s;
}

/**
 * Whether a proposal is well formed for its round: it extends the block its justify certifies,
 * one level up, and either follows its justify round directly or comes with a TC for the round
 * before it whose high QC the justify is at least as high as.
 */
export function proposalShapeError(block: Block, tc: TimeoutCertificate | undefined): string | undefined {
  const h = block.header;
  if (!bytesEqual(h.parentHash, h.justify.blockHash)) return 'the block does not extend the block its justify certifies';
  if (h.height !== h.justify.height + 1) return 'the block height is not its justify height + 1';
  if (h.justify.round >= h.round) return 'the justify round is not below the block round';
  if (h.round === h.justify.round + 1) return undefined;
  if (!tc) return 'the block skips rounds without a timeout certificate';
  if (tc.round !== h.round - 1) return 'the timeout certificate is not for the previous round';
  if (h.justify.round < tc.highQc.round) return 'the justify is older than the highest QC in the timeout certificate';
  return undefined;
}

/** Whether the block descends from `ancestor` (walks parents while their round is above it). */
export function extendsBlock(block: Block, ancestor: QuorumCertificate, lookup: AncestorLookup): boolean {
  let hash = block.hash;
  let round = block.header.round;
  let parent = block.header.parentHash;
  while (round > ancestor.round) {
    if (bytesEqual(hash, ancestor.blockHash)) return true;
    const p = lookup(parent);
    if (!p) return false;
    hash = parent;
    round = p.round;
    parent = p.parentHash;
  }
  return bytesEqual(hash, ancestor.blockHash);
}

export type VoteDecision = { ok: true } | { ok: false; reason: string };

export function safeToVote(s: SafetyState, block: Block, lookup: AncestorLookup): VoteDecision {
  const round = block.header.round;
  if (round <= s.lastVotedRound) return { ok: false, reason: `already voted or timed out in round ${s.lastVotedRound} >= ${round}` };
  if (block.header.justify.round > s.lockedQc.round) return { ok: true };
  if (extendsBlock(block, s.lockedQc, lookup)) return { ok: true };
  return { ok: false, reason: `the block neither extends the locked block (round ${s.lockedQc.round}) nor carries a newer QC` };
}

/** After voting in `round`: never vote in it (or below) again. */
export function recordVote(s: SafetyState, round: number): SafetyState {
  return round > s.lastVotedRound ? { ...s, lastVotedRound: round } : s;
}

/**
 * A timeout may be signed for the current round or a later one (joining others that gave up on
 * it); afterwards this validator votes in no round up to it. Timeouts only move rounds, so a
 * timeout can never make two conflicting blocks certified.
 */
export function safeToTimeout(s: SafetyState, round: number): boolean {
  return round >= currentRound(s) && round >= s.lastVotedRound;
}

export const recordTimeout = recordVote;

/**
 * The 3-chain commit rule: with b0 <- b1 <- b2 (each the parent of the next, each certified by
 * the next one's justify) and a QC for b2, b0 commits when the rounds are consecutive:
 * b1.round = b0.round + 1 and b2.round = b1.round + 1.
 */
export function threeChainCommits(b0Round: number, b1Round: number, b2Round: number): boolean {
  return b1Round === b0Round + 1 && b2Round === b1Round + 1;
}
