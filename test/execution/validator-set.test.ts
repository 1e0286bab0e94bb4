import t from 'tap';
import { BlsQuorumCrypto, voteDigest } from '../../node/consensus/crypto.js';
import { buildBlockBody, executeBlock } from '../../node/execution/block.js';
import { StateOverlay, type StateReader } from '../../node/execution/overlay.js';
import { readAccount, readValidator, writeAccount, writeValidator } from '../../node/execution/state-access.js';
import { isEligible, lastHeightOf, readCandidates, selectValidatorSet, tierOf, weightOf, writeGenesisValidatorSet, type Candidate } from '../../node/execution/validator-set.js';
import { ADDRESS_LENGTH, formatAddress } from '../../node/protocol/address.js';
import { UNIT } from '../../node/protocol/amount.js';
import { bytesEqual, toHex } from '../../node/protocol/bytes.js';
import { FEES } from '../../node/protocol/fees.js';
import { DEFAULT_EPOCH_LENGTH as EPOCH_LENGTH, MAX_ACTIVE_VALIDATORS, MAX_BLS_PAYLOADS_PER_BLOCK, MIN_VALIDATOR_STAKE, UNBONDING_PERIOD_MS } from '../../node/protocol/params.js';
import type { PayloadOf, SignedVoteRef } from '../../node/protocol/payloads.js';
import { VALIDATOR_SET_KEY, type ValidatorRecord } from '../../node/protocol/records.js';
import type { Transaction } from '../../node/protocol/transaction.js';
import { proofOfPossession } from '../../node/protocol/validator-keys.js';
import { CHAIN, Chain, member, proposer, tx, type Member } from './chain-harness.js';

const empty: StateReader = { get: async () => undefined };
const genesis = (validators: Array<{ who: Member; stake: bigint }>, o: { epochs?: boolean; funded?: Member[]; length?: number } = {}) =>
  Chain.genesis(validators, { funded: [alice, bob], ...o });

const g1 = member(11);
const g2 = member(12);
const alice = member(21);
const bob = member(22);

function register(who: Member, nonce: bigint, chainId = CHAIN, address = who.address): Transaction {
  const p = proofOfPossession(chainId, address, who.bls.secretKey);
  return tx(who, nonce, { kind: 'ValidatorRegister', blsPublicKey: p.blsPublicKey, proofOfPossession: p.proofOfPossession });
}

/** Base58 addresses in canonical (address-byte) order. */
const names = (...ms: Member[]) => [...ms].sort((a, b) => Buffer.compare(a.address, b.address)).map((m) => formatAddress(m.address));

function rec(staked: bigint, o: Partial<ValidatorRecord> = {}): ValidatorRecord {
  return { staked, unbonding: [], reputation: 0, active: false, ed25519PublicKey: new Uint8Array(32), blsPublicKey: new Uint8Array(48).fill(1), ...o };
}

function cand(byte: number, staked: bigint, o: Partial<ValidatorRecord> = {}): Candidate {
  return { address: new Uint8Array(ADDRESS_LENGTH).fill(byte), record: rec(staked, o) };
}

t.test('tiers set the weight: 1, 2, 3; below tier 1 nothing; stake above a tier minimum buys nothing', async (t) => {
  const cases: Array<[bigint, number, bigint]> = [
    [0n, 0, 0n],
    [MIN_VALIDATOR_STAKE - 1n, 0, 0n],
    [10_000n * UNIT, 1, 1n],
    [100_000n * UNIT - 1n, 1, 1n],
    [100_000n * UNIT, 2, 2n],
    [1_000_000n * UNIT - 1n, 2, 2n],
    [1_000_000n * UNIT, 3, 3n],
    [2n ** 127n, 3, 3n],
  ];
  for (const [staked, tier, weight] of cases) {
    t.equal(tierOf(staked), tier, `tier of ${staked}`);
    t.equal(weightOf(staked), weight, `weight of ${staked}`);
  }
  const set = selectValidatorSet([cand(3, 2_000_000n * UNIT), cand(1, 10_000n * UNIT), cand(2, 150_000n * UNIT)]);
  t.same(
    set.map((v) => [v.address[0], v.weight]),
    [
      [1, 1n],
      [2, 2n],
      [3, 3n],
    ],
    'weights by tier, in ascending address order',
  );
});

