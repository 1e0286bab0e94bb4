import t, { type Test } from 'tap';
import { buildStake, buildTransfer, generateSeed, keyPairFromSeed, signAndEncode, waitForReceipt } from '../../../../../node/client/index.js';
import { sign } from '../../../../../node/crypto/ed25519.js';
import { VALIDATOR_STAKE } from '../../../../../node/cli/commands/init.js';
import { addressFromPublicKey } from '../../../../../node/protocol/address.js';
import { fromHex, toHex } from '../../../../../node/protocol/bytes.js';
import { signingBytes, transactionHash } from '../../../../../node/protocol/transaction.js';
import { NetworkStatsService } from '../../../../../plugins/wallet/chain/network-stats.js';
import { TransactionPreparer } from '../../../../../plugins/wallet/chain/prepare.js';
import { Relay } from '../../../../../plugins/wallet/chain/relay.js';
import { mountTransactions } from '../../../../../plugins/wallet/http/routes/transactions.js';
import { ERRORS_BASE, startWallet, type SignedIn, type WalletHarness } from '../../harness.js';

/** The routes as the composition root mounts them; `relayed` records the text each relay handed the mempool. */
async function start(t: Test): Promise<WalletHarness & { relayed: string[] }> {
  const relayed: string[] = [];
  const h = await startWallet(t, ({ router, base }) => {
    const submit = async (json: string) => {
      relayed.push(json);
      return base.submit(json);
    };
    mountTransactions(router, { preparer: new TransactionPreparer(base), relay: new Relay({ chainId: base.chainId, submit }), stats: new NetworkStatsService(base) });
  });
  return Object.assign(h, { relayed });
}

type Prepared = { nonce: number; signingBytes: string; unsigned: { sender_pubkey: number[]; nonce: number; payload: Record<string, unknown> } };

