import t from 'tap';
import type { BlockContext } from '../../node/execution/context.js';
import { executeBlock } from '../../node/execution/block.js';
import { StateOverlay } from '../../node/execution/overlay.js';
import { readPendingRecovery, readRecoveryPolicy } from '../../node/execution/recovery.js';
import { MAX_TASKS_PER_HEIGHT, SCHEDULED_KINDS, scheduleTask } from '../../node/execution/scheduled.js';
import { readAccount, writeAccount, writeDid } from '../../node/execution/state-access.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { UNIT } from '../../node/protocol/amount.js';
import { fromHex, toHex } from '../../node/protocol/bytes.js';
import { didForPublicKey, parseDid } from '../../node/protocol/did.js';
import { FEES } from '../../node/protocol/fees.js';
import type { Payload } from '../../node/protocol/payloads.js';
import { signRecovery } from '../../node/protocol/recovery.js';
import { transactionFromJson, transactionHashBytes, type Transaction } from '../../node/protocol/transaction.js';
import { loadVectors } from '../fixtures/vectors.js';
import { A, CHAIN, DID, fresh, G, guardians, key, NETWORK, owner, recover, relayer, setup, signatures, stranger, STRANGER } from './recovery-chain.js';

t.test('a policy: written, versionId raised, events', async (t) => {
  const chain = await setup(2, 10);
  t.same(await readRecoveryPolicy(chain.state, A), { guardians: G.map((_, i) => addressBytesFromPublicKey(guardians[i]!.publicKey)), threshold: 2, delayBlocks: 10 });
  t.match(await chain.did(), { versionId: 2, updatedMs: 2_000 });
  const again = await chain.send(owner, { kind: 'SetRecoveryPolicy', did: DID, guardians: [G[0]!], threshold: 1, delayBlocks: 0 });
  t.same(again.events, [{ type: 'RecoveryPolicySet', did: DID, guardians: [G[0]], threshold: 1, delay_blocks: 0 }]);
  t.equal(again.feePaid, FEES.SetRecoveryPolicy);
  t.equal((await chain.did())!.versionId, 3);
});

t.test('immediate recovery (delay 0): the new key controls the DID, the old one no longer does', async (t) => {
  const chain = await setup();
  const before = await readAccount(chain.state, A);
  const out = await chain.send(relayer, recover(signatures(chain, 2)));
  t.equal(out.status, 'success');
  t.equal(out.feePaid, FEES.DidRecover, 'the relayer pays');
  t.same(out.events, [{ type: 'DidRecovered', did: DID, new_public_key: toHex(fresh.publicKey) }]);
  const rec = (await chain.did())!;
  t.same(rec.publicKey, fresh.publicKey);
  t.match(rec, { did: DID, active: true, versionId: 3, updatedMs: 3_000 });
  t.equal((await readAccount(chain.state, A)).balance, before.balance, 'the balance at the old address stays with the old key');

  const old = await chain.send(owner, { kind: 'DidDeactivate', did: DID });
  t.equal(old.status, 'failed: not signed by an authentication key of the DID');
  const oldPolicy = await chain.send(owner, { kind: 'SetRecoveryPolicy', did: DID, guardians: [G[2]!], threshold: 1, delayBlocks: 0 });
  t.equal(oldPolicy.status, 'failed: not signed by an authentication key of the DID');
  const newPolicy = await chain.send(fresh, { kind: 'SetRecoveryPolicy', did: DID, guardians: [G[2]!], threshold: 1, delayBlocks: 0 });
  t.equal(newPolicy.status, 'success');
  const deactivated = await chain.send(fresh, { kind: 'DidDeactivate', did: DID });
  t.equal(deactivated.status, 'success');
  t.match(await chain.did(), { active: false, publicKey: null, versionId: 5 });
});

t.test('a replay: the same signatures after the recovery fail, the versionId moved on', async (t) => {
  const chain = await setup();
  const sigs = signatures(chain, 2);
  t.equal((await chain.send(relayer, recover(sigs))).status, 'success');
  const replay = await chain.send(relayer, recover(sigs));
  t.equal(replay.status, `failed: the signature of guardian ${G[0]} does not verify (its current key, the DID at version 3)`);
  const back = await chain.send(relayer, recover(signatures(chain, 3, [0, 1], owner.publicKey), owner.publicKey));
  t.equal(back.status, 'success', 'new signatures for the new version work');
});