t.test('eligibility: tier-1 stake, a 48-byte BLS key, not slashed', async (t) => {
  t.ok(isEligible(rec(MIN_VALIDATOR_STAKE)));
  t.notOk(isEligible(rec(MIN_VALIDATOR_STAKE - 1n)), 'below the minimum');
  t.notOk(isEligible(rec(MIN_VALIDATOR_STAKE, { blsPublicKey: new Uint8Array(0) })), 'no vote key');
  t.notOk(isEligible(rec(MIN_VALIDATOR_STAKE, { slashed: true })), 'slashed');
  const set = selectValidatorSet([cand(1, MIN_VALIDATOR_STAKE - 1n), cand(2, MIN_VALIDATOR_STAKE), cand(3, 5n * MIN_VALIDATOR_STAKE, { slashed: true }), cand(4, MIN_VALIDATOR_STAKE, { blsPublicKey: new Uint8Array(0) })]);
  t.same(set.map((v) => v.address[0]), [2]);
});

t.test('canonical order is ascending address bytes, whatever the input order', async (t) => {
  const cs = [cand(0x90, MIN_VALIDATOR_STAKE), cand(0x10, 10n ** 20n), cand(0x50, 200_000n * UNIT), cand(0x0f, MIN_VALIDATOR_STAKE)];
  const a = selectValidatorSet(cs);
  const b = selectValidatorSet([...cs].reverse());
  t.same(a.map((v) => v.address[0]), [0x0f, 0x10, 0x50, 0x90]);
  t.same(a, b);
});

t.test(`the set is capped at ${MAX_ACTIVE_VALIDATORS}: by weight, then stake, then address`, async (t) => {
  const cs: Candidate[] = [];
  for (let i = 0; i < MAX_ACTIVE_VALIDATORS + 20; i++) cs.push(cand(i, MIN_VALIDATOR_STAKE + BigInt(i % 3))); // tier 1, three stake levels
  cs.push(cand(250, 100_000n * UNIT)); // tier 2
  cs.push(cand(251, 1_000_000n * UNIT)); // tier 3
  const set = selectValidatorSet(cs);
  t.equal(set.length, MAX_ACTIVE_VALIDATORS);
  const ids = set.map((v) => v.address[0]!);
  t.ok(ids.includes(250) && ids.includes(251), 'higher tiers first');
  const tier1 = ids.filter((i) => i < 250);
  const byStake = (i: number) => i % 3;
  // 98 tier-1 places: all 40 with the most stake (i % 3 == 2), all 40 of the next level, then the 18 lowest addresses of the last
  t.equal(tier1.filter((i) => byStake(i) === 2).length, 40);
  t.equal(tier1.filter((i) => byStake(i) === 1).length, 40);
  t.same(tier1.filter((i) => byStake(i) === 0), Array.from({ length: 18 }, (_, k) => k * 3), 'ties broken by the lower address');
  t.same([...ids].sort((a, b) => a - b), ids, 'the capped set is in canonical order');
  t.equal(selectValidatorSet(cs, 2).map((v) => v.address[0]).join(), '250,251');
});

t.test('epochs: heights [e * L, (e + 1) * L), the boundary is the last height', async (t) => {
  t.equal(EPOCH_LENGTH, 100, 'the default length');
  t.equal(lastHeightOf({ firstHeight: 0, length: 100 }), 99);
  t.equal(lastHeightOf({ firstHeight: 100, length: 100 }), 199);
  t.equal(lastHeightOf({ firstHeight: 30, length: 10 }), 39);
});

