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
 * Committed blocks from `fromHeight` on, at most `max` and `maxBytes` of them (the first always
 * goes), for a peer that catches up by height.
 */
export async function collectRange(
  fromHeight: number,
  max: number,
  lookup: (height: number) => Promise<Block | undefined>,
  maxBytes = SYNC_ANSWER_BYTES,
): Promise<Block[]> {
  const out: Block[] = [];
  let bytes = 0;
  for (let h = fromHeight; out.length < Math.min(max, MAX_SYNC_BLOCKS); h++) {
    const b = await lookup(h);
    if (!b) break;
    bytes += encodeBlock(b).length + 8;
    if (out.length > 0 && bytes > maxBytes) break;
    out.push(b);
  }
  return out;
}

/**
 * The ancestors of `hash` (inclusive) above `stopAtHeight`, oldest first: at most `max` blocks
 * and at most `maxBytes` of encoded blocks (the newest block always goes, so an answer is never
 * empty while the hash is known; a single block fits by the proposal cap).
 */
export async function collectAncestors(
  hash: Uint8Array,
  stopAtHeight: number,
  max: number,
  lookup: (hash: Uint8Array) => Promise<Block | undefined>,
  maxBytes = SYNC_ANSWER_BYTES,
): Promise<Block[]> {
  const out: Block[] = [];
  let bytes = 0;
  let h = hash;
  while (out.length < Math.min(max, MAX_SYNC_BLOCKS)) {
    const b = await lookup(h);
    if (!b || b.header.height <= stopAtHeight) break;
    bytes += encodeBlock(b).length + 8;
    if (out.length > 0 && bytes > maxBytes) break;
    out.push(b);
    if (b.header.height === 0) break;
    h = b.header.parentHash;
  }
  return out.reverse();
}
