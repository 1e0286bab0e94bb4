import t, { type Test } from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildDidRecover, buildSetRecoveryPolicy, RpcClient, toHex, waitForReceipt } from '../../node/client/index.js';
import { sign } from '../../node/crypto/ed25519.js';
import { ed25519PublicKeyMultibase } from '../../node/crypto/multibase.js';
import { freePortRange } from '../../node/devnet/ports.js';
import { KycClient } from '../../bench/lib/kyc/client.js';
import { testJpeg } from '../../bench/lib/kyc/images.js';
import { runCli, startNodeProcess, tempDataDir } from './harness.js';
import { Phone } from './wallet/phone.js';
import { until } from '../fixtures/wait.js';

/**
 * The wallet backend's "done when" (issue 14) on a real node process with the KYC and wallet
 * plugins, as `npm start` runs them: phones register by signing a DidCreate, see their live
 * balance, prepare, sign and send, stake, keep an address book, redeem a KYC credential through
 * OpenID4VCI, name guardians, and after losing the phone get the DID moved to a new key by their
 * guardians' signatures on chain. Every key stays on the phone: the test checks that no request
 * body carried one.
 */

const INTERNAL_SECRET = 'wallet-internal-secret-0123456789';

/** OpenID4VCI redeem through the wallet: the backend prepares the proof JWT, the phone signs it. */
async function redeem(t: Test, p: Phone, offer: string): Promise<void> {
  const first = await p.call('POST', '/v1/oid4vci/redeem', { credentialOffer: offer });
  t.equal(first.status, 200);
  t.match(first.body, { status: 'proof_required', alg: 'EdDSA', kid: new RegExp(`^${p.did}#`) });
  const proofSignature = Buffer.from(sign(p.seed, Buffer.from(first.body.signingInput, 'ascii'))).toString('base64url');
  const done = await p.call('POST', '/v1/oid4vci/redeem', { redeemId: first.body.redeemId, proofSignature });
  t.equal(done.status, 201, JSON.stringify(done.body));
}