t.test("genesis writes epoch 0's set, the candidate index and the active flags", async (t) => {
  const stakeOnly = member(13);
  const chain = await genesis([
    { who: g1, stake: 2_000_000n * UNIT },
    { who: g2, stake: 10_000n * UNIT },
  ]);
  // a record without a vote key is no candidate
  const s = new StateOverlay(empty);
  writeValidator(s, stakeOnly.address, rec(MIN_VALIDATOR_STAKE, { blsPublicKey: new Uint8Array(0), active: true }));
  writeValidator(s, g1.address, rec(MIN_VALIDATOR_STAKE, { blsPublicKey: g1.bls.publicKey, active: true }));
  const set0 = await writeGenesisValidatorSet(s);
  t.same(set0.validators.map((v) => formatAddress(v.address)), [formatAddress(g1.address)]);
  t.equal((await readValidator(s, stakeOnly.address))?.active, false, 'active is membership');

  const set = await chain.set();
  t.match(set, { epoch: 0, firstHeight: 0 });
  t.same(await chain.members(), names(g1, g2));
  for (const v of set!.validators) t.equal(v.weight, bytesEqual(v.address, g1.address) ? 3n : 1n);
  t.same((await readCandidates(chain.state)).map(formatAddress), names(g1, g2));
  t.equal((await chain.record(g1))?.active, true);
});

t.test('the boundary block writes the next set exactly once, and the state root commits to it', async (t) => {
  const chain = await genesis([{ who: g1, stake: MIN_VALIDATOR_STAKE }]);
  const writes: number[] = [];
  let root = chain.root;
  while (chain.height < 2 * EPOCH_LENGTH) {
    const res = await chain.block();
    const wrote = res.changes.some((c) => bytesEqual(c.key, VALIDATOR_SET_KEY));
    if (wrote) writes.push(chain.height);
    t.equal(res.validatorSet !== undefined, wrote, `height ${chain.height}: validatorSet is reported iff written`);
    if (!wrote && !bytesEqual(chain.root, root)) t.fail(`an empty block at height ${chain.height} changed the root`);
    if (wrote) t.not(toHex(chain.root), toHex(root), 'the boundary changes the state root');
    root = chain.root;
  }
  t.same(writes, [EPOCH_LENGTH - 1, 2 * EPOCH_LENGTH - 1]);
  t.match(await chain.set(), { epoch: 2, firstHeight: 2 * EPOCH_LENGTH });
  t.same(await chain.members(), names(g1), 'the same validator, carried into each epoch');
});

t.test('a genesis epoch length of 10: boundaries at heights 9, 19, 29', async (t) => {
  const chain = await genesis([{ who: g1, stake: MIN_VALIDATOR_STAKE }], { length: 10 });
  const writes: number[] = [];
  while (chain.height < 30) if ((await chain.block()).validatorSet) writes.push(chain.height);
  t.same(writes, [9, 19, 29]);
  t.match(await chain.set(), { epoch: 3, firstHeight: 30, length: 10 });
});

