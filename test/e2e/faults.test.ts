import t, { type Test } from 'tap';
import { buildTransfer, RpcClient, signAndEncode, waitForReceipt } from '../../node/client/index.js';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { generateAccountKey, generateValidatorKey, writeKeyFile } from '../../node/config/keyfile.js';
import { Cluster } from './cluster.js';
import { startNodeProcess } from './harness.js';

/**
 * Four validator processes over libp2p on loopback. Each scenario checks liveness (or the lack
 * of it without a quorum) and, at the end, that every node holds the same block at every seq.
 */

const N = 4;

async function assertSameChain(t: Test, c: Cluster, nodes: number[]): Promise<void> {
  const top = Math.min(...(await Promise.all(nodes.map((i) => c.seq(i)))));
  for (let seq = 0; seq <= top; seq++) {
    const hashes = await Promise.all(nodes.map(async (i) => (await c.nodes[i]!.client.getBlockBySeq(seq))?.hash));
    if (new Set(hashes).size !== 1) {
      t.fail(`nodes disagree at seq ${seq}: ${hashes.join(', ')}`);
      return;
    }
  }
  t.pass(`nodes ${nodes.join(', ')} hold the same ${top + 1} blocks`);
}

t.test('four validators survive crashes', async (t) => {
  const c = await Cluster.create(t, N);
  await c.startAll();
  const all = [0, 1, 2, 3];
  await c.waitForSeq(all, 3, 60_000);
  const bob = generateAccountKey('testnet');
  let nonce = 0n;
  const transfer = async (via: number) => {
    const s = signAndEncode(c.chainId, buildTransfer({ senderPubkey: c.dev.publicKey, nonce: nonce++, to: bob.address, amount: 1_000n }), c.dev.seed);
    await c.nodes[via]!.client.sendTransaction(s.json);
    return waitForReceipt(c.nodes[via]!.client, s.hash, { timeoutMs: 30_000 });
  };

  t.test('kill -9 one validator: the others keep committing; restarted, it catches up and votes', async (t) => {
    await c.kill9(3);
    const before = await c.seq(0);
    t.equal((await transfer(1)).status, 'success', 'a transfer commits without node 3');
    await c.waitForSeq([0, 1, 2], before + 5, 30_000);
    await c.start(3);
    const target = await c.seq(0);
    await c.waitForSeq([3], target, 60_000);
    await c.waitFor(async () => ((await c.metric(3, 'ledger_consensus_votes_sent_total')) ?? 0) > 0, 30_000, 'node 3 voting again');
    t.pass('node 3 caught up and votes');
    t.equal(await c.nodes[3]!.client.getBalance(bob.address), 1_000n, 'and holds the transfer it missed');
  });

  t.test('kill -9 the leader: a silent leader costs a timeout, then leads no round until it is back', async (t) => {
    const status = (await c.nodes[0]!.client.getConsensusStatus())!;
    const victim = c.nodes.find((n) => n.address === status.leader)!.index;
    await c.kill9(victim);
    const alive = all.filter((i) => i !== victim);
    const before = await c.seq(alive[0]!);
    t.equal((await transfer(alive[0]!)).status, 'success');
    await c.waitForSeq(alive, before + 10, 30_000);
    t.ok(((await c.metric(alive[0]!, 'ledger_consensus_timeouts_total')) ?? 0) > 0, 'a round of the dead leader timed out');
    await c.waitFor(async () => !(await c.nodes[alive[0]!]!.client.getConsensusStatus())!.active_validators!.includes(c.nodes[victim]!.address), 30_000, 'the dead leader to leave the rotation');
    await c.start(victim);
    await c.waitForSeq([victim], await c.seq(alive[0]!), 60_000);
    await c.waitFor(async () => (await c.nodes[alive[0]!]!.client.getConsensusStatus())!.active_validators!.includes(c.nodes[victim]!.address), 60_000, 'the old leader to rejoin the rotation');
    t.pass('the old leader caught up and leads again');
  });

  t.test('two of four down: nothing commits and nothing forks; back up: progress resumes', async (t) => {
    await Promise.all([c.kill9(1), c.kill9(2)]);
    await new Promise((r) => setTimeout(r, 1_500)); // anything certified before the kill lands
    const stalled = [await c.seq(0), await c.seq(3)];
    await new Promise((r) => setTimeout(r, 4_000));
    t.same([await c.seq(0), await c.seq(3)], stalled, 'no quorum, no commit');
    await Promise.all([c.start(1), c.start(2)]);
    await c.waitForSeq(all, Math.max(...stalled) + 3, 90_000);
    t.pass('progress resumed on all four');
  });

  t.test('a validator killed in the middle of a commit recovers', async (t) => {
    await c.kill9(2);
    const crashAt = (await c.seq(0)) + 3;
    const proc = await c.start(2, { LEDGER_TEST_CRASH_AT_SEQ: String(crashAt) });
    const code = await new Promise<number | null>((resolve) => {
      if (proc.proc.exitCode !== null || proc.proc.signalCode !== null) resolve(proc.proc.exitCode);
      else proc.proc.on('exit', (c) => resolve(c));
    });
    t.equal(proc.proc.signalCode, 'SIGKILL', `it died by SIGKILL right after committing seq ${crashAt} (exit ${code})`);
    c.nodes[2]!.proc = undefined;
    await c.start(2);
    await c.waitForSeq([2], (await c.seq(0)) + 1, 60_000);
    t.pass('restarted past the crash point');
  });

  t.test('a new node that is not a validator catches up from its peers and follows the chain', async (t) => {
    const dir = join(c.nodes[0]!.dir, '..', 'follower');
    await mkdir(join(dir, 'keys'), { recursive: true, mode: 0o700 });
    await copyFile(join(c.nodes[0]!.dir, 'genesis.json'), join(dir, 'genesis.json'));
    await writeKeyFile(join(dir, 'keys', 'validator.json'), generateValidatorKey('testnet'));
    const follower = await startNodeProcess(t, dir, { bootstrap: c.nodes.map((n) => n.p2p), logLevel: 'warn' });
    const client = new RpcClient(follower.url);
    const target = await c.seq(0);
    await c.waitFor(async () => ((await client.canonHead())?.seq ?? 0) >= target + 2, 90_000, 'the follower to catch up');
    const seq = (await client.canonHead())!.seq;
    t.equal((await client.getBlockBySeq(seq))?.hash, (await c.nodes[0]!.client.getBlockBySeq(seq))?.hash, 'same block at its head');
    t.equal(await client.getBalance(bob.address), await c.nodes[0]!.client.getBalance(bob.address), 'same state');
    t.equal(await c.metric(0, 'ledger_consensus_validators'), N, 'the validator set did not grow');
    await follower.stop();
  });

  t.test('every node answers the same for committed data', async (t) => {
    const receipt = await transfer(0);
    await c.waitForSeq(all, receipt.block_seq, 30_000);
    await assertSameChain(t, c, all);
    const answers = await Promise.all(
      c.nodes.map(async (n) => JSON.stringify([await n.client.getBalance(bob.address), await n.client.getReceipt(receipt.tx_hash), await n.client.getNonce(c.dev.address), await n.client.getValidators()], (_k, v) => (typeof v === 'bigint' ? v.toString() : v))),
    );
    t.equal(new Set(answers).size, 1, 'balances, receipts, nonces and validators agree');
  });

  t.teardown(() => c.stopAll());
});