t.test('delayed recovery: pending until the due height, completed exactly there', async (t) => {
  const chain = await setup(2, 3);
  const tx = chain.tx(relayer, recover(signatures(chain, 2)));
  const [out] = await chain.block([tx]);
  t.same(out!.events, [{ type: 'RecoveryStarted', did: DID, new_public_key: toHex(fresh.publicKey), due_height: 6 }]);
  t.match(await readPendingRecovery(chain.state, A), { dueHeight: 6, versionId: 2 });
  t.match((await chain.send(relayer, recover(signatures(chain, 2)))).status, /already pending, due at height 6/);
  await chain.emptyBlocksUntil(5);
  t.same((await chain.did())!.publicKey, owner.publicKey, 'not before the due height');
  await chain.block();
  t.equal(chain.height, 6);
  const rec = (await chain.did())!;
  t.same(rec.publicKey, fresh.publicKey, 'at the due height');
  t.match(rec, { versionId: 3, updatedMs: 6_000 });
  t.same(rec.txHash, transactionHashBytes(CHAIN, tx), 'the DID names the DidRecover transaction');
  t.equal(await readPendingRecovery(chain.state, A), undefined);
  await chain.block();
  t.equal((await chain.did())!.versionId, 3, 'completed once');
});

t.test("the owner's SetRecoveryPolicy during the delay cancels the recovery", async (t) => {
  const chain = await setup(2, 3);
  const sigs = signatures(chain, 2);
  t.equal((await chain.send(relayer, recover(sigs))).status, 'success');
  const cancel = await chain.send(owner, { kind: 'SetRecoveryPolicy', did: DID, guardians: G, threshold: 2, delayBlocks: 3 });
  t.same(cancel.events.map((e) => e.type), ['RecoveryCancelled', 'RecoveryPolicySet']);
  await chain.emptyBlocksUntil(10);
  t.match(await chain.did(), { publicKey: owner.publicKey, versionId: 3 });
  t.equal(await readPendingRecovery(chain.state, A), undefined);
  t.match((await chain.send(relayer, recover(sigs))).status, /does not verify/, 'the old signatures are void');
});

t.test('a recovery voided by deactivation leaves the DID deactivated', async (t) => {
  const chain = await setup(1, 2);
  t.equal((await chain.send(relayer, recover(signatures(chain, 2, [0])))).status, 'success');
  t.equal((await chain.send(owner, { kind: 'DidDeactivate', did: DID })).status, 'success');
  await chain.emptyBlocksUntil(8);
  t.match(await chain.did(), { active: false, publicKey: null });
  t.equal(await readPendingRecovery(chain.state, A), undefined, 'the due task cleared the entry');
  t.equal((await chain.send(relayer, recover(signatures(chain, 3, [0])))).status, `failed: DID is deactivated: ${DID}`);
});

t.test('removing the policy: no guardians, threshold 0; it cancels a pending recovery too', async (t) => {
  const chain = await setup(1, 5);
  t.equal((await chain.send(relayer, recover(signatures(chain, 2, [0])))).status, 'success');
  const removal: Payload = { kind: 'SetRecoveryPolicy', did: DID, guardians: [], threshold: 0, delayBlocks: 0 };
  const out = await chain.send(owner, removal);
  t.same(out.events, [{ type: 'RecoveryCancelled', did: DID }, { type: 'RecoveryPolicyRemoved', did: DID }]);
  t.equal(await readRecoveryPolicy(chain.state, A), undefined);
  t.equal((await chain.send(owner, removal)).status, `failed: DID ${DID} has no recovery policy to remove`);
  t.equal((await chain.send(relayer, recover(signatures(chain, 3, [0])))).status, `failed: DID ${DID} has no recovery policy`);
});

t.test('DidRecover failures, each with its reason', async (t) => {
  const chain = await setup();
  const v = 2;
  const cases: Array<[string, Payload, string]> = [
    ['too few', recover(signatures(chain, v, [0])), '1 guardian signatures, the policy needs 2'],
    ['a non-guardian signer', recover([...signatures(chain, v, [0]), { guardian: STRANGER, signature: signRecovery(stranger.seed, { chainId: CHAIN, did: DID, newPublicKey: fresh.publicKey, versionId: v }) }]), `${STRANGER} is not a guardian of ${DID}`],
    ['a duplicate signer', recover(signatures(chain, v, [1, 1])), `guardian ${G[1]} signed twice`],
    ['a bad signature', recover([signatures(chain, v, [0])[0]!, { guardian: G[1]!, signature: new Uint8Array(64).fill(1) }]), `the signature of guardian ${G[1]} does not verify (its current key, the DID at version 2)`],
    ['a signature for another key', recover(signatures(chain, v, [0, 1], stranger.publicKey)), `the signature of guardian ${G[0]} does not verify (its current key, the DID at version 2)`],
    ['the current key', recover(signatures(chain, v, [0, 1], owner.publicKey), owner.publicKey), 'the new key is the current key of the DID'],
    ['an unknown DID', { ...recover(signatures(chain, v)), did: didForPublicKey(NETWORK, relayer.publicKey) } as Payload, `DID not found: ${didForPublicKey(NETWORK, relayer.publicKey)}`],
    ['another network', { ...recover(signatures(chain, v)), did: didForPublicKey('mainnet', owner.publicKey) } as Payload, `DID ${didForPublicKey('mainnet', owner.publicKey)} belongs to network mainnet, not testnet`],
    ['a DID without a policy', { ...recover(signatures(chain, v)), did: G[2]! } as Payload, `DID ${G[2]} has no recovery policy`],
  ];
  for (const [name, payload, reason] of cases) t.equal((await chain.send(relayer, payload)).status, `failed: ${reason}`, name);
  t.match(await chain.did(), { publicKey: owner.publicKey, versionId: 2 }, 'nothing changed');

  t.equal((await chain.send(guardians[1]!, { kind: 'DidDeactivate', did: G[1]! })).status, 'success');
  t.equal((await chain.send(relayer, recover(signatures(chain, v)))).status, `failed: guardian DID is deactivated: ${G[1]}`);
  t.equal((await chain.send(relayer, recover(signatures(chain, v, [0, 2])))).status, 'success', 'the other guardians still can');
});

