import t from 'tap';
import { formatAddress } from '../../node/protocol/address.js';
import { UNIT } from '../../node/protocol/amount.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import { FEES } from '../../node/protocol/fees.js';
import { encodeTransaction, MAX_TX_JSON_BYTES, transactionHash } from '../../node/protocol/transaction.js';
import { alice, bob, CHAIN, carol, didCreate, json, NETWORK, pool, sign, state, transfer, TRANSFER_FEE, withDid, withStake } from './harness.js';

const rich = () => state([{ key: alice, balance: 1000n * UNIT }, { key: bob, balance: 1000n * UNIT }]);

t.test('admitJson admits a signed transfer and indexes it', async (t) => {
  const mp = pool(rich());
  const tx = transfer(alice, 0n, 5n);
  const res = await mp.admitJson(json(tx));
  t.same(res, { hash: transactionHash(CHAIN, tx), ready: true, evicted: [] });
  t.ok(mp.has(res.hash));
  t.equal(mp.size, 1);
  t.equal(mp.bytes, encodeTransaction(tx).length);
  t.ok(mp.isVerified(res.hash));
  const pending = mp.pending(formatAddress(alice.address));
  t.equal(pending.length, 1);
  t.equal(pending[0]!.cost, 5n + TRANSFER_FEE);
  t.same(mp.pending(alice.publicKey).map((e) => e.hash), [res.hash]);
  t.same(mp.pending(bob.address), []);
});

t.test('malformed JSON, transactions and payloads', async (t) => {
  const mp = pool(rich());
  await t.rejects(mp.admitJson('{"nonce": '), { code: 'MALFORMED_TRANSACTION', kind: 'invalid', message: /not valid JSON/ });
  await t.rejects(mp.admitJson('[1,2]'), { code: 'MALFORMED_TRANSACTION' });
  const good = JSON.parse(json(transfer(alice, 0n))) as Record<string, unknown>;
  await t.rejects(mp.admitJson(JSON.stringify({ ...good, signature: undefined })), { code: 'MALFORMED_TRANSACTION', message: /missing signature/ });
  await t.rejects(mp.admitJson(JSON.stringify({ ...good, extra: 1 })), { code: 'MALFORMED_TRANSACTION', message: /unknown transaction field/ });
  await t.rejects(mp.admitJson(JSON.stringify({ ...good, payload: { Mint: { amount: 1 } } })), { code: 'MALFORMED_PAYLOAD' });
  await t.rejects(mp.admitJson(JSON.stringify({ ...good, payload: { Stake: { amount: 0 } } })), { code: 'MALFORMED_PAYLOAD', message: /greater than zero/ });
  // decoded transactions (gossip) get the same payload rules
  await t.rejects(mp.admit(sign(alice, 0n, { kind: 'Stake', amount: 0n })), { code: 'MALFORMED_PAYLOAD' });
  await t.rejects(mp.admit(sign(alice, 0n, { kind: 'DidDeactivate', did: 'did:other:x' })), { code: 'MALFORMED_PAYLOAD' });
  await t.rejects(mp.admit({ ...transfer(alice, 0n), signature: new Uint8Array(10) }), { code: 'MALFORMED_TRANSACTION' });
  t.equal(mp.size, 0);
});

t.test('TX_TOO_LARGE for long JSON text, multi-byte text and long encodings', async (t) => {
  const mp = pool(rich());
  const tx = json(transfer(alice, 0n));
  await t.rejects(mp.admitJson(' '.repeat(MAX_TX_JSON_BYTES) + tx), { code: 'TX_TOO_LARGE', kind: 'limit', data: { limit: MAX_TX_JSON_BYTES } });
  // fewer characters than the limit, more UTF-8 bytes
  await t.rejects(mp.admitJson(`"${'é'.repeat(9000)}"`), { code: 'TX_TOO_LARGE', data: { size: 18002 } });
  const big = sign(alice, 0n, {
    kind: 'DidCreate',
    service: Array.from({ length: 8 }, (_, i) => ({ id: `#s${i}`.padEnd(250, 'i'), type: 't'.repeat(250), serviceEndpoint: 'x'.repeat(250) })),
  });
  t.ok(encodeTransaction(big).length > 4096);
  await t.rejects(mp.admitJson(json(big)), { code: 'TX_TOO_LARGE' });
  await t.rejects(mp.admit(big), { code: 'TX_TOO_LARGE', data: { limit: 4096, size: encodeTransaction(big).length } });
});

