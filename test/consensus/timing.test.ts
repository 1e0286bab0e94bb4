import t from 'tap';
import { BlockTimes } from '../../node/consensus/timing.js';

const h = (n: number) => new Uint8Array(32).fill(n);

t.test('block times give proposal-to-QC once, then QC-to-commit and proposal-to-commit', async (t) => {
  const times = new BlockTimes();
  t.equal(times.markCertified(h(1), 5), undefined, 'a block never seen here has no latency');
  times.markSeen(h(1), 100);
  times.markSeen(h(2), 110);
  t.equal(times.markCertified(h(1), 140), 40);
  t.equal(times.markCertified(h(1), 150), undefined, 'only the first QC counts');
  t.same(times.committed(h(1), 200, [h(2)]), { latencyMs: 100, qcToCommitMs: 60 });
  t.same(times.committed(h(2), 300, []), { latencyMs: undefined, qcToCommitMs: undefined }, 'forgotten with the commit');
});
