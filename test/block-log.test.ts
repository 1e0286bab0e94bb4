import t from 'tap';
import { BlockLogLimiter, blockLogFields, type CommittedBlockFields } from '../node/block-log.js';

const block = (seq: number, txs = 1): CommittedBlockFields => ({ seq, height: seq, hash: 'ab'.repeat(6), txs, round: seq, latency_ms: 5 });

t.test('slow blocks: one info line each', async (t) => {
  const limiter = new BlockLogLimiter(1_000);
  const lines = [0, 1_500, 3_000, 4_000].flatMap((now, i) => [...limiter.block(block(i + 1), now), ...limiter.tick(now + 500)]);
  t.same(lines.map((l) => [l.level, l.msg, l.fields]), [1, 2, 3, 4].map((seq) => ['info', 'committed block', block(seq)]));
});

t.test('fast blocks: debug lines and one summary per second with the right counts', async (t) => {
  const limiter = new BlockLogLimiter(1_000);
  const lines = [];
  for (let i = 0; i < 25; i++) lines.push(...limiter.block(block(i + 1, i), i * 100));
  lines.push(...limiter.tick(2_500), ...limiter.tick(3_000), ...limiter.tick(3_500));
  const info = lines.filter((l) => l.level === 'info');
  t.same(
    info.map((l) => [l.msg, l.fields]),
    [
      ['committed block', block(1, 0)],
      ['committed blocks', { from_seq: 2, to_seq: 11, count: 10, txs: 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 }],
      ['committed blocks', { from_seq: 12, to_seq: 21, count: 10, txs: 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 }],
      ['committed blocks', { from_seq: 22, to_seq: 25, count: 4, txs: 21 + 22 + 23 + 24 }],
    ],
  );
  t.equal(lines.filter((l) => l.level === 'debug').length, 24, 'every block not logged alone stays at debug');
  t.same(limiter.tick(10_000), [], 'nothing pending after the summary');
});

t.test('fields of a block: hash prefix, round, latency from its timestamp', async (t) => {
  const hash = Uint8Array.from({ length: 32 }, (_, i) => i);
  t.same(blockLogFields({ hash, header: { height: 7, round: 9, timestampMs: 1_000 } }, 8, 3, 1_250), {
    seq: 8,
    height: 7,
    hash: '000102030405',
    txs: 3,
    round: 9,
    latency_ms: 250,
  });
  t.equal(blockLogFields({ hash, header: { height: 7, round: 9, timestampMs: 2_000 } }, 8, 3, 1_250).latency_ms, 0, 'a timestamp ahead of the clock is no negative latency');
});