t.test('join through Stake + ValidatorRegister at the next boundary; leave at the boundary after unstaking below the minimum', async (t) => {
  const chain = await genesis([{ who: g1, stake: 1_000_000n * UNIT }]);
  await chain.until(9);
  let res = await chain.block([tx(alice, chain.nonce(alice), { kind: 'Stake', amount: 150_000n * UNIT }), register(alice, chain.nonce(alice))]);
  t.same(res.txs.map((x) => x.outcome.status), ['success', 'success']);
  t.same(res.txs[1]!.outcome.events, [{ type: 'ValidatorRegistered', address: formatAddress(alice.address) }]);
  t.equal((await readAccount(chain.state, alice.address)).balance, 10_000_000n * UNIT - 150_000n * UNIT - FEES.Stake! - FEES.ValidatorRegister!, 'the registration fee');
  t.match(await chain.record(alice), { staked: 150_000n * UNIT, active: false });
  t.equal(toHex((await chain.record(alice))!.blsPublicKey), toHex(alice.bls.publicKey));
  t.equal(toHex((await chain.record(alice))!.ed25519PublicKey), toHex(alice.ed.publicKey), 'the identity key is recorded too');
  t.same((await readCandidates(chain.state)).map(formatAddress), names(g1, alice), 'a candidate at once');
  t.same(await chain.members(), names(g1), 'but not a member before the boundary');

  await chain.until(EPOCH_LENGTH - 2);
  t.equal((await chain.set())?.epoch, 0);
  res = await chain.block(); // the boundary
  t.equal(chain.height, EPOCH_LENGTH - 1);
  t.match(res.validatorSet, { epoch: 1, firstHeight: EPOCH_LENGTH });
  t.same(await chain.members(), names(g1, alice));
  t.equal((await chain.set())!.validators.find((v) => bytesEqual(v.address, alice.address))?.weight, 2n, 'tier 2');
  t.equal((await chain.record(alice))?.active, true);

  // unstake below the minimum at height 150: still a member until the boundary at 199
  await chain.until(149);
  const unstakeMs = chain.timestampMs + 1_000;
  res = await chain.block([tx(alice, chain.nonce(alice), { kind: 'Unstake', amount: 145_000n * UNIT })], { timestampMs: unstakeMs });
  t.same(res.txs[0]!.outcome.events, [{ type: 'Unstake', address: formatAddress(alice.address), amount: 145_000n * UNIT, release_ms: unstakeMs + UNBONDING_PERIOD_MS }]);
  t.match(await chain.record(alice), { staked: 5_000n * UNIT, active: true });
  t.same((await readCandidates(chain.state)).map(formatAddress), names(g1), 'no longer a candidate');
  await chain.until(2 * EPOCH_LENGTH - 2);
  t.same(await chain.members(), names(g1, alice), 'still a member for the rest of the epoch');
  await chain.block();
  t.same(await chain.members(), names(g1), 'gone from the epoch after');
  t.equal((await chain.record(alice))?.active, false);

  // 21 days of chain time (block timestamps), not of heights
  const before = (await readAccount(chain.state, alice.address)).balance;
  const transfer = () => tx(alice, chain.nonce(alice), { kind: 'Transfer', to: bob.address, amount: 1n });
  res = await chain.block([transfer()], { timestampMs: unstakeMs + UNBONDING_PERIOD_MS - 1 });
  t.equal((await chain.record(alice))?.unbonding.length, 1, 'locked one millisecond before');
  res = await chain.block([transfer()], { timestampMs: unstakeMs + UNBONDING_PERIOD_MS });
  t.same(res.txs[0]!.outcome.events[0], { type: 'UnbondingReleased', address: formatAddress(alice.address), amount: 145_000n * UNIT });
  t.equal((await chain.record(alice))?.unbonding.length, 0);
  t.equal((await readAccount(chain.state, alice.address)).balance, before + 145_000n * UNIT - 2n - 2n * FEES.Transfer!);
});

t.test('Stake alone never makes a member; registering without stake makes a record but no candidate', async (t) => {
  const chain = await genesis([{ who: g1, stake: MIN_VALIDATOR_STAKE }]);
  await chain.block([tx(alice, chain.nonce(alice), { kind: 'Stake', amount: 50_000n * UNIT }), register(bob, chain.nonce(bob))]);
  t.match(await chain.record(bob), { staked: 0n, active: false });
  t.same((await readCandidates(chain.state)).map(formatAddress), names(g1));
  await chain.until(EPOCH_LENGTH - 1);
  t.same(await chain.members(), names(g1));
  // bob stakes later and joins at the boundary after that
  await chain.block([tx(bob, chain.nonce(bob), { kind: 'Stake', amount: MIN_VALIDATOR_STAKE })]);
  await chain.until(2 * EPOCH_LENGTH - 1);
  t.same(await chain.members(), names(g1, bob));
});

