import t, { type Test } from 'tap';
import {
  buildDidRecover,
  buildSetRecoveryPolicy,
  buildTransfer,
  buildUnstake,
  guardianSignature,
  signAndEncode,
  toHex,
  UNIT,
  waitForReceipt,
  type GuardianSignature,
  type RpcClient,
  type UnsignedTransaction,
} from '../../node/client/index.js';
import { sign } from '../../node/crypto/ed25519.js';
import { ed25519PublicKeyMultibase } from '../../node/crypto/multibase.js';
import { until } from '../fixtures/wait.js';
import { Cluster } from './cluster.js';
import { Phone } from './wallet/phone.js';

/**
 * Issue 31's "done when" for social recovery, on a 4-validator devnet whose node 0 runs the wallet
 * plugin (protocol version 2, as `ledger init` makes it). Alice names three guardians, any two of
 * whom may move her DID to a new key after a delay of DELAY blocks. Then:
 *   - a recovery she did not ask for (two guardians were fooled) is cancelled by her, within the
 *     delay, with her own key: her key, funds and session stay, and the replayed signatures fail;
 *   - a forged guardian signature is refused by the wallet and by the chain;
 *   - her phone is lost: two of three guardians approve, and after the delay the new key holds
 *     her balance, her stake and her unbonding; the old key cannot spend and the lost phone's
 *     session is refused.
 * The devnet's accounts are funded from the genesis developer key, so the wallet's sponsor is off.
 */

const DELAY = 20;
const STAKE = 50n * UNIT;
const UNSTAKE = 5n * UNIT;

// a devnet of four and a delayed recovery: more than the default 180 s on a loaded machine
t.setTimeout(600_000);