/** Signs prepare's signing bytes on "the device" and writes the signed object in the client's own key order and spacing. */
function signPrepared(me: SignedIn, p: Prepared, spacing = ''): { text: string; signature: Uint8Array } {
  const signature = sign(me.seed, fromHex(p.signingBytes));
  const s = spacing;
  const text =
    `{${s}"signature"${s}:${s}${JSON.stringify(Array.from(signature))},${s}"payload":${JSON.stringify(p.unsigned.payload)},` +
    `${s}"nonce":${p.unsigned.nonce},"sender_pubkey":${s}${JSON.stringify(p.unsigned.sender_pubkey)}${s}}`;
  return { text, signature };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('prepare, sign on the device, relay byte for byte: the transfer commits', async (t) => {
  const h = await start(t);
  const me = await h.signIn({ fund: 10_000_000n });
  const to = addressFromPublicKey(keyPairFromSeed(generateSeed()).publicKey);

  const noSession = await h.req('POST', '/v1/transactions/prepare', { body: { chain: 'ledger', kind: 'send', assetId: 'lgr', amount: 1, toAddress: to } });
  t.same([noSession.status, noSession.body], [401, { error: 'Unauthorized' }]);

  const prep = await h.req('POST', '/v1/transactions/prepare', { cookie: me.cookie, body: { chain: 'ledger', kind: 'send', assetId: 'lgr', amount: 1_000_000, toAddress: to } });
  t.equal(prep.status, 200, prep.text);
  t.match(prep.body, {
    chain: 'ledger',
    kind: 'send',
    assetId: 'lgr',
    amount: '1000000',
    nonce: 0,
    fee: '1000',
    chainId: h.node.chainId,
    balance: '10000000',
    sufficientBalance: true,
    unsigned: { sender_pubkey: Array.from(me.publicKey), nonce: 0, payload: { Transfer: { to, amount: 1_000_000 } } },
  });
  t.notOk('staked' in prep.body, 'a send says nothing of stake');
  const client = buildTransfer({ senderPubkey: me.publicKey, nonce: 0n, to, amount: 1_000_000n });
  t.equal(prep.body.signingBytes, toHex(signingBytes(h.node.chainId, client)), 'the bytes to sign are the protocol signing bytes the client library computes');

  // the client's own spacing and key order: the node must get exactly this text
  const { text, signature } = signPrepared(me, prep.body, ' \n\t');
  const expectedHash = transactionHash(h.node.chainId, { ...client, signature });
  const sent = await h.req('POST', '/v1/transactions/send', { cookie: me.cookie, raw: text, headers: { 'content-type': 'application/json' } });
  t.equal(sent.status, 202, sent.text);
  t.same(sent.body, { hash: expectedHash, status: 'submitted' });
  t.same(h.relayed, [text], 'the mempool received the body byte for byte');

  const receipt = await waitForReceipt(h.rpc, expectedHash, { timeoutMs: 20_000 });
  t.equal(receipt.status, 'success');
  t.equal(await h.rpc.getBalance(to), 1_000_000n, 'the recipient has the amount');
  const stored = await h.rpc.getTransaction(expectedHash);
  t.same(stored?.signature, Array.from(signature), 'the chain holds the device signature');

  const again = await h.req('POST', '/v1/transactions/send', { cookie: me.cookie, raw: text });
  t.match(again.body, { status: 409, code: 'NONCE_TOO_LOW', type: `${ERRORS_BASE}/409` }, 'a replay is a conflict');
  const next = await h.req('POST', '/v1/transactions/prepare', { cookie: me.cookie, body: { chain: 'ledger', kind: 'send', assetId: 'lgr', amount: '1', toAddress: to } });
  t.match(next.body, { nonce: 1, balance: String(10_000_000 - 1_000_000 - 1000), unsigned: { nonce: 1 } }, 'the live committed nonce and balance');

  const tooMuch = await h.req('POST', '/v1/transactions/prepare', { cookie: me.cookie, body: { chain: 'ledger', kind: 'send', assetId: 'lgr', amount: '100000000000000000000', toAddress: to } });
  t.match(tooMuch.body, { amount: '100000000000000000000', sufficientBalance: false }, 'an amount beyond 2^53 as a string; insufficiency is said, not refused');
  t.ok(tooMuch.text.includes('"amount":100000000000000000000}'), 'the unsigned payload carries it as an exact JSON integer');
  const overdraw = signPrepared(me, tooMuch.body);
  const refused = await h.req('POST', '/v1/transactions/send', { cookie: me.cookie, raw: overdraw.text });
  t.match(refused.body, { status: 409, code: 'INSUFFICIENT_BALANCE' }, 'the mempool refusal keeps its code');
});

t.test('the relay refuses what the caller did not sign, the wrong kind, malformed bodies and secrets', async (t) => {
  const h = await start(t);
  const me = await h.signIn({ fund: 1_000_000n });
  const other = await h.signIn({ fund: 1_000_000n });
  const to = other.user.address;
  const transfer = (who: SignedIn, chainId = h.node.chainId) => signAndEncode(chainId, buildTransfer({ senderPubkey: who.publicKey, nonce: 0n, to, amount: 10n }), who.seed);
  const send = (raw: string, path = '/v1/transactions/send', cookie = me.cookie) => h.req('POST', path, { cookie, raw });

  t.same((await send(transfer(me).json, '/v1/transactions/send', '')).body, { error: 'Unauthorized' }, 'no session');

  const theirs = await send(transfer(other).json);
  t.match([theirs.status, theirs.body], [403, { type: `${ERRORS_BASE}/403`, code: 'NOT_CALLERS_KEY', instance: '/v1/transactions/send' }], "another key's transaction, validly signed");

  const forged = transfer(me);
  const bad = JSON.parse(forged.json);
  bad.signature[0] ^= 1;
  t.match((await send(JSON.stringify(bad))).body, { status: 403, code: 'BAD_SIGNATURE' }, 'a signature that does not verify');
  const otherChain = signAndEncode('ledger-elsewhere-9', buildTransfer({ senderPubkey: me.publicKey, nonce: 0n, to, amount: 10n }), me.seed);
  const noChainId = JSON.parse(otherChain.json);
  delete noChainId.chain_id;
  t.match((await send(JSON.stringify(noChainId))).body, { status: 403, code: 'BAD_SIGNATURE' }, 'signed for another chain');
  t.match((await send(otherChain.json)).body, { status: 400, code: 'WRONG_CHAIN' }, 'naming another chain');

  t.match((await send(transfer(me).json, '/v1/staking/stake')).body, { status: 400, code: 'WRONG_PAYLOAD_KIND', field: 'payload' }, 'a Transfer to /staking/stake');
  const stake = signAndEncode(h.node.chainId, buildStake({ senderPubkey: me.publicKey, nonce: 0n, amount: 10n }), me.seed);
  t.match((await send(stake.json, '/v1/transactions/send')).body, { status: 400, code: 'WRONG_PAYLOAD_KIND' }, 'a Stake to /transactions/send');
  t.match((await send(stake.json, '/v1/staking/unstake')).body, { status: 400, code: 'WRONG_PAYLOAD_KIND' }, 'a Stake to /staking/unstake');

  t.match((await send('{"sender_pubkey": [1,2')).body, { status: 400, detail: /not valid JSON/ }, 'not JSON');
  t.match((await send('')).body, { status: 400 }, 'empty');
  const partial = JSON.parse(transfer(me).json);
  delete partial.signature;
  t.match((await send(JSON.stringify(partial))).body, { status: 400, code: 'MALFORMED_TRANSACTION' }, 'no signature');
  t.match((await send(JSON.stringify({ ...JSON.parse(transfer(me).json), privateKey: toHex(me.seed) }))).body, { status: 400, code: 'PRIVATE_KEY_REFUSED' }, 'a private key beside the transaction');
  const big = await send(JSON.stringify({ ...JSON.parse(transfer(me).json), pad: 'x'.repeat(17_000) }));
  t.equal(big.status, 413, 'above the protocol JSON limit');
  t.same(h.relayed, [], 'nothing refused here reached the mempool');
  const ahead = signAndEncode(h.node.chainId, buildTransfer({ senderPubkey: me.publicKey, nonce: 1000n, to, amount: 10n }), me.seed);
  const gap = await send(ahead.json);
  t.match([gap.status, gap.body], [409, { code: 'NONCE_TOO_HIGH', type: `${ERRORS_BASE}/409` }], "the mempool's nonce-gap limit is a conflict, not a 413");

  const prepare = (body: Record<string, unknown>) => h.req('POST', '/v1/transactions/prepare', { cookie: me.cookie, body: { chain: 'ledger', kind: 'send', assetId: 'lgr', amount: 10, toAddress: to, ...body } });
  const cases: Array<[string, Record<string, unknown>, RegExp | string]> = [
    ['missing toAddress', { toAddress: undefined }, 'toAddress'],
    ['empty toAddress', { toAddress: '' }, 'toAddress'],
    ['not an address', { toAddress: '0xabc' }, 'toAddress'],
    ['a fraction', { amount: 1.5 }, 'amount'],
    ['a decimal string', { amount: '1.5' }, 'amount'],
    ['negative', { amount: -5 }, 'amount'],
    ['zero', { amount: 0 }, 'amount'],
    ['no amount', { amount: undefined }, 'amount'],
    ['another asset', { assetId: 'eth' }, 'assetId'],
    ['another kind', { kind: 'swap' }, 'kind'],
    ['toAddress on a stake', { kind: 'stake' }, 'toAddress'],
    ['an unknown field', { memo: 'hi' }, 'memo'],
    ['another chain', { chain: 'eth' }, 'chain'],
  ];
  for (const [what, body, field] of cases) {
    const res = await prepare(body);
    t.match([res.status, res.body], [400, { type: `${ERRORS_BASE}/400`, field }], what);
  }
  t.match((await prepare({ chain: 'btc' })).body.detail, /prepares ledger transactions only/);
  t.match((await prepare({ privateKey: toHex(me.seed) })).body, { status: 400, code: 'PRIVATE_KEY_REFUSED' }, 'prepare refuses a private key');
  t.match((await prepare({ extra: { mnemonic: 'abandon abandon' } })).body, { status: 400, code: 'PRIVATE_KEY_REFUSED' }, 'at any depth');
});

t.test('stake and unstake commit, and network stats show them', async (t) => {
  const h = await start(t);
  const me = await h.signIn({ fund: 50_000_000n });
  const genesisValidator = (await h.rpc.getValidators())[0]!;

  const before = await h.req('GET', '/v1/staking/network-stats');
  t.equal(before.status, 200);
  t.match(before.body, { totalStaked: String(VALIDATOR_STAKE), activeValidators: 1, validators: [{ address: genesisValidator.address, staked: String(VALIDATOR_STAKE), active: true }] });
  t.equal(typeof before.body.apy.value, 'number');
  t.equal(typeof before.body.apy.sample, 'boolean');
  const query = await h.req('GET', '/v1/staking/network-stats?validator=x');
  t.match([query.status, query.body], [400, { field: 'validator' }], 'an unknown query parameter');
  t.match((await h.req('GET', '/v1/staking/network-stats?seed=abc')).body, { status: 400, code: 'PRIVATE_KEY_REFUSED' }, 'a secret in the query');

  const relayPrepared = async (kind: 'stake' | 'unstake', amount: number) => {
    const prep = await h.req('POST', '/v1/transactions/prepare', { cookie: me.cookie, body: { chain: 'ledger', kind, assetId: 'lgr', amount } });
    t.equal(prep.status, 200, prep.text);
    const { text } = signPrepared(me, prep.body);
    const res = await h.req('POST', `/v1/staking/${kind}`, { cookie: me.cookie, raw: text });
    t.equal(res.status, 202, res.text);
    const receipt = await waitForReceipt(h.rpc, res.body.hash, { timeoutMs: 20_000 });
    t.equal(receipt.status, 'success', `${kind} committed`);
    return prep.body;
  };
  const staked = await relayPrepared('stake', 20_000_000);
  t.match(staked, { unsigned: { payload: { Stake: { amount: 20_000_000 } } }, fee: '10000', sufficientBalance: true });

  const stats = async (check: (b: any) => boolean) => {
    const deadline = Date.now() + 6_000;
    for (;;) {
      const res = await h.req('GET', '/v1/staking/network-stats');
      if (check(res.body) || Date.now() > deadline) return res.body;
      await pause(250);
    }
  };
  const mine = (b: any) => b.validators.find((v: any) => v.address === me.user.address);
  const after = await stats((b) => mine(b) !== undefined);
  t.match(mine(after), { staked: '20000000', active: false, reputation: Number }, 'the staker has a validator record, in the set only from the next epoch');
  t.equal(after.totalStaked, String(VALIDATOR_STAKE + 20_000_000n));
  t.equal(after.activeValidators, 1);
  t.match(after.apy, { sample: false, basis: 'fees' }, 'fees were paid to the proposer in the window: a computed yield');
  t.ok(after.apy.value > 0, `the fee yield is positive (${after.apy.value}%)`);

  const check = await h.req('POST', '/v1/transactions/prepare', { cookie: me.cookie, body: { chain: 'ledger', kind: 'unstake', assetId: 'lgr', amount: 30_000_000 } });
  t.match(check.body, { staked: '20000000', sufficientStake: false }, 'unstaking more than the stake is said, not refused');
  const unstaked = await relayPrepared('unstake', 5_000_000);
  t.match(unstaked, { staked: '20000000', sufficientStake: true, unsigned: { payload: { Unstake: { amount: 5_000_000 } } } });
  const later = await stats((b) => mine(b)?.staked === '15000000');
  t.equal(mine(later).staked, '15000000', 'the unstaked amount left the stake');
  t.equal(later.totalStaked, String(VALIDATOR_STAKE + 15_000_000n));
});
