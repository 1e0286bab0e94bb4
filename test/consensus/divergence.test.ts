import t from 'tap';
import { Divergence, type HaltReport } from '../../node/consensus/divergence.js';
import { LedgerError } from '../../node/errors.js';
import { genesisBlock } from './harness.js';

const block = genesisBlock();
const err = (kind: 'invalid' | 'conflict' | 'limit' | 'internal') => new LedgerError('X', 'refused', kind);

t.test('only a block wrong by itself blames its sender', async (t) => {
  const d = new Divergence(() => t.fail('no halt'));
  t.same(d.refusal(block, err('invalid'), false), { reason: 'invalid-block', senderAtFault: true });
  t.same(d.refusal(block, err('conflict'), false), { reason: 'block-state-mismatch', senderAtFault: false });
  t.same(d.refusal(block, err('limit'), false), { reason: 'block-timestamp-ahead', senderAtFault: false });
  t.same(d.refusal(block, err('internal'), false), { reason: 'block-unverifiable', senderAtFault: false });
  t.same(d.refusal(block, new Error('plain'), false), { reason: 'block-unverifiable', senderAtFault: false });
});

t.test('a refused block that a quorum certifies halts, once', async (t) => {
  const reports: HaltReport[] = [];
  const d = new Divergence((r) => reports.push(r));
  d.refusal(block, err('invalid'), false);
  d.certified(block.hash);
  t.equal(d.halted, undefined, 'a block wrong by itself is not remembered');
  d.refusal(block, err('conflict'), false);
  t.equal(d.halted, undefined, 'remembered, not yet certified');
  d.certified(block.hash);
  d.certified(block.hash);
  t.match(reports, [{ reason: 'certified-block-refused', height: 0, code: 'X', error: 'refused' }], 'one report');
  const already = new Divergence((r) => reports.push(r));
  already.refusal(block, err('conflict'), true);
  t.equal(already.halted?.reason, 'certified-block-refused', 'refused while its QC is already known');
});

t.test('a committed height forgets what it passed', async (t) => {
  const d = new Divergence(() => t.fail('no halt'));
  d.refusal(block, err('conflict'), false);
  d.pruneTo(0);
  d.certified(block.hash);
  t.equal(d.halted, undefined);
});