t.test('WRONG_CHAIN when chain_id names another chain; BAD_SIGNATURE when signed for one', async (t) => {
  const mp = pool(rich());
  const tx = transfer(alice, 0n);
  await t.rejects(mp.admitJson(json(tx, 'mainnet')), { code: 'WRONG_CHAIN', data: { expected: CHAIN, given: 'mainnet' } });
  const foreign = sign(alice, 0n, { kind: 'Transfer', to: bob.address, amount: 1n }, 'mainnet');
  await t.rejects(mp.admitJson(json(foreign)), { code: 'BAD_SIGNATURE', kind: 'invalid', message: /another network/ });
  t.notOk(mp.isVerified(transactionHash(CHAIN, foreign)));
  const tampered = { ...tx, signature: Uint8Array.from(tx.signature, (b, i) => (i === 0 ? b ^ 1 : b)) };
  await t.rejects(mp.admit(tampered), { code: 'BAD_SIGNATURE' });
  t.equal((await mp.admitJson(json(tx, CHAIN))).hash, transactionHash(CHAIN, tx));
});

t.test('ALREADY_KNOWN for a duplicate, also when both arrive at once', async (t) => {
  const mp = pool(rich());
  const tx = transfer(alice, 0n);
  const both = await Promise.allSettled([mp.admit(tx), mp.admit(tx)]);
  t.same(both.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  const rejected = both.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  t.match(rejected.reason, { code: 'ALREADY_KNOWN', kind: 'conflict', data: { hash: transactionHash(CHAIN, tx) } });
  await t.rejects(mp.admitJson(json(tx)), { code: 'ALREADY_KNOWN' });
  t.equal(mp.size, 1);
});

t.test('nonce: too low, taken (no replacement), too high past the window', async (t) => {
  const mp = pool(state([{ key: alice, balance: 1000n * UNIT, nonce: 5n }]), { maxNonceGap: 3 });
  await t.rejects(mp.admit(transfer(alice, 4n)), { code: 'NONCE_TOO_LOW', kind: 'conflict', data: { expected: 5n, given: 4n } });
  const first = await mp.admit(transfer(alice, 5n, 1n));
  await t.rejects(mp.admit(transfer(alice, 5n, 2n)), { code: 'NONCE_TAKEN', data: { nonce: 5n, pendingHash: first.hash } });
  // ready run is 5; next is 6; at most 3 skipped: 9 is the highest accepted
  await t.rejects(mp.admit(transfer(alice, 10n)), { code: 'NONCE_TOO_HIGH', kind: 'limit', data: { expected: 6n, given: 10n, maxGap: 3 } });
  t.same(await mp.admit(transfer(alice, 9n)), { hash: transactionHash(CHAIN, transfer(alice, 9n)), ready: false, evicted: [] });
  // the window is measured from the end of the ready run, not from gapped transactions
  await t.rejects(mp.admit(transfer(alice, 12n)), { code: 'NONCE_TOO_HIGH', data: { expected: 6n } });
  for (const n of [6n, 7n, 8n]) await mp.admit(transfer(alice, n));
  t.equal(mp.pending(alice.address).filter((e) => e.nonce <= 9n).length, 5);
  t.ok((await mp.admit(transfer(alice, 13n))).hash, 'the window moved with the ready run (next is 10)');
});

t.test('INSUFFICIENT_BALANCE counts pending transactions ahead, and behind when a gap is filled', async (t) => {
  const cost = 100n + TRANSFER_FEE;
  const mp = pool(state([{ key: alice, balance: 2n * cost - 1n }]));
  await mp.admit(transfer(alice, 0n, 100n));
  await t.rejects(mp.admit(transfer(alice, 1n, 100n)), {
    code: 'INSUFFICIENT_BALANCE',
    kind: 'conflict',
    data: { balance: 2n * cost - 1n, required: 2n * cost, cost, pendingBefore: cost, pendingAfter: 0n },
  });
  await mp.admit(transfer(alice, 1n, 99n));

  const gap = pool(state([{ key: bob, balance: 2n * cost }]));
  await gap.admit(transfer(bob, 0n, 100n));
  await gap.admit(transfer(bob, 2n, 100n));
  await t.rejects(gap.admit(transfer(bob, 1n, 100n)), { code: 'INSUFFICIENT_BALANCE', data: { pendingBefore: cost, pendingAfter: cost, required: 3n * cost } });
});

t.test('balances and amounts above 2^60 stay exact', async (t) => {
  const big = 1n << 60n;
  const mp = pool(state([{ key: alice, balance: 2n * big + 2n * TRANSFER_FEE }]));
  await mp.admit(transfer(alice, 0n, big));
  await mp.admitJson(json(transfer(alice, 1n, big)));
  await t.rejects(mp.admit(transfer(alice, 2n, 1n)), { code: 'INSUFFICIENT_BALANCE', data: { balance: 2n * big + 2n * TRANSFER_FEE, pendingBefore: 2n * (big + TRANSFER_FEE) } });
  t.same(mp.pending(alice.address).map((e) => e.cost), [big + TRANSFER_FEE, big + TRANSFER_FEE]);
});

t.test('DID_EXISTS: already on chain, or already pending', async (t) => {
  const s = withDid(state([{ key: alice, balance: UNIT }, { key: bob, balance: UNIT }]), alice);
  const mp = pool(s);
  await t.rejects(mp.admit(didCreate(alice, 0n)), { code: 'DID_EXISTS', kind: 'conflict', data: { did: didForPublicKey(NETWORK, alice.publicKey), pending: false } });
  const first = await mp.admit(didCreate(bob, 0n));
  await t.rejects(mp.admit(didCreate(bob, 1n, 20)), { code: 'DID_EXISTS', data: { pending: true, pendingHash: first.hash } });
});

t.test('DidDeactivate: not found, other network, deactivated, pending deactivation, wrong key', async (t) => {
  const s = withDid(withDid(state([{ key: alice, balance: UNIT }, { key: bob, balance: UNIT }, { key: carol, balance: UNIT }]), alice), carol, false);
  const mp = pool(s);
  const deactivate = (k: typeof alice, nonce: bigint, did: string) => sign(k, nonce, { kind: 'DidDeactivate', did });
  const aliceDid = didForPublicKey(NETWORK, alice.publicKey);
  await t.rejects(mp.admit(deactivate(bob, 0n, didForPublicKey(NETWORK, bob.publicKey))), { code: 'DID_NOT_FOUND', data: { did: didForPublicKey(NETWORK, bob.publicKey) } });
  await t.rejects(mp.admit(deactivate(alice, 0n, didForPublicKey('mainnet', alice.publicKey))), { code: 'DID_NOT_FOUND', data: { network: NETWORK } });
  await t.rejects(mp.admit(deactivate(carol, 0n, didForPublicKey(NETWORK, carol.publicKey))), { code: 'DID_DEACTIVATED', data: { pending: false } });
  await t.rejects(mp.admit(deactivate(bob, 0n, aliceDid)), { code: 'NOT_AUTHENTICATION_KEY', data: { did: aliceDid } });
  await mp.admit(deactivate(alice, 0n, aliceDid));
  await t.rejects(mp.admit(deactivate(alice, 1n, aliceDid)), { code: 'DID_DEACTIVATED', data: { pending: true } });
  // a DidCreate pending ahead makes the DID deactivatable by its creator
  await mp.admit(didCreate(bob, 0n));
  t.ok(await mp.admit(deactivate(bob, 1n, didForPublicKey(NETWORK, bob.publicKey))));
});

t.test('UNSTAKE_EXCEEDS_STAKE counts pending stakes and unstakes ahead', async (t) => {
  const s = withStake(state([{ key: alice, balance: UNIT }, { key: bob, balance: UNIT }]), alice, 100n);
  const mp = pool(s);
  await mp.admit(sign(alice, 0n, { kind: 'Unstake', amount: 60n }));
  await t.rejects(mp.admit(sign(alice, 1n, { kind: 'Unstake', amount: 50n })), {
    code: 'UNSTAKE_EXCEEDS_STAKE',
    data: { requested: 50n, available: 40n, staked: 100n, pendingUnstake: 60n, pendingStake: 0n },
  });
  await mp.admit(sign(alice, 1n, { kind: 'Stake', amount: 10n }));
  await mp.admit(sign(alice, 2n, { kind: 'Unstake', amount: 50n }));
  await t.rejects(mp.admit(sign(bob, 0n, { kind: 'Unstake', amount: 1n })), { code: 'UNSTAKE_EXCEEDS_STAKE', data: { staked: 0n } });
  t.equal(mp.pending(alice.address).reduce((n, e) => n + e.cost, 0n), 10n + 3n * FEES.Stake!);
});

t.test('MEMPOOL_FULL for a sender at its own limit', async (t) => {
  const mp = pool(rich(), { maxPerSender: 2 });
  await mp.admit(transfer(alice, 0n));
  await mp.admit(transfer(alice, 1n));
  await t.rejects(mp.admit(transfer(alice, 2n)), { code: 'MEMPOOL_FULL', kind: 'limit', data: { reason: 'per_sender', limit: 2 } });
  t.ok(await mp.admit(transfer(bob, 0n)));
});

t.test('onAdmitted hands each admitted transaction over, once; a throwing listener does not undo admission', async (t) => {
  const errors: unknown[] = [];
  const mp = pool(rich(), { onListenerError: (e) => errors.push(e) });
  const seen: string[] = [];
  const off = mp.onAdmitted((e) => seen.push(e.hash));
  mp.onAdmitted(() => {
    throw new Error('listener bug');
  });
  const a = await mp.admit(transfer(alice, 0n));
  await t.rejects(mp.admit(transfer(alice, 0n)));
  off();
  await mp.admit(transfer(alice, 1n));
  t.same(seen, [a.hash]);
  t.equal(errors.length, 2);
  t.equal(mp.size, 2);
});

t.test('CredentialRequest and SetRecoveryPolicy: the sender must hold the issuer or owner DID key, as for DidDeactivate', async (t) => {
  const s = withDid(withDid(state([{ key: alice, balance: 1000n * UNIT }, { key: bob, balance: 1000n * UNIT }, { key: carol, balance: 1000n * UNIT }]), alice), carol, false);
  const mp = pool(s);
  const aliceDid = didForPublicKey(NETWORK, alice.publicKey);
  const bobDid = didForPublicKey(NETWORK, bob.publicKey);
  const carolDid = didForPublicKey(NETWORK, carol.publicKey);
  const request = (k: typeof alice, nonce: bigint, issuer: string) =>
    sign(k, nonce, {
      kind: 'CredentialRequest',
      credentialId: new Uint8Array(16).fill(Number(nonce) + 1),
      credentialType: 'EmailVerificationCredential',
      kycLevel: 0,
      subject: issuer === bobDid ? aliceDid : bobDid,
      issuer,
      hash: new Uint8Array(32),
      evidenceDigest: new Uint8Array(32),
      fee: UNIT / 100n,
      statusList: 0,
      statusIndex: Number(nonce),
    });
  await t.rejects(mp.admit(request(bob, 0n, aliceDid)), { code: 'NOT_AUTHENTICATION_KEY', data: { did: aliceDid } });
  await t.rejects(mp.admit(request(carol, 0n, carolDid)), { code: 'DID_DEACTIVATED', message: /cannot issue credentials/ });
  await t.rejects(mp.admit(request(bob, 0n, bobDid)), { code: 'DID_NOT_FOUND' });
  await mp.admit(request(alice, 0n, aliceDid));
  // bob's own DidCreate pending ahead makes bob an issuer for what follows it
  await mp.admit(didCreate(bob, 0n));
  await mp.admit(request(bob, 1n, bobDid));
  const policy = (k: typeof alice, nonce: bigint, did: string) => sign(k, nonce, { kind: 'SetRecoveryPolicy', did, guardians: [carolDid], threshold: 1, delayBlocks: 0 });
  await t.rejects(mp.admit(policy(bob, 2n, aliceDid)), { code: 'NOT_AUTHENTICATION_KEY', message: /authentication key of/ });
  await mp.admit(policy(alice, 1n, aliceDid));
});