t.test('a wallet from registration to guardian recovery on a real node', async (t) => {
  const dir = await tempDataDir(t);
  const init = await runCli(['init', '--data-dir', dir]);
  t.equal(init.code, 0, init.stderr);
  const kycPort = await freePortRange(2);
  const walletPort = kycPort + 1;
  await writeFile(join(dir, 'config.json'), JSON.stringify({
    plugins: {
      kyc: { enabled: true, operatorToken: 'op_e2e_0123456789abcdefghijklmnop' },
      wallet: { enabled: true, kycUrl: `http://127.0.0.1:${kycPort}`, internalSecret: INTERNAL_SECRET, sponsor: { fundAmount: 100_000_000 } },
    },
  }));
  const node = await startNodeProcess(t, dir, { plugins: { kyc: kycPort, wallet: walletPort }, logLevel: 'warn' });
  t.teardown(() => node.stop());
  const wallet = node.plugins.wallet!;
  t.equal(wallet, `http://127.0.0.1:${walletPort}`);
  const rpc = new RpcClient(node.url);
  const chainId = (await rpc.chainInfo()).chain_id;
  const phone = (seed?: Uint8Array) => new Phone(wallet, chainId, 'testnet', seed);
  const alice = phone();
  const bob = phone();
  const carol = phone();
  const committed = async (hash: string) => {
    const receipt = await waitForReceipt(rpc, hash, { timeoutMs: 30_000, intervalMs: 50 });
    t.equal(receipt.status, 'success', `transaction ${hash} succeeded`);
  };

  await t.test('register: a signed DidCreate, an HttpOnly session cookie, the sponsor funds the account and the DID goes on chain', async (t) => {
    const answers = await Promise.all(
      [alice, bob, carol].map((p, i) => p.call('POST', '/v1/users/register', { signedDidCreate: p.didCreate().json, displayName: ['Alice', 'Bob', 'Carol'][i], handle: ['alice', 'bob', 'carol'][i] })),
    );
    for (const [i, p] of [alice, bob, carol].entries()) {
      t.equal(answers[i]!.status, 201);
      t.match(answers[i]!.body, { id: /^usr_[0-9a-f]{24}$/, did: p.did });
      t.match(answers[i]!.headers.get('set-cookie'), /^ledger_wallet_session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    }
    for (const p of [alice, bob, carol]) {
      await until(`${p.did} active`, async () => (await p.call('GET', '/v1/users/me')).body.didStatus === 'active');
      t.match(await rpc.call('ledger_didResolve', [p.did]), { id: p.did });
    }
    const me = await alice.call('GET', '/v1/users/me');
    t.match(me.body, { did: alice.did, handle: 'alice', displayName: 'Alice', settings: { hideBalances: false }, address: alice.address });
    t.same((await alice.call('GET', '/v1/users/me', undefined)).status, 200);
    const anonymous = await fetch(`${wallet}/v1/users/me`);
    t.same([anonymous.status, await anonymous.json()], [401, { error: 'Unauthorized' }]);
    t.match((await alice.call('GET', '/v1/directory/resolve?handle=bob')).body, { did: bob.did, address: bob.address });
  });

  await t.test('portfolio, prepare, sign on the phone, relay unchanged, history, stake, address book', async (t) => {
    const portfolio = await alice.call('GET', '/v1/portfolio/assets');
    t.equal(portfolio.status, 200);
    const ledger = portfolio.body.assets.find((a: any) => a.chain === 'ledger' && a.address === alice.address);
    t.match(ledger, { assetId: 'lgr', balance: String(100_000_000 - 100_000), decimals: 8, usd: null });

    const prepared = await alice.call('POST', '/v1/transactions/prepare', { chain: 'ledger', kind: 'send', assetId: 'lgr', amount: 5_000_000, toAddress: bob.address });
    t.equal(prepared.status, 200);
    t.equal(prepared.body.nonce, 1, 'the live nonce after the DidCreate');
    const signed = alice.signPrepared(prepared.body);
    const sent = await alice.call('POST', '/v1/transactions/send', signed);
    t.equal(sent.status, 202);
    await committed(sent.body.hash);
    const history = await until('the send in the history', async () => {
      const h = await alice.call('GET', '/v1/transactions?type=send');
      return h.body.items.length > 0 && h.body;
    });
    t.match(history.items[0], { hash: sent.body.hash, type: 'send', amount: '5000000', counterparty: bob.address, status: 'success' });
    const received = await until('the receive in bob\'s history', async () => (await bob.call('GET', '/v1/transactions?type=receive')).body.items[0]);
    t.match(received, { hash: sent.body.hash, type: 'receive', direction: 'in' });

    const forged = alice.signPrepared({ ...prepared.body, signingBytes: prepared.body.signingBytes.replace(/^../, 'ff') });
    t.equal((await alice.call('POST', '/v1/transactions/send', forged)).status, 403, 'a signature over other bytes is refused');
    t.equal((await bob.call('POST', '/v1/transactions/send', signed)).status, 403, 'another user\'s transaction is refused');

    const stakePrep = await alice.call('POST', '/v1/transactions/prepare', { chain: 'ledger', kind: 'stake', assetId: 'lgr', amount: 10_000_000 });
    const staked = await alice.call('POST', '/v1/staking/stake', alice.signPrepared(stakePrep.body));
    t.equal(staked.status, 202);
    await committed(staked.body.hash);
    const stats = await until('the stake in network stats', async () => {
      const s = (await fetch(`${wallet}/v1/staking/network-stats`).then((r) => r.json())) as any;
      return s.validators.some((v: any) => v.address === alice.address) && s;
    }, 10_000);
    t.match(stats.validators.find((v: any) => v.address === alice.address), { staked: '10000000' });
    t.type(stats.apy.sample, 'boolean');
    const after = (await alice.call('GET', '/v1/portfolio/assets')).body.assets.find((a: any) => a.chain === 'ledger' && a.address === alice.address);
    t.match(after, { staked: '10000000' });

    const entry = await alice.call('POST', '/v1/address-book', { name: 'Bob', did: bob.did, addresses: [{ chain: 'ledger', address: bob.address }] });
    t.equal(entry.status, 201);
    t.match((await alice.call('GET', '/v1/address-book')).body, [{ name: 'Bob', did: bob.did }]);
    t.equal((await alice.call('DELETE', `/v1/address-book/${entry.body.id}`)).status, 204);
  });

  await t.test('a KYC credential redeemed through OpenID4VCI and cached with its chain status', async (t) => {
    t.same((await alice.call('GET', '/v1/credentials')).body, [], 'an empty cache is []');
    const kyc = new KycClient(node.plugins.kyc!);
    await kyc.register('org@example.org', 'a passphrase of some length', 'Org');
    await kyc.createKey('sandbox');
    const { session } = await kyc.createSession({ level: 1, sandbox: true, sandboxOutcome: 'pass', subjectDid: alice.did });
    await kyc.uploadDocument(session.id, testJpeg(800, 500, 7), { type: 'passport', side: 'front', final: true });
    const done = await until('the credential offer', async () => {
      const s = (await kyc.getSession(session.id)).session;
      return s.credentialOfferUri && s;
    }, 60_000);
    await redeem(t, alice, done.credentialOfferUri);
    const list = await alice.call('GET', '/v1/credentials');
    t.equal(list.body.length, 1);
    t.match(list.body[0], { id: done.credentialId, issuer: /^did:ledger:testnet:/, subjectDid: alice.did, status: { valid: true, revoked: false } });
  });

  await t.test('guardians named, a policy on chain, the phone lost, the guardians move the DID to a new key', async (t) => {
    const byDid = await alice.call('POST', '/v1/guardian/invite', { guardianDid: bob.did, guardianName: 'Bob' });
    t.equal(byDid.status, 201);
    const byEmail = await alice.call('POST', '/v1/guardian/invite', { guardianEmail: 'carol@example.org', guardianName: 'Carol' });
    t.equal(byEmail.status, 201);
    t.match((await bob.call('GET', '/v1/guardian/pending-invites')).body, [{ ownerDid: alice.did }]);
    t.equal((await bob.call('POST', '/v1/guardian/confirm', { token: byDid.body.token })).status, 200);
    t.equal((await carol.call('POST', '/v1/guardian/confirm', { token: byEmail.body.token })).status, 200);
    const mine = (await alice.call('GET', '/v1/guardian/my-guardians')).body;
    t.same(mine.map((g: any) => [g.guardianDid, g.status]).sort(), [[bob.did, 'active'], [carol.did, 'active']].sort());

    const prep = (await alice.call('GET', '/v1/guardian/recovery-prep')).body;
    t.match(prep, { did: alice.did });
    const policy = alice.sign(buildSetRecoveryPolicy({ senderPubkey: alice.publicKey, nonce: BigInt(prep.nonce), did: alice.did, guardians: [bob.did, carol.did], threshold: 2 }));
    const relayed = await alice.call('POST', '/v1/guardian/policy', undefined, policy.json);
    t.equal(relayed.body.hash, policy.hash, 'relayed byte for byte: the hash is the phone\'s');
    await committed(policy.hash);

    // the phone is lost: a new phone has a new key and no session
    const newPhone = phone();
    const initiated = await newPhone.initiateRecovery(alice.did);
    t.equal(initiated.status, 201);
    const { requestId, recoveryMessage } = initiated.body;
    t.match(requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    t.match((await bob.call('GET', '/v1/guardian/pending-requests')).body, [{ requestId }]);
    const approvals = [];
    for (const g of [bob, carol]) {
      const signature = toHex(sign(g.seed, Buffer.from(recoveryMessage, 'hex')));
      t.equal((await g.call('POST', `/v1/guardian/recovery/${requestId}/approve`, { signature })).status, 200);
      approvals.push({ guardian: g.did, signature });
    }
    const status = await newPhone.call('GET', `/v1/guardian/recovery/${requestId}`);
    t.match(status.body, { requestId, subjectDid: alice.did, status: 'ready', approvals: [{ guardianDid: bob.did }, { guardianDid: carol.did }] });

    // a guardian pays for the DidRecover; the wallet relays it without a session
    const bobNonce = await rpc.getNonce(bob.address);
    const recover = bob.sign(buildDidRecover({ senderPubkey: bob.publicKey, nonce: bobNonce, did: alice.did, newPublicKey: newPhone.publicKey, signatures: approvals }));
    const finalized = await newPhone.call('POST', `/v1/guardian/recovery/${requestId}/finalize`, undefined, recover.json);
    t.match(finalized.body, { requestId, hash: recover.hash, status: 'submitted' });
    await committed(recover.hash);
    t.match((await newPhone.call('GET', `/v1/guardian/recovery/${requestId}`)).body, { status: 'completed' });
    const doc = (await rpc.call('ledger_didResolve', [alice.did])) as any;
    const keys = doc.verificationMethod.map((m: any) => m.publicKeyMultibase);
    t.same(keys, [ed25519PublicKeyMultibase(newPhone.publicKey)], 'the DID document on chain ends with the new key');
    const lost = await until('the wallet to end the lost phone\'s session', async () => {
      const answer = await alice.call('GET', '/v1/users/me');
      return answer.status === 401 && answer;
    }, 20_000);
    t.match(lost.body, { error: 'Unauthorized', code: 'KEY_REPLACED_BY_RECOVERY' }, 'the lost phone\'s session ends as soon as the wallet sees the recovery');

    // the old key can no longer act for the DID: `ledger init` makes a protocol version 2 chain, where the recovery also took its funds, so it cannot even pay the fee
    const oldNonce = await rpc.getNonce(alice.address);
    t.equal(await rpc.getBalance(alice.address), 0n, 'the recovery moved the old key\'s balance to the new key');
    const stolen = alice.sign(buildSetRecoveryPolicy({ senderPubkey: alice.publicKey, nonce: oldNonce, did: alice.did, guardians: [bob.did], threshold: 1 }));
    await t.rejects(rpc.sendTransaction(stolen.json), /balance 0 of \S+ cannot cover this transaction/, 'the old key is refused');

    // the new phone signs in by proving the DID's new key; the lost phone's session ends
    const challenge = (await newPhone.call('GET', `/v1/users/challenge?did=${encodeURIComponent(alice.did)}`)).body.challenge;
    const signIn = await newPhone.call('POST', '/v1/users/register', { did: alice.did, proof: { challenge, signature: newPhone.signText(challenge) } });
    t.equal(signIn.status, 200);
    t.match((await newPhone.call('GET', '/v1/users/me')).body, { did: alice.did, publicKey: toHex(newPhone.publicKey), address: newPhone.address });
    t.equal((await alice.call('GET', '/v1/users/me')).status, 401, 'the lost phone is signed out');
  });

  await t.test('no request carried a private key, and one that tries is refused', async (t) => {
    const refused = await bob.call('POST', '/v1/transactions/send', { mnemonic: 'abandon abandon abandon' });
    t.equal(refused.status, 400);
    t.match(refused.body, { type: 'https://ledger.dev/problems/wallet/400', status: 400 });
    for (const p of [alice, bob, carol]) {
      const secret = toHex(p.seed);
      t.notOk(p.sent.some((body) => body.includes(secret)), 'no body holds the seed');
    }
  });
});
