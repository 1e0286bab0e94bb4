import t from 'tap';
import { clipAtBoundary, epochProofError, startQcOf } from '../../node/consensus/epochs.js';
import { blockHash, type Block, type BlockHeader } from '../../node/protocol/block.js';
import { genesisBlock, transfer } from './harness.js';

/** A chain of `n` blocks on genesis, each justified by its parent; block i has height i + 1. */
function chain(n: number, txsAt: number[] = []): Block[] {
  const out: Block[] = [];
  let parent = genesisBlock();
  for (let i = 0; i < n; i++) {
    const header: BlockHeader = {
      ...parent.header,
      height: parent.header.height + 1,
      round: parent.header.round + 1,
      parentHash: parent.hash,
      justify: { round: parent.header.round, height: parent.header.height, blockHash: parent.hash, signers: Uint8Array.of(15), signature: new Uint8Array(96) },
    };
    const b: Block = { header, hash: blockHash(header), transactions: txsAt.includes(i) ? [transfer(i)] : [] };
    out.push(b);
    parent = b;
  }
  return out;
}

const qcOf = (b: Block) => ({ round: b.header.round, height: b.header.height, blockHash: b.hash, signers: Uint8Array.of(15), signature: new Uint8Array(96) });

t.test('the start QC is the start block with no signers', async (t) => {
  const qc = startQcOf({ epoch: 2, validators: [], start: { height: 19, round: 40, hash: new Uint8Array(32).fill(3) }, lastHeight: 29 });
  t.same(qc, { round: 40, height: 19, blockHash: new Uint8Array(32).fill(3), signers: new Uint8Array(0), signature: new Uint8Array(0) });
});

t.test('a commit that reaches the boundary stops at it', async (t) => {
  const blocks = chain(6); // heights 1..6
  t.same(clipAtBoundary(blocks, undefined), { blocks, ends: false }, 'no epochs');
  t.same(clipAtBoundary(blocks, 9), { blocks, ends: false }, 'the boundary is further on');
  const at4 = clipAtBoundary(blocks, 4);
  t.same(at4.blocks.map((b) => b.header.height), [1, 2, 3, 4]);
  t.ok(at4.ends);
  t.same(clipAtBoundary(blocks, 6).ends, true, 'the last block is the boundary');
  t.same(clipAtBoundary(blocks.slice(4), 4), { blocks: [], ends: false }, 'nothing at or below the boundary');
});

t.test('epoch proofs: the boundary, empty blocks on it, and the QC of the last', async (t) => {
  const blocks = chain(6);
  const proof = { blocks: blocks.slice(3, 6), qc: qcOf(blocks[5]!) }; // boundary at height 4
  t.equal(epochProofError(proof, 4), undefined);
  t.equal(epochProofError({ blocks: blocks.slice(3, 5), qc: qcOf(blocks[4]!) }, 4), 'a 3-chain on the boundary needs two blocks above it');
  t.match(epochProofError(proof, 5), /not this epoch's boundary/);
  t.match(epochProofError(proof, undefined), /not this epoch's boundary/, 'no proof for a chain without epochs');
  t.match(epochProofError({ ...proof, qc: qcOf(blocks[4]!) }, 4), /does not certify the last block/);
  t.match(epochProofError({ blocks: [blocks[3]!, blocks[5]!, blocks[4]!], qc: proof.qc }, 4), /do not form a chain/);
  const withTx = chain(6, [4]);
  t.match(epochProofError({ blocks: withTx.slice(3, 6), qc: qcOf(withTx[5]!) }, 4), /carries transactions/);
});
