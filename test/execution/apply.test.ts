import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { buildBlockBody, executeBlock } from '../../node/execution/block.js';
import { StateOverlay, type StateReader } from '../../node/execution/overlay.js';
import { readAccount, readDid, readValidator, writeAccount } from '../../node/execution/state-access.js';
import type { BlockContext } from '../../node/execution/context.js';
import { addressBytesFromPublicKey, formatAddress } from '../../node/protocol/address.js';
import { UNIT } from '../../node/protocol/amount.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import { FEES } from '../../node/protocol/fees.js';
import { UNBONDING_PERIOD_MS } from '../../node/protocol/params.js';
import type { Payload } from '../../node/protocol/payloads.js';
import { signTransaction, type Transaction } from '../../node/protocol/transaction.js';

const CHAIN = 'test-chain';
const empty: StateReader = { get: async () => undefined };
const alice = keyPairFromSeed(new Uint8Array(32).fill(1));
const bob = keyPairFromSeed(new Uint8Array(32).fill(2));
const proposer = keyPairFromSeed(new Uint8Array(32).fill(3));
const A = addressBytesFromPublicKey(alice.publicKey);
const B = addressBytesFromPublicKey(bob.publicKey);
const P = addressBytesFromPublicKey(proposer.publicKey);

function ctx(timestampMs = 1_000): BlockContext {
  return { network: 'testnet', height: 1, round: 1, parentHash: new Uint8Array(32), timestampMs, proposer: P };
}

function tx(kp: typeof alice, nonce: bigint, payload: Payload): Transaction {
  return signTransaction(CHAIN, { senderPubkey: kp.publicKey, nonce, payload }, kp.seed);
}

async function funded(balance: bigint): Promise<StateOverlay> {
  const s = new StateOverlay(empty);
  writeAccount(s, A, { balance, nonce: 0n });
  return s;
}

/** Applies a block's changes onto a fresh overlay so the next block reads them. */
async function run(state: StateReader, txs: Transaction[], c = ctx()) {
  const res = await executeBlock(state, CHAIN, c, txs);
  const next = new StateOverlay(state);
  for (const ch of res.changes) ch.value ? next.put(ch.key, ch.value) : next.delete(ch.key);
  return { res, state: next };
}

t.test('transfer moves the amount, takes the fee, pays the proposer, and works above 2^60', async (t) => {
  const big = (1n << 61n) + 5n;
  const { res, state } = await run(await funded(big), [tx(alice, 0n, { kind: 'Transfer', to: B, amount: 1n << 60n })]);
  t.equal(res.txs[0]!.outcome.status, 'success');
  t.equal((await readAccount(state, A)).balance, big - (1n << 60n) - FEES.Transfer!);
  t.equal((await readAccount(state, A)).nonce, 1n);
  t.equal((await readAccount(state, B)).balance, 1n << 60n);
  t.equal((await readAccount(state, P)).balance, FEES.Transfer);
  t.same(res.txs[0]!.outcome.events, [{ type: 'Transfer', from: formatAddress(A), to: formatAddress(B), amount: 1n << 60n }]);
});

t.test('a failed payload keeps the fee and the nonce, and undoes its effects', async (t) => {
  const { res, state } = await run(await funded(10n * UNIT), [tx(alice, 0n, { kind: 'Transfer', to: B, amount: 11n * UNIT })]);
  t.equal(res.txs[0]!.outcome.status, 'failed: insufficient balance');
  t.equal((await readAccount(state, A)).balance, 10n * UNIT - FEES.Transfer!);
  t.equal((await readAccount(state, A)).nonce, 1n);
  t.equal((await readAccount(state, B)).balance, 0n);
});

t.test('a wrong nonce or an unpayable fee makes the block invalid', async (t) => {
  await t.rejects(executeBlock(await funded(UNIT), CHAIN, ctx(), [tx(alice, 1n, { kind: 'Stake', amount: 1n })]), { code: 'NONCE_MISMATCH' });
  await t.rejects(executeBlock(empty, CHAIN, ctx(), [tx(alice, 0n, { kind: 'Stake', amount: 1n })]), { code: 'CANNOT_PAY_FEE' });
});

t.test('the proposer leaves out what cannot be included and keeps the rest', async (t) => {
  const body = await buildBlockBody(await funded(UNIT), CHAIN, ctx(), [
    tx(alice, 0n, { kind: 'Transfer', to: B, amount: 1n }),
    tx(alice, 5n, { kind: 'Transfer', to: B, amount: 1n }),
    tx(bob, 0n, { kind: 'Transfer', to: A, amount: 1n }),
    tx(alice, 1n, { kind: 'Transfer', to: B, amount: 1n }),
  ]);
  t.same(body.txs.map((x) => x.tx.nonce), [0n, 1n]);
  t.same(body.excluded.map((x) => x.error.code), ['NONCE_MISMATCH', 'CANNOT_PAY_FEE']);
  const again = await executeBlock(await funded(UNIT), CHAIN, ctx(), body.txs.map((x) => x.tx));
  t.same(again.changes, body.changes, 'validators re-executing the body get the same writes');
});