t.test('ValidatorRegister: the proof must be for this key, this address and this chain; the key is set once', async (t) => {
  const chain = await genesis([{ who: g1, stake: MIN_VALIDATOR_STAKE }], { funded: [alice, bob, g1] });
  const other = proofOfPossession(CHAIN, alice.address, bob.bls.secretKey);
  const wrongKey = tx(alice, chain.nonce(alice), { kind: 'ValidatorRegister', blsPublicKey: alice.bls.publicKey, proofOfPossession: other.proofOfPossession });
  const wrongAddress = register(alice, chain.nonce(alice), CHAIN, bob.address);
  const wrongChain = register(alice, chain.nonce(alice), 'another-chain');
  const res = await chain.block([wrongKey, wrongAddress, wrongChain]);
  for (const x of res.txs) {
    t.match(x.outcome.status, /^failed: proof of possession does not verify/);
    t.equal(x.outcome.feePaid, FEES.ValidatorRegister, 'the fee is paid');
  }
  t.equal(await chain.record(alice), undefined, 'no record written by a failed registration');
  const ok = await chain.block([register(alice, chain.nonce(alice))]);
  t.equal(ok.txs[0]!.outcome.status, 'success');
  const again = await chain.block([register(alice, chain.nonce(alice))]);
  t.equal(again.txs[0]!.outcome.status, 'failed: a vote key is already registered for this validator');
  const genesisValidator = await chain.block([register(g1, chain.nonce(g1))]);
  t.equal(genesisValidator.txs[0]!.outcome.status, 'failed: a vote key is already registered for this validator', 'genesis registered its key');
});

function doubleVote(signer: Member, round: number, chainId = CHAIN): PayloadOf<'SubmitEvidence'> {
  const crypto = new BlsQuorumCrypto(signer.bls.secretKey);
  const vote = (fill: number): SignedVoteRef => {
    const blockHash = new Uint8Array(32).fill(fill);
    return { height: 40, blockHash, signature: crypto.sign(voteDigest(chainId, 0, round, 40, blockHash)) };
  };
  return { kind: 'SubmitEvidence', evidence: 'double-vote', epoch: 0, round, validator: signer.address, first: vote(1), second: vote(2) };
}

t.test('SubmitEvidence: a proven double vote slashes for good; the validator leaves at the next boundary', async (t) => {
  const chain = await genesis([
    { who: g1, stake: MIN_VALIDATOR_STAKE },
    { who: g2, stake: MIN_VALIDATOR_STAKE },
  ]);
  const e = doubleVote(g2, 7);
  const forged = { ...e, second: { ...e.second, signature: e.first.signature } };
  let res = await chain.block([
    tx(bob, chain.nonce(bob), forged),
    tx(bob, chain.nonce(bob), doubleVote(g2, 7, 'another-chain')),
    tx(bob, chain.nonce(bob), { ...e, validator: alice.address }),
  ]);
  t.same(
    res.txs.map((x) => x.outcome.status),
    ['failed: the second vote signature does not verify under the validator\'s key', "failed: the first vote signature does not verify under the validator's key", 'failed: the validator has no registered vote key'],
  );
  t.notOk((await chain.record(g2))?.slashed);

  res = await chain.block([tx(bob, chain.nonce(bob), e)]);
  t.equal(res.txs[0]!.outcome.status, 'success');
  t.equal(res.txs[0]!.outcome.feePaid, FEES.SubmitEvidence);
  t.same(res.txs[0]!.outcome.events, [{ type: 'ValidatorSlashed', address: formatAddress(g2.address), round: 7 }]);
  t.match(await chain.record(g2), { slashed: true, active: true, staked: MIN_VALIDATOR_STAKE });
  t.same((await readCandidates(chain.state)).map(formatAddress), names(g1));
  res = await chain.block([tx(bob, chain.nonce(bob), doubleVote(g2, 8))]);
  t.equal(res.txs[0]!.outcome.status, 'failed: the validator is already slashed');

  t.same(await chain.members(), names(g1, g2), 'a member until the boundary');
  await chain.until(EPOCH_LENGTH - 1);
  t.same(await chain.members(), names(g1));
  t.equal((await chain.record(g2))?.active, false);
  t.ok(isEligible({ ...(await chain.record(g2))!, slashed: false }) && !isEligible((await chain.record(g2))!), 'only the flag keeps it out');
});

