import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { RpcClient } from '../../node/client/rpc-client.js';
import { readValidatorKeyFile } from '../../node/config/keyfile.js';
import { runCli, startNodeProcess, tempDataDir } from './harness.js';

/**
 * `ledger start --follow`: a node that joins another node's network from its RPC URL alone, as a
 * relay or explorer instance does, and never votes.
 */

const until = async (what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

t.test('a follower fetches the genesis, makes its own key, and follows the chain', async (t) => {
  const validatorDir = await tempDataDir(t);
  const validator = await startNodeProcess(t, validatorDir);
  const v = new RpcClient(validator.url);
  const followerDir = await tempDataDir(t);
  const follower = await startNodeProcess(t, followerDir, { follow: validator.url });
  const f = new RpcClient(follower.url);

  const [vInfo, fInfo] = await Promise.all([v.chainInfo(), f.chainInfo()]);
  t.equal(fInfo.genesis_hash, vInfo.genesis_hash, 'the same chain');
  t.equal(fInfo.chain_id, vInfo.chain_id);
  t.same(JSON.parse(await readFile(join(followerDir, 'genesis.json'), 'utf8')), await v.call('ledger_getGenesis'), 'genesis.json is what the node serves');
  const key = await readValidatorKeyFile(join(followerDir, 'keys', 'validator.json'));
  const validatorKey = await readValidatorKeyFile(join(validatorDir, 'keys', 'validator.json'));
  t.not(key.address, validatorKey.address, 'a key of its own');
  t.match(follower.stderr(), /following a network: this node does not vote/);

  const target = (await v.blockNumber()) + 3;
  await until('the follower reaches the validator’s height + 3', async () => (await f.blockNumber()) >= target);
  const status = (await f.call('ledger_getConsensusStatus')) as { active_validators: string[] };
  t.same(status.active_validators, [validatorKey.address], 'the set is still the validator alone');
  const info = await v.nodeInfo();
  t.ok(info.p2p && info.p2p.addresses.every((a) => a.endsWith(`/p2p/${info.p2p!.peer_id}`)), 'nodeInfo lists the libp2p addresses with the peer id');

  await follower.stop();
  const again = await startNodeProcess(t, followerDir, { follow: validator.url });
  t.match(again.stderr(), /"wrote":\[\]/, 'a restart writes nothing');
  const height = await v.blockNumber();
  await until('it follows after a restart', async () => (await new RpcClient(again.url).blockNumber()) >= height);
  t.equal((await readValidatorKeyFile(join(followerDir, 'keys', 'validator.json'))).address, key.address, 'and keeps its key');

  t.test('refusals', async (t) => {
    const other = await tempDataDir(t);
    t.equal((await runCli(['init', '--data-dir', other])).code, 0);
    const mismatch = await runCli(['start', '--data-dir', other, '--rpc-port', '0', '--p2p-port', '0', '--plugins', 'none', '--follow', validator.url]);
    t.not(mismatch.code, 0);
    t.match(mismatch.stderr, /FOLLOW_GENESIS_MISMATCH|is the genesis of another chain/, 'another chain’s data dir');

    const stolen = await tempDataDir(t);
    await mkdir(join(stolen, 'keys'), { recursive: true, mode: 0o700 });
    await copyFile(join(validatorDir, 'keys', 'validator.json'), join(stolen, 'keys', 'validator.json'));
    const voter = await runCli(['start', '--data-dir', stolen, '--rpc-port', '0', '--p2p-port', '0', '--plugins', 'none', '--follow', validator.url]);
    t.not(voter.code, 0);
    t.match(voter.stderr, /is the key of genesis validator .*a follower must not vote/, 'a validator’s key');

    const nowhere = await runCli(['start', '--data-dir', await tempDataDir(t), '--rpc-port', '0', '--p2p-port', '0', '--plugins', 'none', '--follow', 'http://127.0.0.1:1']);
    t.not(nowhere.code, 0);
    t.match(nowhere.stderr, /--follow http:\/\/127\.0\.0\.1:1: ledger_\w+ failed/, 'an unreachable node');
  });
});
