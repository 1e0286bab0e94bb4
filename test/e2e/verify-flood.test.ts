import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { toHex } from '../../node/protocol/bytes.js';
import { RPC_BUSY, RPC_INTERNAL_ERROR, RPC_LIMIT_EXCEEDED } from '../../node/rpc/errors.js';
import { bbsVerifyCost } from '../../node/rpc/verification/cost.js';
import { makeBbsProof } from '../../bench/lib/bbs-proof.js';
import { runCli, startNodeProcess, tempDataDir } from './harness.js';

/**
 * A flood of the most expensive unauthenticated call, BBS proof verification, against a real node
 * process: consensus and cheap calls must not notice it (the proofs run in the worker pool), and
 * what the pool cannot take is answered at once as busy or over budget.
 */

interface Answer {
  status: number;
  body: any;
}

async function post(url: string, payload: unknown): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

t.test('ledger_blockNumber is answered and blocks keep coming while BBS proofs flood in', async (t) => {
  const dir = await tempDataDir(t);
  t.equal((await runCli(['init', '--data-dir', dir])).code, 0);
  // the bounds in proofs of 256 messages: a batch of 5 is over its budget, and the 4 single and
  // 2 batch clients below keep more queued than the pool takes
  const cost = bbsVerifyCost(256);
  await writeFile(join(dir, 'config.json'), JSON.stringify({ rpc: { maxBatchCost: 4 * cost, verifyMaxQueuedCost: 9 * cost } }));
  const node = await startNodeProcess(t, dir);
  // 256 messages: some 35 ms of verification each here; on the event loop, six clients asking
  // without pause would leave it little time for anything else
  const p = await makeBbsProof(256, 8);
  const params = [toHex(p.proof), toHex(p.publicKey), toHex(p.header), toHex(p.presentationHeader), p.disclosed.map((d) => ({ index: d.index, message: toHex(d.message) })), p.totalMessageCount];
  const verify = (id: number) => ({ jsonrpc: '2.0', id, method: 'ledger_bbsVerifyProof', params });
  const blockNumber = async () => (await post(node.url, { jsonrpc: '2.0', id: 0, method: 'ledger_blockNumber', params: [] })).body.result as number;

  const answers: Answer[] = [];
  // when each call went out and came back, in the order of events here: a counter, not a clock
  let step = 0;
  const proofsOut: Array<{ sent: number; answered: number }> = [];
  const probes: Array<{ sent: number; answered: number }> = [];
  const floodMs = 8_000;
  const startHeight = await blockNumber();
  const end = Date.now() + floodMs;
  const client = async (batchOf: number) => {
    for (let id = 1; Date.now() < end; id++) {
      const sent = ++step;
      const answer = await post(node.url, batchOf === 1 ? verify(id) : Array.from({ length: batchOf }, (_, i) => verify(id * 10 + i)));
      const answered = ++step;
      answers.push(answer);
      if ((Array.isArray(answer.body) ? answer.body : [answer.body]).some((i) => i.result === true)) proofsOut.push({ sent, answered });
    }
  };
  const probe = async () => {
    while (Date.now() < end) {
      const sent = ++step;
      await blockNumber();
      probes.push({ sent, answered: ++step });
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await Promise.all([client(1), client(1), client(1), client(1), client(5), client(5), probe()]);
  const endHeight = await blockNumber();

  // With the proofs on the event loop a call waits behind the one being verified, so only a call or
  // two could come back while a proof is out; in the pool, call after call does.
  const within = Math.max(0, ...proofsOut.map((v) => probes.filter((p) => p.sent > v.sent && p.answered < v.answered).length));
  t.ok(within >= 5, `while one proof was being verified, ${within} blockNumber calls went out and came back in turn`);
  t.ok(endHeight - startHeight >= 3, `blocks kept coming (${endHeight - startHeight} in ${floodMs / 1000} s; an idle node makes one at least every second)`);

  const items = answers.flatMap((a) => (Array.isArray(a.body) ? a.body : [a.body]));
  const count = (f: (i: any) => boolean) => items.filter(f).length;
  const verified = count((i) => i.result === true);
  const busy = items.filter((i) => i.error?.code === RPC_BUSY);
  const overBudget = items.filter((i) => i.error?.code === RPC_LIMIT_EXCEEDED);
  t.comment(`proof answers: ${verified} verified, ${busy.length} busy, ${overBudget.length} over the batch budget, of ${items.length}`);
  t.ok(verified >= 2, 'proofs are verified all the while');
  t.equal(count((i) => i.result === false), 0, 'no valid proof is called invalid');
  t.equal(count((i) => i.error?.code === RPC_INTERNAL_ERROR), 0, 'no internal error');
  t.equal(verified + busy.length + overBudget.length, items.length, 'every answer is a result, busy or over budget');
  t.ok(busy.length > 0, 'past the queue bound the pool answers busy');
  t.ok(
    busy.every((b) => b.error.data.reason === 'verify_queue_full' && b.error.data.code === 'VERIFY_QUEUE_FULL' && b.error.data.retryAfterMs > 0),
    'busy answers say why and when to retry',
  );
  t.ok(overBudget.length > 0 && overBudget.every((o) => o.error.data.code === 'BATCH_COST_EXCEEDED'), 'the fifth proof of a batch is over its budget');
  t.ok(answers.every((a) => a.status === 200 || (a.status === 503 && !Array.isArray(a.body))), 'no 5xx but a lone busy answer');
  t.equal(node.proc.exitCode, null, 'the node is still running');
});