t.test('with no eligible candidate left, the current set carries over rather than halting the chain', async (t) => {
  const chain = await genesis([{ who: g1, stake: MIN_VALIDATOR_STAKE }], { funded: [bob] });
  await chain.block([tx(bob, chain.nonce(bob), doubleVote(g1, 3))]);
  t.same(await readCandidates(chain.state), []);
  await chain.until(EPOCH_LENGTH - 1);
  t.match(await chain.set(), { epoch: 1, firstHeight: EPOCH_LENGTH });
  t.same(await chain.members(), names(g1));
  t.equal((await chain.record(g1))?.active, true);
});

t.test('a chain whose genesis recorded no set (built before epochs) computes no epochs', async (t) => {
  const chain = await genesis([{ who: g1, stake: MIN_VALIDATOR_STAKE }], { epochs: false });
  t.equal(await chain.set(), undefined);
  await chain.until(EPOCH_LENGTH - 2);
  const res = await chain.block();
  t.equal(chain.height, EPOCH_LENGTH - 1);
  t.same(res.changes, [], 'the boundary writes nothing');
  t.equal(res.validatorSet, undefined);
  t.equal(await chain.set(), undefined);
});

t.test(`a block carries at most ${MAX_BLS_PAYLOADS_PER_BLOCK} ValidatorRegister and SubmitEvidence transactions`, async (t) => {
  const chain = await genesis([{ who: g1, stake: MIN_VALIDATOR_STAKE }]);
  const many = [alice, bob, member(23), member(24), member(25)];
  const s = new StateOverlay(chain.state);
  for (const m of many) writeAccount(s, m.address, { balance: UNIT, nonce: 0n });
  const txs = many.map((m) => register(m, 0n));
  await t.rejects(executeBlock(s, CHAIN, chain.ctx(), txs), { code: 'BLOCK_BLS_LIMIT' });
  const body = await buildBlockBody(s, CHAIN, chain.ctx(), [...txs, tx(alice, 1n, { kind: 'Transfer', to: bob.address, amount: 1n })]);
  t.equal(body.txs.length, MAX_BLS_PAYLOADS_PER_BLOCK + 1, 'the proposer leaves out the fifth and keeps the rest');
  t.same(body.excluded.map((x) => x.error.code), ['BLOCK_BLS_LIMIT']);
  const again = await executeBlock(s, CHAIN, chain.ctx(), body.txs.map((x) => x.tx));
  t.same(again.changes, body.changes);
});

t.test('the epoch step is part of both the proposer and the validator execution', async (t) => {
  const chain = await genesis([{ who: g1, stake: MIN_VALIDATOR_STAKE }]);
  await chain.until(EPOCH_LENGTH - 2);
  const txs = [tx(alice, 0n, { kind: 'Stake', amount: MIN_VALIDATOR_STAKE }), register(alice, 1n)];
  const built = await buildBlockBody(chain.state, CHAIN, chain.ctx(), txs);
  const validated = await executeBlock(chain.state, CHAIN, chain.ctx(), txs);
  t.same(validated.changes, built.changes);
  t.match(built.validatorSet, { epoch: 1 });
  t.equal(built.validatorSet?.validators.length, 2, 'a Stake and a registration in the boundary block itself count for the next epoch');
});
