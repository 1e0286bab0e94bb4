import type { Block } from '../../protocol/block.js';
import { MAX_SYNC_BLOCKS } from '../codec.js';
import { BlockSync, collectAncestors, collectRange, RangeSync } from '../sync.js';
import type { EngineCore, EngineSteps } from './core.js';

/**
 * Catching up on missing blocks: asking peers by hash (ancestors of a block, for short gaps) or
 * by height (committed blocks, far behind), answering their asks, and taking the answers in.
 */
export class CatchUp {
  private readonly sync = new BlockSync();
  private readonly ranges = new RangeSync();
  /** the next height to ask for by range, and the highest block seen that we lack */
  private rangeNext = 0;
  private syncTarget = 0;
  private peerCursor = 0;

  constructor(
    private readonly c: EngineCore,
    private readonly steps: Pick<EngineSteps, 'receiveBlocks' | 'processQc'>,
  ) {}

  /** Ask `to` for the missing block `hash` at `height` and its ancestors: by hash when the gap is short, else by height. */
  requestSync(to: Uint8Array, hash: Uint8Array, height: number): void {
    const c = this.c;
    if (c.isMe(to)) return;
    if (height - c.tree.root.header.height > MAX_SYNC_BLOCKS) {
      this.syncTarget = Math.max(this.syncTarget, height);
      return this.requestRange(to);
    }
    if (!this.sync.shouldRequest(hash, c.clock.now())) return;
    c.o.transport.send(to, c.msg({ type: 'sync-request', request: { hash, stopAtHeight: c.tree.root.header.height, max: MAX_SYNC_BLOCKS } }));
  }

  /** Another validator to ask for a block no peer in particular announced: each ask goes to the next one, so a dead peer costs one try. */
  anyPeer(): Uint8Array {
    const vs = this.c.validators.validators;
    for (let i = 0; i < vs.length; i++) {
      const v = vs[this.peerCursor++ % vs.length]!;
      if (!this.c.isMe(v.address)) return v.address;
    }
    return this.c.me;
  }

  async onSyncRequest(from: Uint8Array, hash: Uint8Array, stopAtHeight: number, max: number): Promise<void> {
    const c = this.c;
    const blocks = await collectAncestors(hash, stopAtHeight, max, async (h) => c.tree.get(h) ?? (await c.o.app.getCommittedBlock(h)));
    if (blocks.length > 0) c.o.transport.send(from, c.msg({ type: 'sync-response', blocks }));
  }

  async onSyncResponse(from: Uint8Array, blocks: Block[]): Promise<void> {
    const bad = this.sync.acceptResponse(blocks);
    if (bad) return this.c.drop(bad, bad === 'bad-sync' ? from : undefined);
    await this.steps.receiveBlocks(blocks, from);
  }

  private requestRange(to: Uint8Array): void {
    const c = this.c;
    const fromHeight = Math.max(this.rangeNext, c.tree.root.header.height + 1);
    if (!this.ranges.shouldRequest(fromHeight, c.clock.now())) return;
    c.m.rangeRequests++;
    c.o.transport.send(to, c.msg({ type: 'range-request', request: { fromHeight, max: MAX_SYNC_BLOCKS } }));
  }

  async onRangeRequest(from: Uint8Array, fromHeight: number, max: number): Promise<void> {
    const c = this.c;
    const blocks = await collectRange(fromHeight, max, (h) => c.o.app.getCommittedBlockAt(h));
    if (blocks.length > 0) c.o.transport.send(from, c.msg({ type: 'range-response', blocks }));
  }

  /** Blocks by height: certified by the last one's QC, they go in like synced ones; ask on while far behind. */
  async onRangeResponse(from: Uint8Array, blocks: Block[]): Promise<void> {
    const c = this.c;
    const res = this.ranges.accept(blocks, c.ep.info.lastHeight);
    if (!res.ok) return c.drop(res.reason, res.reason === 'bad-sync' ? from : undefined);
    if (!c.verifier.verifyQc(res.qc)) return c.drop('bad-qc', from);
    if (!(await this.steps.receiveBlocks(res.certified, from))) return;
    this.rangeNext = res.qc.height + 1;
    const ep = c.ep;
    await this.steps.processQc(res.qc, from);
    if (c.ep !== ep) return;
    // Far behind: on by height. Close: the orphans' missing parent by hash at once, rather than
    // when a later message happens to name it again.
    if (this.syncTarget - c.tree.root.header.height > MAX_SYNC_BLOCKS) return this.requestRange(from);
    const missing = c.orphans.lowestMissingParent();
    if (missing) this.requestSync(from, missing.hash, missing.height);
  }
}
