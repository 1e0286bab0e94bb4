import t from 'tap';
import { buildDidCreate, buildTransfer, feeFor, generateSeed, keyPairFromSeed, signAndEncode } from '../../../../node/client/index.js';
import { addressFromPublicKey } from '../../../../node/protocol/address.js';
import { didForPublicKey } from '../../../../node/protocol/did.js';
import { DEFAULT_FUND_AMOUNT } from '../../../../plugins/wallet/config.js';
import { SESSION_COOKIE } from '../../../../plugins/wallet/users/sessions.js';
import { ERRORS_BASE } from '../harness.js';
import { cookieOf, signedDidCreate, startUsers, until } from './setup.js';

t.test('a new wallet: the signed DidCreate registers at once, the sponsor funds the account, the DID reaches the chain', async (t) => {
  const h = await startUsers(t);
  const d = signedDidCreate(h);
  const did = didForPublicKey(h.parts.base.network, d.publicKey);
  const address = addressFromPublicKey(d.publicKey);
  const eth = { chain: 'eth', address: '0x52908400098527886E0F7030069857D2E4169EE7', derivation: "m/44'/60'/0'/0/0" };

  const res = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: d.json, displayName: 'Ada', handle: 'Ada.L', addresses: [eth] } });
  t.equal(res.status, 201, JSON.stringify(res.body));
  t.match(res.body, { id: /^usr_[0-9a-f]{24}$/, did, didStatus: 'funding', didTx: d.hash });
  t.match(res.headers.get('set-cookie'), new RegExp(`^${SESSION_COOKIE}=[^;]+; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Lax$`));
  const cookie = cookieOf(res);

  const me = await h.req('GET', '/v1/users/me', { cookie });
  t.equal(me.status, 200);
  t.match(me.body, {
    id: res.body.id,
    did,
    handle: 'ada.l',
    displayName: 'Ada',
    settings: { hideBalances: false, displayName: 'Ada' },
    address,
    origin: 'created',
    addresses: [{ chain: 'ledger', address, derivation: '' }, eth],
  });
  t.ok(['funding', 'submitted', 'active'].includes(me.body.didStatus));

  const active = await until('the DID to be active', async () => {
    const r = await h.req('GET', '/v1/users/me', { cookie });
    return r.body.didStatus === 'active' ? r.body : undefined;
  });
  t.equal(active.didStatusReason, null);
  const doc = await h.rpc.didResolve(did);
  t.equal(doc?.id, did, 'the DID is on chain');
  const funding = await h.u.sponsor.fundingOf(address);
  t.ok(funding, 'the sponsor funded the account');
  t.equal(funding!.amount, DEFAULT_FUND_AMOUNT.toString());
  t.equal(await h.rpc.getBalance(address), DEFAULT_FUND_AMOUNT - feeFor('DidCreate'), 'the account paid its DidCreate from the sponsor funding');
  // the chain's word comes first in /me; the worker records it on its next pass
  const record = await until('the onboarding to record it', async () => {
    const r = await h.u.onboarding.get(address);
    return r?.status === 'active' ? r : undefined;
  });
  t.match(record, { status: 'active', txHash: d.hash, txJson: d.json, fundTx: funding!.hash });

  const again = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: d.json } });
  t.equal(again.status, 409, 'the same DidCreate again: the DID is on chain');
  t.match(again.body, { type: `${ERRORS_BASE}/409`, code: 'DID_EXISTS' });

  // a second wallet registered while the first is pending: the same handle is taken
  const other = signedDidCreate(h);
  const taken = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: other.json, handle: 'ADA.l' } });
  t.same([taken.status, taken.body.code], [409, 'HANDLE_TAKEN']);
  t.equal(await h.u.onboarding.get(addressFromPublicKey(other.publicKey)), undefined, 'a refused registration starts no onboarding');
});

