import { encodeBlock, type Block, type QuorumCertificate } from '../protocol/block.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import { MAX_SYNC_BLOCKS, MAX_SYNC_RESPONSE_BYTES } from './codec.js';

/** room for the blocks of one sync answer: the message cap less its header */
export const SYNC_ANSWER_BYTES = MAX_SYNC_RESPONSE_BYTES - 1024;

/**
 * Catching up on missing blocks by hash. A node that sees a block or QC whose ancestors it lacks
 * asks the peer that sent it for the ancestors, at most MAX_SYNC_BLOCKS at a time; the oldest
 * block of an answer whose parent is still unknown triggers the next request, so a long gap is
 * walked back batch by batch. The requested hash was vouched for by a verified QC or a signed
 * proposal, and each block of an answer is the parent of the next, so the hash chain
 * authenticates every block in it; each is then re-executed like any proposal before it enters
 * the tree.
 */
export class BlockSync {
  /** hex hash -> when we asked for it */
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly retryMs = 1_000) {}

  /** Whether to send a request for `hash` now (false while an earlier one is fresh). */
  shouldRequest(hash: Uint8Array, now: number): boolean {
    const key = toHex(hash);
    const at = this.inFlight.get(key);
    if (at !== undefined && now - at < this.retryMs) return false;
    this.inFlight.set(key, now);
    if (this.inFlight.size > 4 * MAX_SYNC_BLOCKS) {
      for (const [k, t] of this.inFlight) if (now - t >= this.retryMs) this.inFlight.delete(k);
    }
    return true;
  }

  /**
   * Checks an answer: it must end with a hash we asked for, and its blocks must form a chain in
   * which each block's parent is the block its QC certifies. Returns the reason to drop it, or
   * undefined when it can be received.
   */
  acceptResponse(blocks: Block[]): string | undefined {
    const last = blocks[blocks.length - 1];
    if (!last || !this.inFlight.delete(toHex(last.hash))) return 'unsolicited-sync';
    return isChain(blocks) ? undefined : 'bad-sync';
  }
}

/** Each block extends the one before it and the block its justify certifies, one height up. */
export function isChain(blocks: Block[]): boolean {
  return blocks.every((b, i) => {
    const h = b.header;
    const linked = i === 0 || bytesEqual(h.parentHash, blocks[i - 1]!.hash);
    return linked && bytesEqual(h.parentHash, h.justify.blockHash) && h.height === h.justify.height + 1;
  });
}

export type RangeAnswer = { ok: true; certified: Block[]; qc: QuorumCertificate } | { ok: false; reason: string };

/**
 * Catching up by height (seq), for a node further behind than one hash-sync answer: it asks for
 * the committed blocks above its own, MAX_SYNC_BLOCKS at a time, one request in flight. Nothing
 * vouches for the answer in advance, so the last block's justify QC (checked by the engine) must
 * certify the block before it; the hash chain then authenticates every block up to that one. The
 * last block only serves for its QC, and the next request starts at it.
 */
export class RangeSync {
  private inFlight: { fromHeight: number; at: number } | undefined;

  constructor(private readonly retryMs = 2_000) {}

  /** Whether to ask for blocks from `fromHeight` now (false while an earlier request is fresh). */
  shouldRequest(fromHeight: number, now: number): boolean {
    if (this.inFlight && now - this.inFlight.at < this.retryMs) return false;
    this.inFlight = { fromHeight, at: now };
    return true;
  }

  /**
   * Checks an answer: the blocks asked for, forming a chain. Blocks past `lastHeight` (the
   * epoch's boundary) are left out: their QCs are of the next epoch's set, which this node only
   * trusts after crossing with the epoch proof.
   */
  accept(blocks: Block[], lastHeight: number | undefined): RangeAnswer {
    const asked = this.inFlight;
    this.inFlight = undefined;
    if (!asked) return { ok: false, reason: 'unsolicited-sync' };
    if (blocks[0]?.header.height !== asked.fromHeight || !isChain(blocks)) return { ok: false, reason: 'bad-sync' };
    const mine = lastHeight === undefined ? blocks : blocks.filter((b) => b.header.height <= lastHeight);
    if (mine.length < 2) return { ok: false, reason: 'short-range' };
    return { ok: true, certified: mine.slice(0, -1), qc: mine[mine.length - 1]!.header.justify };
  }
}

/**
 * The blocks `next` yields, in its order, until it ends, at most `max` (and MAX_SYNC_BLOCKS) of
 * them and at most `maxBytes` of encoded blocks; the first always goes (a single block fits by
 * the proposal cap), so an answer is never empty while there is a block to give.
 */
async function takeWithinBudget(next: AsyncIterable<Block>, max: number, maxBytes: number): Promise<Block[]> {
  const limit = Math.min(max, MAX_SYNC_BLOCKS);
  const out: Block[] = [];
  let bytes = 0;
  if (limit <= 0) return out;
  for await (const b of next) {
    bytes += encodeBlock(b).length + 8;
    if (out.length > 0 && bytes > maxBytes) break;
    out.push(b);
    if (out.length >= limit) break;
  }
  return out;
}

/** Committed blocks from `fromHeight` on, within the budget, for a peer that catches up by height. */
export function collectRange(
  fromHeight: number,
  max: number,
  lookup: (height: number) => Promise<Block | undefined>,
  maxBytes = SYNC_ANSWER_BYTES,
): Promise<Block[]> {
  async function* byHeight() {
    for (let h = fromHeight; ; h++) {
      const b = await lookup(h);
      if (!b) return;
      yield b;
    }
  }
  return takeWithinBudget(byHeight(), max, maxBytes);
}

/**
 * The ancestors of `hash` (inclusive) above `stopAtHeight`, oldest first, within the budget (the
 * newest block always goes).
 */
export async function collectAncestors(
  hash: Uint8Array,
  stopAtHeight: number,
  max: number,
  lookup: (hash: Uint8Array) => Promise<Block | undefined>,
  maxBytes = SYNC_ANSWER_BYTES,
): Promise<Block[]> {
  async function* walkBack() {
    for (let h = hash; ; ) {
      const b = await lookup(h);
      if (!b || b.header.height <= stopAtHeight) return;
      yield b;
      if (b.header.height === 0) return;
      h = b.header.parentHash;
    }
  }
  return (await takeWithinBudget(walkBack(), max, maxBytes)).reverse();
}