t.test('a DidRecover whose due height is full fails, and can be sent again a block later', async (t) => {
  const chain = await setup(2, 3);
  const full = new StateOverlay(chain.state);
  for (let i = 0; i < MAX_TASKS_PER_HEIGHT; i++) await scheduleTask(full, 6, { kind: SCHEDULED_KINDS.recoveryDue, id: new Uint8Array(20).fill(0xee) });
  chain.state = full;
  t.equal((await chain.send(relayer, recover(signatures(chain, 2)))).status, 'failed: too much is already due at height 6; send the recovery again in a later block');
  const again = await chain.send(relayer, recover(signatures(chain, 2)));
  t.match(again.events, [{ type: 'RecoveryStarted', due_height: 7 }]);
  await chain.emptyBlocksUntil(7);
  t.same((await chain.did())!.publicKey, fresh.publicKey, 'the tasks of unknown DIDs at height 6 did nothing');
});

t.test('SetRecoveryPolicy failures', async (t) => {
  const chain = await setup();
  const policy = (over: Partial<Extract<Payload, { kind: 'SetRecoveryPolicy' }>>): Payload => ({ kind: 'SetRecoveryPolicy', did: DID, guardians: [G[0]!], threshold: 1, delayBlocks: 0, ...over });
  const unknown = didForPublicKey(NETWORK, relayer.publicKey);
  t.equal((await chain.send(stranger, policy({}))).status, 'failed: not signed by an authentication key of the DID', 'by a non-owner');
  t.equal((await chain.send(owner, policy({ guardians: [unknown] }))).status, `failed: guardian DID not found: ${unknown}`);
  const foreign = didForPublicKey('mainnet', relayer.publicKey);
  t.equal((await chain.send(owner, policy({ guardians: [foreign] }))).status, `failed: guardian DID ${foreign} belongs to network mainnet, not testnet`);
  t.equal((await chain.send(stranger, { kind: 'DidDeactivate', did: STRANGER })).status, 'success');
  t.equal((await chain.send(owner, policy({ guardians: [STRANGER] }))).status, `failed: guardian DID is deactivated: ${STRANGER}`);
  t.equal((await chain.send(relayer, policy({ did: unknown }))).status, `failed: DID not found: ${unknown}`);
  t.equal((await chain.send(stranger, policy({ did: STRANGER }))).status, `failed: DID is deactivated: ${STRANGER}`);
  t.match(await chain.did(), { versionId: 2 }, 'failures change nothing');
});

t.test('the vector transactions of docs/protocol.md execute: the policy, then the recovery', async (t) => {
  const V = loadVectors('ledger-recovery.json');
  const s = new StateOverlay({ get: async () => undefined });
  for (const [did, key] of [[V.did, Uint8Array.from(V.transactions[0].json.sender_pubkey as number[])], [V.guardian_did, fromHex(V.guardian_public_key)]] as const) {
    writeDid(s, parseDid(did).identifier, { did, publicKey: key, service: [], active: true, createdMs: 1, updatedMs: 1, versionId: 1, txHash: new Uint8Array(32) });
  }
  const [policy, recovery] = V.transactions.map((v: { json: unknown }) => transactionFromJson(v.json).tx) as [Transaction, Transaction];
  for (const tx of [policy, recovery]) writeAccount(s, addressBytesFromPublicKey(tx.senderPubkey), { balance: UNIT, nonce: 0n });
  const ctx: BlockContext = { network: NETWORK, height: 10, round: 10, parentHash: new Uint8Array(32), timestampMs: 5_000, proposer: new Uint8Array(20) };
  const res = await executeBlock(s, V.chain_id, ctx, [policy, recovery]);
  t.same(res.txs.map((x) => x.outcome.status), ['success', 'success']);
  t.same(res.txs[1]!.outcome.events, [{ type: 'RecoveryStarted', did: V.did, new_public_key: V.new_public_key, due_height: 110 }]);
});
