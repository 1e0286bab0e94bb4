import t from 'tap';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  buildCredentialRequest,
  buildDidCreate,
  buildStake,
  buildTransfer,
  buildUnstake,
  buildValidatorQualify,
  buildValidatorRegister,
  didForPublicKey,
  RpcClient,
  signAndEncode,
  UNIT,
  waitForReceipt,
} from '../../node/client/index.js';
import { generateValidatorKey, readKeyFile, writeKeyFile } from '../../node/config/keyfile.js';
import { VALIDATOR_STAKE } from '../../node/cli/commands/init.js';
import { Cluster } from './cluster.js';
import { startNodeProcess } from './harness.js';

/**
 * Validator-set changes on real processes: four genesis validators with 10-block epochs, a fifth
 * node that joins through a KYC credential, ValidatorQualify, Stake and ValidatorRegister, and a
 * genesis validator that leaves by unstaking. Each change takes effect at the next epoch boundary on every node.
 */

const EPOCH = 10;

t.test('a validator joins through a KYC credential, Stake and ValidatorRegister, another leaves by Unstake, at epoch boundaries', async (t) => {
  const c = await Cluster.create(t, 4, { epochLength: EPOCH });
  await c.startAll();
  await c.waitForSeq([0, 1, 2, 3], 2, 60_000);

  const joiner = generateValidatorKey('testnet');
  const dir = join(c.nodes[0]!.dir, '..', 'joiner');
  await mkdir(join(dir, 'keys'), { recursive: true, mode: 0o700 });
  await copyFile(join(c.nodes[0]!.dir, 'genesis.json'), join(dir, 'genesis.json'));
  await writeKeyFile(join(dir, 'keys', 'validator.json'), joiner);
  const proc = await startNodeProcess(t, dir, { bootstrap: c.nodes.map((n) => n.p2p), logLevel: 'warn' });
  const client = new RpcClient(proc.url);
  const via = c.nodes[0]!.client;
  const send = async (unsigned: Parameters<typeof signAndEncode>[1], seed: Uint8Array) => {
    const s = signAndEncode(c.chainId, unsigned, seed);
    await via.sendTransaction(s.json);
    return waitForReceipt(via, s.hash, { timeoutMs: 30_000 });
  };

  const funded = await send(buildTransfer({ senderPubkey: c.dev.publicKey, nonce: 0, to: joiner.address, amount: 20_000n * UNIT }), c.dev.seed);
  t.equal(funded.status, 'success');

  // The devnet genesis has the KYC rule (level 2): the developer account issues the joiner a KYC
  // credential, the validators attest it, and the joiner qualifies with it.
  const issuerDid = didForPublicKey('testnet', c.dev.publicKey);
  const joinerDid = didForPublicKey('testnet', joiner.publicKey);
  t.equal((await send(buildDidCreate({ senderPubkey: c.dev.publicKey, nonce: 1 }), c.dev.seed)).status, 'success');
  t.equal((await send(buildDidCreate({ senderPubkey: joiner.publicKey, nonce: 0 }), joiner.seed)).status, 'success');
  const credentialId = randomUUID();
  const request = buildCredentialRequest({
    senderPubkey: c.dev.publicKey,
    nonce: 2,
    credentialId,
    credentialType: 'KYCCredential',
    kycLevel: 2,
    subjectDid: joinerDid,
    issuerDid,
    hash: new Uint8Array(32).fill(1),
    evidenceDigest: new Uint8Array(32).fill(2),
    statusList: 0,
    statusIndex: 0,
  });
  t.equal((await send(request, c.dev.seed)).status, 'success');
  await c.waitFor(async () => (await via.getCredentialRequest(credentialId))?.status === 'registered', 60_000, 'the KYC credential registered');

  const staked = await send(buildStake({ senderPubkey: joiner.publicKey, nonce: 1, amount: 10_000n * UNIT }), joiner.seed);
  const registered = await send(buildValidatorRegister({ senderPubkey: joiner.publicKey, nonce: 2, chainId: c.chainId, blsSecretKey: joiner.blsSecretKey }), joiner.seed);
  t.same([staked.status, registered.status], ['success', 'success'], 'stake and registration succeed');
  const qualified = await send(buildValidatorQualify({ senderPubkey: joiner.publicKey, nonce: 3, credentialId }), joiner.seed);
  t.equal(qualified.status, 'success', 'the joiner qualifies with its KYC credential');
  const joinedAt = Math.ceil((qualified.block_height + 1) / EPOCH) * EPOCH;
  // read the record first: if it is already active, the boundary must be behind the head read after it
  const early = (await via.getValidatorStake(joiner.address))?.active;
  const head = (await via.getLatestBlock())?.height ?? 0;
  t.ok(early === false || head >= joinedAt - 1, `not active before the boundary at height ${joinedAt - 1} (head ${head})`);

  await c.waitFor(async () => (await c.metric(0, 'ledger_consensus_validators')) === 5, 90_000, 'the set of 5 on node 0');
  t.equal((await via.getValidatorStake(joiner.address))?.active, true, 'active from the boundary on');
  t.ok(((await c.metric(0, 'ledger_consensus_epoch')) ?? 0) >= joinedAt / EPOCH, 'node 0 moved into the epoch that starts at the boundary');
  // A joiner that is still catching up can miss its first turns (their rounds time out), so this
  // waits for its first committed block rather than counting turns in a fixed span.
  let scanned = joinedAt;
  await c.waitFor(
    async () => {
      const head = (await c.nodes[0]!.client.canonHead())?.seq ?? 0;
      for (; scanned <= head; scanned++) if ((await via.getBlockBySeq(scanned))?.proposer === joiner.address) return true;
      return false;
    },
    120_000,
    'a committed block proposed by the joiner',
  );
  t.pass(`the joiner proposed a committed block (seq ${scanned})`);
  const joinerVotes = Number((await (await fetch(`${proc.url}/metrics`)).text()).match(/^ledger_consensus_votes_sent_total (\d+)/m)?.[1] ?? 0);
  t.ok(joinerVotes > 0, `the joiner votes (${joinerVotes} votes)`);

  // Validator 3 leaves: after the next boundary the other four carry the chain without it.
  const leaver = await readKeyFile(join(c.nodes[3]!.dir, 'keys', 'validator.json'));
  // its attester may have sent an attestation from this account: ask for the nonce
  const unstaked = await send(buildUnstake({ senderPubkey: leaver.publicKey, nonce: await via.getNonce(leaver.address), amount: VALIDATOR_STAKE }), leaver.seed);
  t.equal(unstaked.status, 'success');
  await c.waitFor(async () => (await c.metric(0, 'ledger_consensus_validators')) === 4, 90_000, 'the set of 4 without validator 3');
  t.equal((await via.getValidatorStake(leaver.address))?.active, false, 'validator 3 is no longer active');
  await c.kill9(3);
  const seq = (await via.canonHead())!.seq;
  await c.waitFor(async () => ((await client.canonHead())?.seq ?? 0) >= seq + 5, 60_000, 'progress without validator 3');

  const top = Math.min(...(await Promise.all([0, 1, 2].map((i) => c.seq(i)))), (await client.canonHead())!.seq);
  for (let s = 0; s <= top; s++) {
    const hashes = new Set([...(await Promise.all([0, 1, 2].map(async (i) => (await c.nodes[i]!.client.getBlockBySeq(s))?.hash))), (await client.getBlockBySeq(s))?.hash]);
    if (hashes.size !== 1) t.fail(`nodes disagree at seq ${s}`);
  }
  await proc.stop();
  await c.stopAll();
});
