import t from 'tap';
import type { BbsProofInput } from '../../../node/crypto/bbs.js';
import { BbsBatcher, MAX_BBS_BATCH } from '../../../node/rpc/verification/bbs-batcher.js';

/** How the batcher forms batches: alone and at once on an idle pool, together behind a busy one. */

/** a runner whose batches finish when the test says: the verdict of each proof is its `header[0]` */
function runner() {
  const sent: Array<{ size: number; finish(): void; fail(err: Error): void }> = [];
  const run = (inputs: BbsProofInput[]) =>
    new Promise<boolean[]>((resolve, reject) => {
      sent.push({ size: inputs.length, finish: () => resolve(inputs.map((i) => i.header[0] === 1)), fail: reject });
    });
  return { sent, run };
}
const proof = (ok: boolean) => ({ header: Uint8Array.of(ok ? 1 : 0) }) as BbsProofInput;
const settle = () => new Promise((r) => setImmediate(r));

t.test('a proof on an idle pool leaves alone and at once; those that arrive meanwhile leave together', async (t) => {
  const r = runner();
  const b = new BbsBatcher(r.run, 1);
  const first = b.verify(proof(true));
  t.same(r.sent.map((s) => s.size), [1], 'sent at once, alone');
  const next = [b.verify(proof(true)), b.verify(proof(false)), b.verify(proof(true))];
  t.same(r.sent.map((s) => s.size), [1], 'the thread is busy: they wait');
  r.sent[0]!.finish();
  t.equal(await first, true);
  await settle();
  t.same(r.sent.map((s) => s.size), [1, 3], 'then leave as one batch');
  r.sent[1]!.finish();
  t.same(await Promise.all(next), [true, false, true], 'each gets its own verdict');
});

t.test('batches hold at most MAX_BBS_BATCH, one per free thread; a failed batch fails its own proofs only', async (t) => {
  const r = runner();
  const b = new BbsBatcher(r.run, 2);
  const all = Array.from({ length: 2 + MAX_BBS_BATCH + 3 }, () => b.verify(proof(true)).catch((err: Error) => err.message));
  t.same(r.sent.map((s) => s.size), [1, 1], 'two threads, two proofs at once');
  r.sent[0]!.fail(new Error('worker died'));
  await settle();
  t.same(r.sent.map((s) => s.size), [1, 1, MAX_BBS_BATCH]);
  r.sent[1]!.finish();
  await settle();
  t.same(r.sent.map((s) => s.size), [1, 1, MAX_BBS_BATCH, 3]);
  r.sent[2]!.finish();
  r.sent[3]!.finish();
  const verdicts = await Promise.all(all);
  t.equal(verdicts[0], 'worker died');
  t.ok(verdicts.slice(1).every((v) => v === true));
});

t.test('with a window, a proof on a free thread waits for others, up to the window or a full batch', async (t) => {
  const r = runner();
  const b = new BbsBatcher(r.run, 1, 40);
  const started = Date.now();
  const first = [b.verify(proof(true)), b.verify(proof(false))];
  t.same(r.sent.map((s) => s.size), [], 'nothing leaves before the window ends');
  await new Promise((resolve) => setTimeout(resolve, 15));
  const late = b.verify(proof(true));
  t.same(r.sent.map((s) => s.size), [], 'a proof within the window joins it');
  while (r.sent.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
  t.ok(Date.now() - started >= 35, 'the batch left when the window of the first proof ended');
  t.same(r.sent.map((s) => s.size), [3], 'as one batch of three');

  // the thread is busy: a full batch waits for it, then leaves with no further window
  const queued = Array.from({ length: MAX_BBS_BATCH }, () => b.verify(proof(true)));
  r.sent[0]!.finish();
  t.same(await Promise.all([...first, late]), [true, false, true]);
  await settle();
  t.same(r.sent.map((s) => s.size), [3, MAX_BBS_BATCH], 'proofs that waited for the thread leave as soon as it is free');
  r.sent[1]!.finish();
  await Promise.all(queued);

  // a full batch on a free thread does not wait for the window
  const full = Array.from({ length: MAX_BBS_BATCH }, () => b.verify(proof(true)));
  t.same(r.sent.map((s) => s.size), [3, MAX_BBS_BATCH, MAX_BBS_BATCH], 'a full batch leaves at once');
  r.sent[2]!.finish();
  await Promise.all(full);
});