t.test('social recovery on a devnet: a cancel within the delay, a forged signature, then the lost phone recovered with its funds', async (t) => {
  const c = await Cluster.create(t, 4);
  const n0 = c.nodes[0]!;
  const wallet = await c.enablePlugin(0, 'wallet', { sponsor: { perHour: 0 } });
  // the plugin's node first; the cluster's teardown stops it with the others
  await c.start(0);
  await Promise.all([c.start(1), c.start(2), c.start(3)]);
  await c.waitForSeq([0, 1, 2, 3], 2, 60_000);

  const rpc: RpcClient = n0.client;
  const phone = () => new Phone(wallet, c.chainId, 'testnet');
  const height = () => rpc.blockNumber();
  const receipt = (hash: string) => waitForReceipt(rpc, hash, { timeoutMs: 30_000, intervalMs: 50 });
  const committed = async (t: Test, hash: string) => {
    const r = await receipt(hash);
    t.equal(r.status, 'success', `transaction ${hash} succeeded`);
    return r;
  };
  const send = async (unsigned: UnsignedTransaction, seed: Uint8Array) => {
    const s = signAndEncode(c.chainId, unsigned, seed);
    await rpc.sendTransaction(s.json);
    return s.hash;
  };
  let devNonce = 0n;
  const fund = (address: string, amount: bigint) => send(buildTransfer({ senderPubkey: c.dev.publicKey, nonce: devNonce++, to: address, amount }), c.dev.seed);

  const alice = phone();
  const guardians = [phone(), phone(), phone()];
  const [g1, g2, g3] = guardians as [Phone, Phone, Phone];
  const resolve = (did: string) => rpc.call<{ verificationMethod: Array<{ publicKeyMultibase: string }>; version_id: string }>('ledger_didResolve', [did]);
  const keyOf = async (did: string) => (await resolve(did)).verificationMethod.map((m) => m.publicKeyMultibase);

  await t.test('four users funded from the genesis account, registered with the wallet, Alice stakes and starts unbonding', async (t) => {
    for (const h of await Promise.all([fund(alice.address, 1000n * UNIT), ...guardians.map((g) => fund(g.address, 10n * UNIT))])) await committed(t, h);
    for (const p of [alice, ...guardians]) {
      const reg = await p.call('POST', '/v1/users/register', { signedDidCreate: p.didCreate().json });
      t.equal(reg.status, 201, JSON.stringify(reg.body));
    }
    for (const p of [alice, ...guardians]) await until(`${p.did} active`, async () => (await p.call('GET', '/v1/users/me')).body.didStatus === 'active', 30_000);

    const stakePrep = await alice.call('POST', '/v1/transactions/prepare', { chain: 'ledger', kind: 'stake', assetId: 'lgr', amount: Number(STAKE) });
    t.equal(stakePrep.status, 200, JSON.stringify(stakePrep.body));
    const staked = await alice.call('POST', '/v1/staking/stake', alice.signPrepared(stakePrep.body));
    t.equal(staked.status, 202, JSON.stringify(staked.body));
    await committed(t, staked.body.hash);
    await committed(t, await send(buildUnstake({ senderPubkey: alice.publicKey, nonce: await rpc.getNonce(alice.address), amount: UNSTAKE }), alice.seed));
    t.match(await rpc.getValidatorStake(alice.address), { staked: STAKE - UNSTAKE, unbonding: UNSTAKE });
  });

  await t.test(`a policy of three guardians, two to recover, after ${DELAY} blocks`, async (t) => {
    for (const g of guardians) {
      const invite = await alice.call('POST', '/v1/guardian/invite', { guardianDid: g.did });
      t.equal(invite.status, 201);
      t.equal((await g.call('POST', '/v1/guardian/confirm', { token: invite.body.token })).status, 200);
    }
    await setPolicy(t, alice);
    t.match(await rpc.call('ledger_getRecoveryPolicy', [alice.did]), { threshold: 2, delay_blocks: DELAY });
  });

  /** the policy the test keeps (sending it again during a delay is the owner's cancel) */
  async function setPolicy(t: Test, owner: Phone) {
    const prep = (await owner.call('GET', '/v1/guardian/recovery-prep')).body;
    const policy = owner.sign(buildSetRecoveryPolicy({ senderPubkey: owner.publicKey, nonce: BigInt(prep.nonce), did: owner.did, guardians: guardians.map((g) => g.did), threshold: 2, delayBlocks: DELAY }));
    const relayed = await owner.call('POST', '/v1/guardian/policy', undefined, policy.json);
    t.equal(relayed.body?.hash, policy.hash, JSON.stringify(relayed.body));
    return committed(t, policy.hash);
  }

  /** a new phone asks, the given guardians approve through the wallet; the signatures as DidRecover carries them */
  async function approvedRequest(t: Test, newPhone: Phone, approvers: Phone[]) {
    const initiated = await newPhone.initiateRecovery(alice.did);
    t.equal(initiated.status, 201, JSON.stringify(initiated.body));
    const { requestId, recoveryMessage } = initiated.body;
    const approvals: GuardianSignature[] = [];
    for (const g of approvers) {
      const signature = toHex(sign(g.seed, Buffer.from(recoveryMessage, 'hex')));
      const approved = await g.call('POST', `/v1/guardian/recovery/${requestId}/approve`, { signature });
      t.equal(approved.status, 200, JSON.stringify(approved.body));
      approvals.push({ guardian: g.did, signature });
    }
    return { requestId: requestId as string, approvals };
  }

  /** the DidRecover, paid by `payer`, relayed through the wallet's finalize */
  async function finalize(t: Test, newPhone: Phone, requestId: string, payer: Phone, approvals: GuardianSignature[]) {
    const recover = payer.sign(buildDidRecover({ senderPubkey: payer.publicKey, nonce: await rpc.getNonce(payer.address), did: alice.did, newPublicKey: newPhone.publicKey, signatures: approvals }));
    const finalized = await newPhone.call('POST', `/v1/guardian/recovery/${requestId}/finalize`, undefined, recover.json);
    t.match(finalized.body, { requestId, hash: recover.hash, status: 'submitted' });
    const r = await committed(t, recover.hash);
    return { recover, height: r.block_height as number };
  }

  await t.test('a recovery the owner did not ask for is cancelled within the delay with her own key', async (t) => {
    const balance = await rpc.getBalance(alice.address);
    const intruder = phone();
    const { requestId, approvals } = await approvedRequest(t, intruder, [g1, g2]);
    const { recover, height: startedAt } = await finalize(t, intruder, requestId, g1, approvals);
    const pending = await until('the wallet to see the pending recovery', async () => {
      const s = (await intruder.call('GET', `/v1/guardian/recovery/${requestId}`)).body;
      return s.status === 'pending' && s;
    });
    t.equal(pending.dueHeight, startedAt + DELAY, 'due after the policy\'s delay');
    t.match(await rpc.call('ledger_getRecoveryPolicy', [alice.did]), { pending: { due_height: startedAt + DELAY } });

    // Alice still holds her phone: sending the policy again cancels the recovery
    const cancel = await setPolicy(t, alice);
    t.ok(cancel.block_height < startedAt + DELAY, `cancelled at height ${cancel.block_height}, before the due height ${startedAt + DELAY}`);
    t.ok(cancel.events.some((e: any) => e.type === 'RecoveryCancelled'), 'the receipt says RecoveryCancelled');
    await until(`height ${startedAt + DELAY + 1}`, async () => (await height()) > startedAt + DELAY, 60_000);

    t.same(await keyOf(alice.did), [ed25519PublicKeyMultibase(alice.publicKey)], 'the DID keeps Alice\'s key after the due height');
    t.ok((await rpc.getBalance(alice.address)) >= balance - UNIT, 'her balance stays with her key');
    t.equal(await rpc.getBalance(intruder.address), 0n, 'the intruder\'s key got nothing');
    t.match(await rpc.getValidatorStake(alice.address), { staked: STAKE - UNSTAKE, unbonding: UNSTAKE });
    t.equal((await alice.call('GET', '/v1/users/me')).status, 200, 'her wallet session stays valid');
    t.match((await intruder.call('GET', `/v1/guardian/recovery/${requestId}`)).body, { status: 'failed', reason: /cancelled by the owner/ });

    // the same guardians' signatures, sent again, no longer verify: the cancel moved the DID's version
    const replay = g2.sign(buildDidRecover({ senderPubkey: g2.publicKey, nonce: await rpc.getNonce(g2.address), did: alice.did, newPublicKey: intruder.publicKey, signatures: approvals }));
    t.not(replay.hash, recover.hash);
    await rpc.sendTransaction(replay.json);
    t.match((await receipt(replay.hash)).status, /does not verify/, 'a replay of the cancelled recovery fails on chain');
  });

  await t.test('a forged guardian signature is refused by the wallet and by the chain', async (t) => {
    const mallory = phone();
    const initiated = await mallory.initiateRecovery(alice.did);
    t.equal(initiated.status, 201, JSON.stringify(initiated.body));
    const { requestId, recoveryMessage } = initiated.body;
    const message = Buffer.from(recoveryMessage, 'hex');
    const genuine = { guardian: g1.did, signature: toHex(sign(g1.seed, message)) };
    const forged = { guardian: g2.did, signature: toHex(sign(mallory.seed, message)) };

    // g2's session posting a signature made by another key
    const byWallet = await g2.call('POST', `/v1/guardian/recovery/${requestId}/approve`, { signature: forged.signature });
    t.equal(byWallet.status, 400);
    t.match(byWallet.body, { code: 'BAD_RECOVERY_SIGNATURE' });
    // mallory, not a guardian, approving with her own key
    t.equal((await mallory.call('POST', '/v1/users/register', { signedDidCreate: mallory.didCreate().json })).status, 201);
    t.match((await mallory.call('POST', `/v1/guardian/recovery/${requestId}/approve`, { signature: forged.signature })).body, { code: 'NOT_A_GUARDIAN' });

    // finalize checks every signature the DidRecover carries
    const viaWallet = g1.sign(buildDidRecover({ senderPubkey: g1.publicKey, nonce: await rpc.getNonce(g1.address), did: alice.did, newPublicKey: mallory.publicKey, signatures: [genuine, forged] }));
    const refused = await mallory.call('POST', `/v1/guardian/recovery/${requestId}/finalize`, undefined, viaWallet.json);
    t.equal(refused.status, 400, JSON.stringify(refused.body));
    // straight to the chain, past the wallet: the block refuses it
    await rpc.sendTransaction(viaWallet.json);
    t.match((await receipt(viaWallet.hash)).status, new RegExp(`the signature of guardian ${g2.did} does not verify`));
    // a signature over the right message but for another chain's id does not count either
    const versionId = Number((await resolve(alice.did)).version_id);
    const otherChain = guardianSignature({ chainId: 'ledger-other-1', did: alice.did, newPublicKey: mallory.publicKey, versionId, guardianSeed: g2.seed });
    const crossChain = g1.sign(buildDidRecover({ senderPubkey: g1.publicKey, nonce: await rpc.getNonce(g1.address), did: alice.did, newPublicKey: mallory.publicKey, signatures: [genuine, { guardian: g2.did, signature: otherChain }] }));
    await rpc.sendTransaction(crossChain.json);
    t.match((await receipt(crossChain.hash)).status, new RegExp(`the signature of guardian ${g2.did} does not verify`), 'a signature made for another chain is refused');
    t.same(await keyOf(alice.did), [ed25519PublicKeyMultibase(alice.publicKey)], 'the DID keeps Alice\'s key');
    t.equal((await alice.call('GET', '/v1/users/me')).status, 200);
  });

  await t.test('the phone is lost: two of three guardians approve, and after the delay the new key holds the balance and the stake', async (t) => {
    const balance = await rpc.getBalance(alice.address);
    const stake = await rpc.getValidatorStake(alice.address);
    t.match(stake, { staked: STAKE - UNSTAKE, unbonding: UNSTAKE });
    const newPhone = phone();
    const { requestId, approvals } = await approvedRequest(t, newPhone, [g2, g3]);
    t.match((await newPhone.call('GET', `/v1/guardian/recovery/${requestId}`)).body, { status: 'ready' });
    const { height: startedAt } = await finalize(t, newPhone, requestId, g3, approvals);
    const due = startedAt + DELAY;

    // during the delay nothing has moved yet
    t.equal(await rpc.getBalance(alice.address), balance, 'before the due height the old key still holds the balance');
    t.equal(await rpc.getBalance(newPhone.address), 0n);

    await until(`the due height ${due}`, async () => (await height()) >= due, 90_000);
    const done = await until('the wallet to see the recovery completed', async () => {
      const s = (await newPhone.call('GET', `/v1/guardian/recovery/${requestId}`)).body;
      return s.status === 'completed' && s;
    }, 20_000);
    t.match(done, { status: 'completed' });
    t.same(await keyOf(alice.did), [ed25519PublicKeyMultibase(newPhone.publicKey)], 'the DID\'s key is the new phone\'s');

    t.equal(await rpc.getBalance(newPhone.address), balance, 'the new key holds the old balance');
    t.match(await rpc.getValidatorStake(newPhone.address), { staked: STAKE - UNSTAKE, unbonding: UNSTAKE }, 'and the stake and the unbonding amount');
    t.equal(await rpc.getBalance(alice.address), 0n, 'the old key holds nothing');
    t.match(await rpc.getValidatorStake(alice.address), { staked: 0n, unbonding: 0n });
    // every node agrees
    for (const n of c.nodes.slice(1)) {
      await c.waitFor(async () => (await n.client.getBalance(newPhone.address)) === balance, 30_000, `node ${n.index} to see the recovered balance`);
    }

    // the old key can no longer spend: not even the fee
    const theft = signAndEncode(c.chainId, buildTransfer({ senderPubkey: alice.publicKey, nonce: await rpc.getNonce(alice.address), to: g1.address, amount: UNIT }), alice.seed);
    await t.rejects(rpc.sendTransaction(theft.json), /balance 0 of \S+ cannot cover this transaction/, 'the old key\'s transfer is refused');
    const unstake = signAndEncode(c.chainId, buildUnstake({ senderPubkey: alice.publicKey, nonce: await rpc.getNonce(alice.address), amount: UNIT }), alice.seed);
    await t.rejects(rpc.sendTransaction(unstake.json), /cannot cover/, 'and so is its unstake');

    // the lost phone's wallet session is refused
    const lost = await until('the wallet to end the lost phone\'s session', async () => {
      const answer = await alice.call('GET', '/v1/users/me');
      return answer.status === 401 && answer;
    }, 20_000);
    t.match(lost.body, { code: 'KEY_REPLACED_BY_RECOVERY' });

    // the new phone signs in with the DID's new key and sees the funds
    const challenge = (await newPhone.call('GET', `/v1/users/challenge?did=${encodeURIComponent(alice.did)}`)).body.challenge;
    const signIn = await newPhone.call('POST', '/v1/users/register', { did: alice.did, proof: { challenge, signature: newPhone.signText(challenge) } });
    t.equal(signIn.status, 200, JSON.stringify(signIn.body));
    const assets = await until('the portfolio of the new key', async () => {
      const a = (await newPhone.call('GET', '/v1/portfolio/assets')).body.assets?.find((x: any) => x.chain === 'ledger' && x.address === newPhone.address);
      return a?.balance === String(balance) && a;
    }, 20_000);
    t.match(assets, { balance: String(balance), staked: String(STAKE - UNSTAKE) });
    // and spends them
    const prepared = await newPhone.call('POST', '/v1/transactions/prepare', { chain: 'ledger', kind: 'send', assetId: 'lgr', amount: Number(UNIT), toAddress: g1.address });
    t.equal(prepared.status, 200, JSON.stringify(prepared.body));
    const sent = await newPhone.call('POST', '/v1/transactions/send', newPhone.signPrepared(prepared.body));
    t.equal(sent.status, 202, JSON.stringify(sent.body));
    await committed(t, sent.body.hash);
  });
});
