import t from 'tap';
import { buildTransfer, feeFor, signAndEncode, waitForReceipt } from '../../../../node/client/index.js';
import { addressFromPublicKey } from '../../../../node/protocol/address.js';
import { Onboarding } from '../../../../plugins/wallet/users/onboarding.js';
import { Sponsor } from '../../../../plugins/wallet/users/sponsor.js';
import { cookieOf, signedDidCreate, startUsers, until } from './setup.js';

t.test('the onboarding worker survives a restart: stopped after funding, a new worker on the same store submits the DidCreate', async (t) => {
  const h = await startUsers(t, { worker: false });
  const d = signedDidCreate(h);
  const address = addressFromPublicKey(d.publicKey);
  const res = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: d.json } });
  t.equal(res.status, 201);
  t.equal(res.body.didStatus, 'funding');

  const first = h.u.onboarding;
  await first.start();
  await first.stop();
  const funded = await first.get(address);
  t.match(funded, { status: 'funding', fundTx: /^[0-9a-f]{64}$/, reason: null }, 'the first pass sent the funding, then the worker stopped');
  await until('the funding to commit', async () => (await h.parts.base.chain.receipt(funded!.fundTx!)) !== undefined);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(await h.parts.base.chain.receipt(d.hash), undefined, 'nothing submitted the DidCreate while the worker was stopped');
  t.equal((await first.get(address))!.status, 'funding');

  const sponsor = await Sponsor.create(h.parts.base, h.parts.ctx);
  t.equal(sponsor.address, h.u.sponsor.address, 'the restarted sponsor has the same stored key');
  const second = new Onboarding(h.parts.base, sponsor, { pollMs: 50 });
  t.teardown(() => second.stop());
  await second.start();
  const done = await until('the DID to be created', async () => {
    const r = await second.get(address);
    return r?.status === 'active' ? r : undefined;
  });
  t.equal(done.fundTx, funded!.fundTx, 'the account was funded once');
  t.equal((await h.parts.base.chain.receipt(d.hash))?.status, 'success');
  t.equal(await h.rpc.getBalance(address), h.parts.base.config.sponsor.fundAmount - feeFor('DidCreate'));
  const me = await h.req('GET', '/v1/users/me', { cookie: cookieOf(res) });
  t.equal(me.body.didStatus, 'active');
  const again = await sponsor.fund(address, 'again');
  t.match(again, { ok: false, code: 'ALREADY_FUNDED' }, 'never a second funding for one address');
});

t.test('the sponsor keeps to its hourly allowance; an account funded otherwise gets its DidCreate submitted directly', async (t) => {
  const h = await startUsers(t, { config: { sponsor: { perHour: 1 } } });
  const a = signedDidCreate(h);
  const b = signedDidCreate(h);
  const ra = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: a.json } });
  t.equal(ra.status, 201);
  await until('the first funding', async () => (await h.u.onboarding.get(addressFromPublicKey(a.publicKey)))?.fundTx);
  const rb = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: b.json } });
  t.equal(rb.status, 201);
  const bAddress = addressFromPublicKey(b.publicKey);
  const refused = await until('the refusal', async () => {
    const r = await h.req('GET', '/v1/users/me', { cookie: cookieOf(rb) });
    return r.body.didStatusReason ? r.body : undefined;
  });
  t.equal(refused.didStatus, 'funding');
  t.match(refused.didStatusReason, /allowance of 1 fundings an hour is used up.*waits until the account can pay its fee of 100000 units/);
  t.equal(await h.u.sponsor.fundingOf(bAddress), undefined);
  t.match(await h.u.sponsor.status(), { fundedLastHour: 1, perHour: 1, address: h.u.sponsor.address });

  await until('the first DID', async () => (await h.u.onboarding.get(addressFromPublicKey(a.publicKey)))?.status === 'active');
  await h.fund(bAddress, 5_000_000n);
  const done = await until('the second DID', async () => {
    const r = await h.u.onboarding.get(bAddress);
    return r?.status === 'active' ? r : undefined;
  });
  t.equal(done.fundTx, null, 'the sponsor never funded it');
  t.equal(await h.rpc.getBalance(bAddress), 5_000_000n - feeFor('DidCreate'));

  // a wallet whose account is funded before it registers: no funding at all
  const c = signedDidCreate(h);
  const cAddress = addressFromPublicKey(c.publicKey);
  await h.fund(cAddress, 1_000_000n);
  t.equal((await h.req('POST', '/v1/users/register', { body: { signedDidCreate: c.json } })).status, 201);
  await until('the third DID', async () => (await h.u.onboarding.get(cAddress))?.status === 'active');
  t.equal(await h.u.sponsor.fundingOf(cAddress), undefined);
});

t.test('a DidCreate whose nonce the account spent fails with the reason; a new one for the same key registers again', async (t) => {
  const h = await startUsers(t, { worker: false });
  const d = signedDidCreate(h);
  const address = addressFromPublicKey(d.publicKey);
  const res = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: d.json, handle: 'keeper' } });
  t.equal(res.status, 201);
  await h.fund(address, 1_000_000n);
  const spend = signAndEncode(h.node.chainId, buildTransfer({ senderPubkey: d.publicKey, nonce: 0n, to: h.node.dev.address, amount: 1n }), d.seed);
  await h.rpc.sendTransaction(spend.json);
  await waitForReceipt(h.rpc, spend.hash, { timeoutMs: 20_000 });
  await h.u.onboarding.step();
  const me = await h.req('GET', '/v1/users/me', { cookie: cookieOf(res) });
  t.equal(me.body.didStatus, 'failed');
  t.match(me.body.didStatusReason, /used nonce 0 for another transaction; sign a new DidCreate with nonce 1/);

  const stale = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: d.json } });
  t.same([stale.status, stale.body.code], [400, 'BAD_NONCE'], 'the old DidCreate: its nonce is gone');
  const retry = signedDidCreate(h, { seed: d.seed, nonce: 1n });
  const again = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: retry.json } });
  t.equal(again.status, 201);
  t.equal(again.body.id, res.body.id, 'the same user, its onboarding restarted');
  t.equal(again.body.didTx, retry.hash);
  await h.u.onboarding.start();
  await until('the DID', async () => (await h.u.onboarding.get(address))?.status === 'active');
  const after = await h.req('GET', '/v1/users/me', { cookie: cookieOf(again) });
  t.match(after.body, { didStatus: 'active', handle: 'keeper', didTx: retry.hash });
});