t.test('a DidCreate that is not right is refused with a precise 400, a taken DID with 409', async (t) => {
  const h = await startUsers(t);
  const reg = (body: unknown) => h.req('POST', '/v1/users/register', { body });
  const expect400 = async (body: unknown, detail: RegExp, why: string) => {
    const r = await reg(body);
    t.equal(r.status, 400, `${why}: ${JSON.stringify(r.body)}`);
    t.match(r.body, { type: `${ERRORS_BASE}/400`, status: 400, instance: '/v1/users/register', detail }, why);
  };
  const good = signedDidCreate(h);

  await expect400({}, /exactly one of signedDidCreate .* or did/, 'neither');
  await expect400({ signedDidCreate: good.json, did: didForPublicKey(h.parts.base.network, good.publicKey) }, /exactly one/, 'both');
  await expect400({ signedDidCreate: JSON.parse(good.json) }, /JSON text/, 'an object, not the text');
  await expect400({ signedDidCreate: '{"sender_pubkey":' }, /signedDidCreate: /, 'not JSON');
  await expect400({ signedDidCreate: good.json, proof: { challenge: 'x', signature: '00'.repeat(64) } }, /proof goes with did/, 'a proof with a DidCreate');
  await expect400({ signedDidCreate: good.json, nickname: 'x' }, /unknown field nickname/, 'an unknown field');

  const seed = generateSeed();
  const { publicKey } = keyPairFromSeed(seed);
  const transfer = signAndEncode(h.node.chainId, buildTransfer({ senderPubkey: publicKey, nonce: 0n, to: h.node.dev.address, amount: 1n }), seed);
  await expect400({ signedDidCreate: transfer.json }, /the payload is Transfer, not DidCreate/, 'another payload');

  const tampered = JSON.parse(good.json);
  tampered.signature[0] ^= 1;
  await expect400({ signedDidCreate: JSON.stringify(tampered) }, /signature does not verify/, 'a bad signature');
  const otherKey = JSON.parse(good.json);
  otherKey.sender_pubkey = Array.from(keyPairFromSeed(generateSeed()).publicKey);
  await expect400({ signedDidCreate: JSON.stringify(otherKey) }, /signature does not verify/, 'signed by another key than its sender');

  const otherChain = signAndEncode('another-chain', buildDidCreate({ senderPubkey: publicKey, nonce: 0n }), seed);
  await expect400({ signedDidCreate: otherChain.json }, /signed for chain another-chain/, 'another chain');
  const noChainId = JSON.parse(otherChain.json);
  delete noChainId.chain_id;
  await expect400({ signedDidCreate: JSON.stringify(noChainId) }, /signature does not verify .* on chain/, 'another chain without chain_id');

  await expect400({ signedDidCreate: signedDidCreate(h, { nonce: 3n }).json }, /nonce 3; the account's next nonce is 0/, 'a nonce ahead of the account');

  await expect400({ signedDidCreate: good.json, addresses: [{ chain: 'doge', address: 'D8x', derivation: '' }] }, /addresses\[0\]\.chain must be one of ledger, eth, btc/, 'an unknown chain');
  await expect400({ signedDidCreate: good.json, addresses: [{ chain: 'eth', address: '0x1234' }] }, /addresses\[0\]\.address is not a eth address/, 'a bad eth address');
  await expect400({ signedDidCreate: good.json, addresses: [{ chain: 'btc', address: 'not-bitcoin' }] }, /not a btc address/, 'a bad btc address');
  await expect400({ signedDidCreate: good.json, addresses: [{ chain: 'ledger', address: h.node.dev.address }] }, /a ledger entry must be the wallet's own account/, 'someone else\'s ledger account');
  await expect400({ signedDidCreate: good.json, addresses: [{ chain: 'btc', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', derivation: 'x/1' }] }, /derivation must be a BIP32-style path/, 'a bad derivation');
  const many = Array.from({ length: 21 }, (_, i) => ({ chain: 'eth', address: `0x${i.toString(16).padStart(40, '0')}` }));
  await expect400({ signedDidCreate: good.json, addresses: many }, /at most 20 entries/, 'too many addresses');
  await expect400({ signedDidCreate: good.json, addresses: 'x' }, /addresses must be an array/, 'addresses not an array');
  await expect400({ signedDidCreate: good.json, displayName: 'x'.repeat(65) }, /displayName is at most 64/, 'a long display name');
  await expect400({ signedDidCreate: good.json, displayName: '' }, /displayName must not be empty/, 'an empty display name');
  await expect400({ signedDidCreate: good.json, handle: '-bad-' }, /handle must be 3-32 characters/, 'a bad handle');

  const ok = await reg({ signedDidCreate: good.json, addresses: [{ chain: 'btc', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', derivation: "m/84'/0'/0'/0/0" }, { chain: 'ledger', address: addressFromPublicKey(good.publicKey), derivation: "m/44'/9000'" }] });
  t.equal(ok.status, 201, 'after all that, the good one registers');
  const me = await h.req('GET', '/v1/users/me', { cookie: cookieOf(ok) });
  t.same(me.body.addresses.map((e: { chain: string }) => e.chain), ['ledger', 'btc'], 'the ledger entry first, with the client\'s derivation');
  t.equal(me.body.addresses[0].derivation, "m/44'/9000'");

  const twice = await reg({ signedDidCreate: good.json });
  t.same([twice.status, twice.body.code], [409, 'DID_TAKEN'], 'the same wallet again while its DID is pending');

  const existing = generateSeed();
  await h.createDid(existing);
  const onChain = await reg({ signedDidCreate: signedDidCreate(h, { seed: existing, nonce: 1n }).json });
  t.same([onChain.status, onChain.body.code], [409, 'DID_EXISTS'], 'a DID already on chain');
  t.match(onChain.body.detail, /register it with \{did, proof\}/);
});
