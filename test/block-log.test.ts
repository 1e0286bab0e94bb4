import t from 'tap';
import { BlockLogLimiter, blockLogFields, type CommittedBlockFields } from '../node/block-log.js';

const block = (seq: number, txs = 1): CommittedBlockFields => ({ seq, height: seq, hash: 'ab'.repeat(6), txs, round: seq, since_proposal_ms: 5 });

t.test('slow blocks: one info line each', async (t) => {
  const limiter = new BlockLogLimiter(1_000);
  const lines = [0, 1_500, 3_000, 4_000].flatMap((now, i) => [...limiter.block(block(i + 1), now), ...limiter.tick(now + 500)]);
  t.same(lines.map((l) => [l.level, l.msg, l.fields]), [1, 2, 3, 4].map((seq) => ['info', 'committed block', block(seq)]));
});

t.test('fast blocks: debug lines and one summary per second with the right counts', async (t) => {
  const limiter = new BlockLogLimiter(1_000);
  const lines = [];
  for (let i = 0; i < 25; i++) lines.push(...limiter.block(block(i + 1, i + 1), i * 100));
  lines.push(...limiter.tick(2_500), ...limiter.tick(3_000), ...limiter.tick(3_500));
  const info = lines.filter((l) => l.level === 'info');
  t.same(
    info.map((l) => [l.msg, l.fields]),
    [
      ['committed block', block(1, 1)],
      ['committed blocks', { from_seq: 2, to_seq: 11, count: 10, txs: 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 }],
      ['committed blocks', { from_seq: 12, to_seq: 21, count: 10, txs: 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 }],
      ['committed blocks', { from_seq: 22, to_seq: 25, count: 4, txs: 22 + 23 + 24 + 25 }],
    ],
  );
  t.equal(lines.filter((l) => l.level === 'debug').length, 24, 'every block not logged alone stays at debug');
  t.same(limiter.tick(10_000), [], 'nothing pending after the summary');
});

t.test('empty blocks: no line of their own at info, counted in the summary', async (t) => {
  const limiter = new BlockLogLimiter(1_000);
  const info = (lines: ReturnType<BlockLogLimiter['block']>) => lines.filter((l) => l.level === 'info').map((l) => [l.msg, l.fields]);
  // an idle chain: an empty block a second, each summed up rather than logged with its idle wait
  t.same(info(limiter.block(block(1, 0), 0)), [['committed blocks', { from_seq: 1, to_seq: 1, count: 1, txs: 0 }]]);
  t.same(info(limiter.block(block(2, 0), 1_000)), [['committed blocks', { from_seq: 2, to_seq: 2, count: 1, txs: 0 }]]);
  t.same(limiter.block(block(3, 0), 1_300).map((l) => [l.level, l.fields]), [['debug', block(3, 0)]], 'within the interval: debug only');
  t.same(info(limiter.block(block(4, 0), 1_600)), []);
  // a block with transactions is not held back by the empty ones before it: their summary, then its line
  t.same(info(limiter.block(block(5, 2), 2_000)), [
    ['committed blocks', { from_seq: 3, to_seq: 4, count: 2, txs: 0 }],
    ['committed block', block(5, 2)],
  ]);
  // nor by an idle summary just before it
  t.same(info(limiter.block(block(6, 0), 3_000)), [['committed blocks', { from_seq: 6, to_seq: 6, count: 1, txs: 0 }]]);
  t.same(info(limiter.block(block(7, 1), 3_100)), [['committed block', block(7, 1)]]);
  t.same(limiter.tick(5_000), [], 'nothing pending');
});

t.test('fields of a block: hash prefix, round, time since its proposal', async (t) => {
  const hash = Uint8Array.from({ length: 32 }, (_, i) => i);
  t.same(blockLogFields({ hash, header: { height: 7, round: 9, timestampMs: 1_000 } }, 8, 3, 1_250), {
    seq: 8,
    height: 7,
    hash: '000102030405',
    txs: 3,
    round: 9,
    since_proposal_ms: 250,
  });
  t.equal(blockLogFields({ hash, header: { height: 7, round: 9, timestampMs: 2_000 } }, 8, 3, 1_250).since_proposal_ms, 0, 'a timestamp ahead of the clock is no negative time');
});
