import t from 'tap';
import { BlockSync, collectAncestors, collectRange, RangeSync } from '../../node/consensus/sync.js';
import { blockHash, encodeBlock, type Block, type BlockHeader } from '../../node/protocol/block.js';
import { toHex } from '../../node/protocol/bytes.js';
import { genesisBlock } from './harness.js';

/** A chain g <- b1 <- ... <- bn, each block justified by a QC for its parent. */
function chain(n: number): Block[] {
  const out = [genesisBlock()];
  for (let i = 1; i <= n; i++) {
    const p = out[i - 1]!;
    const header: BlockHeader = {
      ...p.header,
      height: i,
      round: i,
      parentHash: p.hash,
      justify: { round: p.header.round, height: p.header.height, blockHash: p.hash, signers: new Uint8Array(0), signature: new Uint8Array(0) },
    };
    out.push({ header, hash: blockHash(header), transactions: [] });
  }
  return out;
}

const blocks = chain(100);
const byHash = new Map(blocks.map((b) => [toHex(b.hash), b]));
const lookup = async (h: Uint8Array) => byHash.get(toHex(h));

t.test('collectAncestors walks back from the hash, oldest first, above the stop height, at most max', async (t) => {
  const got = await collectAncestors(blocks[10]!.hash, 4, 64, lookup);
  t.same(got.map((b) => b.header.height), [5, 6, 7, 8, 9, 10]);
  const capped = await collectAncestors(blocks[100]!.hash, 0, 500, lookup);
  t.equal(capped.length, 64, 'never more than MAX_SYNC_BLOCKS');
  t.equal(capped[63]!.header.height, 100);
  t.same(await collectAncestors(new Uint8Array(32).fill(7), 0, 10, lookup), [], 'unknown hash: nothing');
  const one = encodeBlock(blocks[10]!).length + 8;
  const bySize = await collectAncestors(blocks[10]!.hash, 0, 64, lookup, 3 * one);
  t.same(bySize.map((b) => b.header.height), [8, 9, 10], 'a byte budget keeps the newest blocks');
  t.equal((await collectAncestors(blocks[10]!.hash, 0, 64, lookup, 1)).length, 1, 'the requested block always goes');
});

t.test('BlockSync accepts only answers it asked for, linked by parent hashes and QCs', async (t) => {
  const s = new BlockSync(1_000);
  const answer = blocks.slice(3, 8);
  t.equal(s.acceptResponse(answer), 'unsolicited-sync', 'nothing was asked');
  t.ok(s.shouldRequest(blocks[7]!.hash, 0));
  t.notOk(s.shouldRequest(blocks[7]!.hash, 500), 'a fresh request is not repeated');
  t.ok(s.shouldRequest(blocks[7]!.hash, 1_500), 'a stale one is');
  const broken = [answer[0]!, answer[2]!, answer[3]!, answer[4]!];
  t.equal(s.acceptResponse(broken), 'bad-sync', 'a gap in the chain');
  t.ok(s.shouldRequest(blocks[7]!.hash, 3_000));
  t.equal(s.acceptResponse(answer), undefined);
  t.equal(s.acceptResponse(answer), 'unsolicited-sync', 'an answer is taken once');
  const forged = { ...blocks[9]!, header: { ...blocks[9]!.header, justify: { ...blocks[9]!.header.justify, blockHash: new Uint8Array(32) } } };
  t.ok(s.shouldRequest(forged.hash, 4_000));
  t.equal(s.acceptResponse([blocks[8]!, forged]), 'bad-sync', 'parent and QC must name the same block');
});

t.test('collectRange: committed blocks by height, at most max and the byte budget', async (t) => {
  const at = async (h: number) => blocks[h];
  t.same((await collectRange(5, 3, at)).map((b) => b.header.height), [5, 6, 7]);
  t.equal((await collectRange(1, 500, at)).length, 64, 'never more than MAX_SYNC_BLOCKS');
  t.same((await collectRange(98, 10, at)).map((b) => b.header.height), [98, 99, 100], 'stops at the head');
  t.same(await collectRange(101, 10, at), [], 'nothing above the head');
  t.equal((await collectRange(1, 64, at, 1)).length, 1, 'the first block always goes');
});

t.test('RangeSync: one request in flight; an answer certified by its last block, cut at the boundary', async (t) => {
  const s = new RangeSync(1_000);
  t.same(s.accept(blocks.slice(5, 10), undefined), { ok: false, reason: 'unsolicited-sync' });
  t.ok(s.shouldRequest(5, 0));
  t.notOk(s.shouldRequest(5, 500), 'one at a time');
  const ok = s.accept(blocks.slice(5, 10), undefined);
  t.ok(ok.ok);
  if (ok.ok) {
    t.same(ok.certified.map((b) => b.header.height), [5, 6, 7, 8], 'the last block only brings its QC');
    t.equal(ok.qc.height, 8, 'which certifies the block before it');
  }
  t.ok(s.shouldRequest(5, 600), 'answered: the next request may go');
  t.same(s.accept(blocks.slice(6, 10), undefined), { ok: false, reason: 'bad-sync' }, 'not from the height asked for');
  s.shouldRequest(5, 700);
  t.same(s.accept([blocks[5]!, blocks[7]!], undefined), { ok: false, reason: 'bad-sync' }, 'a gap');
  s.shouldRequest(5, 800);
  const cut = s.accept(blocks.slice(5, 10), 7);
  t.ok(cut.ok && cut.certified.length === 2 && cut.qc.height === 6, 'blocks past the boundary are left out');
  s.shouldRequest(7, 900);
  t.same(s.accept(blocks.slice(7, 10), 7), { ok: false, reason: 'short-range' }, 'nothing certified before the boundary');
});
