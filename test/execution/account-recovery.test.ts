import t from 'tap';
import { mergeUnbonding } from '../../node/execution/account-recovery.js';
import { readAccount, readValidator } from '../../node/execution/state-access.js';
import { addressBytesFromPublicKey, formatAddress } from '../../node/protocol/address.js';
import { UNIT } from '../../node/protocol/amount.js';
import { toHex } from '../../node/protocol/bytes.js';
import { MAX_UNBONDING_ENTRIES, UNBONDING_PERIOD_MS } from '../../node/protocol/params.js';
import { A, DID, fresh, G, owner, recover, relayer, setup, signatures } from './recovery-chain.js';

/**
 * Protocol version 2 (docs/protocol.md, "Social recovery"): a completed recovery moves the old
 * key's balance, stake and unbonding entries to the new key's address; version 1 moves nothing.
 */

const NEW = addressBytesFromPublicKey(fresh.publicKey);

async function holdings(chain: Awaited<ReturnType<typeof setup>>, address: Uint8Array) {
  const v = await readValidator(chain.state, address);
  return { balance: (await readAccount(chain.state, address)).balance, staked: v?.staked ?? 0n, unbonding: v?.unbonding ?? [] };
}

t.test('version 2, at once: the new key holds the balance, the stake and the unbonding; the old key cannot spend', async (t) => {
  const chain = await setup(2, 0, 2);
  t.equal((await chain.send(owner, { kind: 'Stake', amount: UNIT / 4n })).status, 'success');
  t.equal((await chain.send(owner, { kind: 'Unstake', amount: UNIT / 10n })).status, 'success');
  const old = await holdings(chain, A);
  const before = await holdings(chain, NEW);
  t.equal(old.unbonding.length, 1);

  const out = await chain.send(relayer, recover(signatures(chain, 2)));
  t.equal(out.status, 'success');
  t.same(out.events, [
    { type: 'DidRecovered', did: DID, new_public_key: toHex(fresh.publicKey) },
    { type: 'AccountRecovered', did: DID, from: formatAddress(A), to: formatAddress(NEW), balance: old.balance, staked: old.staked, unbonding: old.unbonding[0]!.amount },
  ]);
  t.same(await holdings(chain, NEW), { balance: before.balance + old.balance, staked: old.staked, unbonding: old.unbonding }, 'the new address holds it all, the release time kept');
  t.same(await holdings(chain, A), { balance: 0n, staked: 0n, unbonding: [] }, 'the old address holds nothing');

  // a block may not even include it: its sender cannot pay the fee
  await t.rejects(chain.send(owner, { kind: 'Transfer', to: addressBytesFromPublicKey(relayer.publicKey), amount: 1n }), /balance 0 cannot pay the fee/, 'the old key cannot spend');
  t.equal((await chain.send(fresh, { kind: 'Transfer', to: addressBytesFromPublicKey(relayer.publicKey), amount: old.balance })).status, 'success', 'the new key can');
});

t.test('version 2, delayed: nothing moves before the due height, everything at it; a cancel in the window keeps the funds', async (t) => {
  const chain = await setup(2, 3, 2);
  const old = await holdings(chain, A);
  const started = await chain.send(relayer, recover(signatures(chain, 2)));
  t.match(started.events, [{ type: 'RecoveryStarted', due_height: 6 }]);
  await chain.emptyBlocksUntil(5);
  t.same((await holdings(chain, A)).balance, old.balance, 'during the delay the owner still holds it');
  await chain.emptyBlocksUntil(6);
  t.equal((await holdings(chain, A)).balance, 0n);
  t.equal((await holdings(chain, NEW)).balance, UNIT + old.balance, 'at the due height the new key holds it');

  const cancelled = await setup(2, 3, 2);
  const kept = await holdings(cancelled, A);
  t.equal((await cancelled.send(relayer, recover(signatures(cancelled, 2)))).status, 'success');
  const cancel = await cancelled.send(owner, { kind: 'SetRecoveryPolicy', did: DID, guardians: G, threshold: 2, delayBlocks: 3 });
  t.equal(cancel.status, 'success');
  await cancelled.emptyBlocksUntil(8);
  t.equal((await holdings(cancelled, A)).balance, kept.balance - cancel.feePaid, 'the owner cancelled within the delay: the funds stayed');
  t.equal((await holdings(cancelled, NEW)).balance, UNIT);
});

t.test('version 1 (no protocol_version in genesis): the recovery moves the DID, not the funds', async (t) => {
  const chain = await setup(2, 0, 1);
  const old = await holdings(chain, A);
  const out = await chain.send(relayer, recover(signatures(chain, 2)));
  t.same(out.events.map((e) => e.type), ['DidRecovered']);
  t.equal((await holdings(chain, A)).balance, old.balance);
  t.equal((await holdings(chain, NEW)).balance, UNIT);
});

t.test('unbonding entries past the cap merge into the later release: nothing lost', async (t) => {
  const entries = Array.from({ length: MAX_UNBONDING_ENTRIES + 8 }, (_, i) => ({ amount: BigInt(i + 1), releaseMs: UNBONDING_PERIOD_MS + i * 1000 }));
  const merged = mergeUnbonding(entries);
  t.equal(merged.length, MAX_UNBONDING_ENTRIES);
  t.equal(merged.reduce((s, e) => s + e.amount, 0n), entries.reduce((s, e) => s + e.amount, 0n), 'the same total');
  t.same(merged.slice(0, MAX_UNBONDING_ENTRIES - 1), entries.slice(0, MAX_UNBONDING_ENTRIES - 1), 'the earliest keep their release');
  t.equal(merged.at(-1)!.releaseMs, entries.at(-1)!.releaseMs, 'the merged one releases with the latest');
  t.same(mergeUnbonding(entries.slice(0, 3).reverse()), entries.slice(0, 3), 'under the cap: only sorted');
});