t.test('stake, unstake, 21-day unbonding and release', async (t) => {
  const amount = 20_000n * UNIT;
  let { state } = await run(await funded(100_000n * UNIT), [tx(alice, 0n, { kind: 'Stake', amount })]);
  let v = await readValidator(state, A);
  t.equal(v?.staked, amount);
  t.equal(v?.active, false, 'membership changes only at an epoch boundary (test/execution/validator-set.test.ts)');
  ({ state } = await run(state, [tx(alice, 1n, { kind: 'Unstake', amount: 15_000n * UNIT })], ctx(2_000)));
  v = await readValidator(state, A);
  t.equal(v?.staked, 5_000n * UNIT);
  t.same(v?.unbonding, [{ amount: 15_000n * UNIT, releaseMs: 2_000 + UNBONDING_PERIOD_MS }]);
  const before = (await readAccount(state, A)).balance;
  const early = await run(state, [tx(alice, 2n, { kind: 'Transfer', to: B, amount: 1n })], ctx(1_000 + UNBONDING_PERIOD_MS));
  t.equal((await readValidator(early.state, A))?.unbonding.length, 1, 'still locked before 21 days');
  const late = await run(state, [tx(alice, 2n, { kind: 'Transfer', to: B, amount: 1n })], ctx(2_000 + UNBONDING_PERIOD_MS));
  t.equal((await readValidator(late.state, A))?.unbonding.length, 0, 'released after 21 days');
  t.equal((await readAccount(late.state, A)).balance, before + 15_000n * UNIT - 1n - FEES.Transfer!);
  const over = await run(state, [tx(alice, 2n, { kind: 'Unstake', amount: 6_000n * UNIT })]);
  t.equal(over.res.txs[0]!.outcome.status, 'failed: amount exceeds staked balance');
});

t.test('DID lifecycle: create once, deactivate by an authentication key, irreversible', async (t) => {
  const did = didForPublicKey('testnet', alice.publicKey);
  let { res, state } = await run(await funded(UNIT), [tx(alice, 0n, { kind: 'DidCreate', service: [{ id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example' }] })], ctx(5_000));
  t.equal(res.txs[0]!.outcome.status, 'success');
  const rec = await readDid(state, A);
  t.match(rec, { did, active: true, createdMs: 5_000, updatedMs: 5_000, versionId: 1 });
  ({ res } = await run(state, [tx(alice, 1n, { kind: 'DidCreate', service: [] })]));
  t.equal(res.txs[0]!.outcome.status, `failed: DID already exists: ${did}`);

  writeAccount(state as StateOverlay, B, { balance: UNIT, nonce: 0n });
  ({ res } = await run(state, [tx(bob, 0n, { kind: 'DidDeactivate', did })]));
  t.equal(res.txs[0]!.outcome.status, 'failed: not signed by an authentication key of the DID');

  ({ res, state } = await run(state, [tx(alice, 1n, { kind: 'DidDeactivate', did })], ctx(9_000)));
  t.equal(res.txs[0]!.outcome.status, 'success');
  t.match(await readDid(state, A), { active: false, publicKey: null, updatedMs: 9_000, versionId: 2 });
  ({ res } = await run(state, [tx(alice, 2n, { kind: 'DidDeactivate', did })]));
  t.equal(res.txs[0]!.outcome.status, `failed: DID already deactivated: ${did}`);
  ({ res } = await run(state, [tx(alice, 2n, { kind: 'DidCreate', service: [] })]));
  t.equal(res.txs[0]!.outcome.status, `failed: DID already exists: ${did}`, 'never created again');
  ({ res } = await run(state, [tx(alice, 2n, { kind: 'DidDeactivate', did: didForPublicKey('mainnet', bob.publicKey) })]));
  t.match(res.txs[0]!.outcome.status, /belongs to network mainnet/);
});

t.test('execution is deterministic: same input, same writes in the same order', async (t) => {
  const txs = [tx(alice, 0n, { kind: 'Transfer', to: B, amount: 5n }), tx(alice, 1n, { kind: 'Stake', amount: 7n })];
  const a = await executeBlock(await funded(UNIT), CHAIN, ctx(), txs);
  const b = await executeBlock(await funded(UNIT), CHAIN, ctx(), txs);
  t.same(a.changes, b.changes);
});
