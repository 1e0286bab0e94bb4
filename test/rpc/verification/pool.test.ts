import t from 'tap';
import { isLedgerError } from '../../../node/errors.js';
import { bbsVerifyCost } from '../../../node/rpc/verification/cost.js';
import { createVerifyPool, defaultVerifyThreads } from '../../../node/rpc/verification/pool.js';
import { makeBbsProof } from '../../../bench/lib/bbs-proof.js';
import { rejection } from '../../fixtures/wait.js';

/** Event-loop turns (setImmediate callbacks) that run while `work` is pending. */
async function turnsDuring(work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.finally(() => (done = true));
  let turns = 0;
  while (!done) {
    await new Promise((r) => setImmediate(r));
    turns++;
  }
  return turns;
}

t.test('a proof verified in the pool leaves the event loop free; on the calling thread it does not', async (t) => {
  const proof = await makeBbsProof(64, 4);
  const cost = bbsVerifyCost(64);
  const pool = createVerifyPool({ threads: 1, maxQueuedCost: 10 * cost });
  t.teardown(() => pool.close());
  t.equal(await pool.verifyBbs(proof, cost), true, 'a warm-up call starts the thread');

  const inPool = pool.verifyBbs(proof, cost);
  const pooled = await turnsDuring(inPool);
  t.equal(await inPool, true);
  const inline = createVerifyPool({ threads: 0, maxQueuedCost: 10 * cost });
  const onThread = inline.verifyBbs(proof, cost);
  const blocked = await turnsDuring(onThread);
  t.equal(await onThread, true);
  // a verification takes many thousands of loop turns' time: done on another thread, the loop keeps turning
  t.ok(pooled >= 10, `in the pool the loop keeps turning (${pooled} turns while the proof was verified)`);
  // on the calling thread it is done before any turn: the one turn counted is the one that saw it done
  t.equal(blocked, 1, 'on the calling thread the loop does not turn until the proof is verified');
});

t.test('a tampered proof is false, and a malformed one is false without queueing', async (t) => {
  const proof = await makeBbsProof(8, 2);
  const pool = createVerifyPool({ threads: 1, maxQueuedCost: 1 });
  t.teardown(() => pool.close());
  const tampered = { ...proof, presentationHeader: new TextEncoder().encode('another nonce') };
  t.equal(await pool.verifyBbs(tampered, 1), false);
  const busy = pool.verifyBbs(proof, 1);
  t.equal(await pool.verifyBbs({ ...proof, totalMessageCount: 9 }, 1), false, 'a shape that cannot be a proof is answered at once, even with the queue full');
  t.equal(await busy, true);
});

t.test('the queue is bounded by cost: past it a call fails at once with VERIFY_QUEUE_FULL', async (t) => {
  const proof = await makeBbsProof(64, 1);
  const cost = bbsVerifyCost(64);
  const pool = createVerifyPool({ threads: 1, maxQueuedCost: 2 * cost });
  t.teardown(() => pool.close());
  const first = pool.verifyBbs(proof, cost);
  const second = pool.verifyBbs(proof, cost);
  t.same(pool.stats(), { queuedCost: 2 * cost, pending: 2 });
  const refused = await rejection(pool.verifyBbs(proof, cost), Error);
  t.ok(isLedgerError(refused));
  t.match(refused, { code: 'VERIFY_QUEUE_FULL', kind: 'limit', data: { queuedCost: 2 * cost, maxQueuedCost: 2 * cost, cost } });
  const duty = pool.verifyBbs(proof, cost, { duty: true });
  t.same(pool.stats(), { queuedCost: 3 * cost, pending: 3 }, "a committee member's check is never refused for the bound, and counts in it");
  t.same(await Promise.all([first, second, duty]), [true, true, true]);
  t.same(pool.stats(), { queuedCost: 0, pending: 0 }, 'finished work leaves the queue');
  t.equal(await pool.verifyBbs(proof, 100 * cost), true, 'a call larger than the bound still runs on an idle pool');
});

t.test('default threads: half the cores, from 1 to 4', async (t) => {
  t.same([1, 2, 3, 4, 8, 64].map((n) => defaultVerifyThreads(n)), [1, 1, 1, 2, 4, 4]);
});
