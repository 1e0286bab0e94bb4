import t from 'tap';
import { OrphanPool } from '../../node/consensus/orphans.js';
import { blockHash, type Block } from '../../node/protocol/block.js';
import { genesisBlock } from './harness.js';

function child(parent: Block, salt: number): Block {
  const header = { ...parent.header, height: parent.header.height + 1, parentHash: parent.hash, timestampMs: parent.header.timestampMs + salt };
  return { header, hash: blockHash(header), transactions: [] };
}

const g = genesisBlock();
const peer = new Uint8Array(20).fill(1);

t.test('orphans wait for their parent and leave with it', async (t) => {
  const pool = new OrphanPool(10);
  const a = child(g, 1);
  const b = child(a, 1);
  const b2 = child(a, 2);
  t.ok(pool.add(b, peer));
  t.ok(pool.add(b2, peer));
  t.ok(pool.add(b, peer), 'adding twice is harmless');
  t.equal(pool.size, 2);
  t.ok(pool.has(b.hash));
  t.same(pool.takeChildren(g.hash), [], 'nothing waits for genesis');
  t.same(pool.takeChildren(a.hash).map((o) => o.block.hash), [b.hash, b2.hash]);
  t.equal(pool.size, 0);
});

t.test('the pool is bounded and pruned at commits', async (t) => {
  const pool = new OrphanPool(2);
  const a = child(g, 1);
  const b = child(a, 1);
  const c = child(b, 1);
  t.ok(pool.add(b, peer));
  t.ok(pool.add(c, peer));
  t.notOk(pool.add(child(c, 1), peer), 'full');
  pool.pruneTo(2);
  t.notOk(pool.has(b.hash), 'at or below the committed height: gone');
  t.ok(pool.has(c.hash));
  t.ok(pool.add(child(c, 1), peer), 'room again');
});

t.test('the lowest missing parent is the next block to fetch, never an orphan itself', async (t) => {
  const pool = new OrphanPool(10);
  t.equal(pool.lowestMissingParent(), undefined, 'nothing waits');
  const a = child(g, 1);
  const b = child(a, 1);
  const c = child(b, 1);
  const e = child(child(c, 1), 1);
  pool.add(e, peer);
  t.same(pool.lowestMissingParent(), { hash: e.header.parentHash, height: 4 });
  pool.add(c, peer);
  t.same(pool.lowestMissingParent(), { hash: b.hash, height: 2 }, 'the lower gap first');
  pool.add(b, peer);
  t.same(pool.lowestMissingParent(), { hash: a.hash, height: 1 }, "b's parent, not b, which the pool holds");
  pool.takeChildren(a.hash);
  t.same(pool.lowestMissingParent(), { hash: b.hash, height: 2 });
});
