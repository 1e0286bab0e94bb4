import t from 'tap';
import { createSignatureChecker } from '../../node/crypto/signature-checker.js';
import { VerifiedCache } from '../../node/mempool/verified-cache.js';
import { transactionHash } from '../../node/protocol/transaction.js';
import { alice, CHAIN, pool, state, transfer } from './harness.js';

t.test('the cache is bounded and forgets the oldest hash first', async (t) => {
  const c = new VerifiedCache(2);
  c.add('a');
  c.add('b');
  c.add('a');
  c.add('c');
  t.same([c.has('a'), c.has('b'), c.has('c')], [false, true, true]);
  t.equal(c.size, 2);
  t.throws(() => new VerifiedCache(0), RangeError);
});

t.test('the mempool remembers verified signatures, including of rejected and removed transactions', async (t) => {
  const mp = pool(state([{ key: alice, balance: 1_000_000n, nonce: 1n }]), { verifiedCacheSize: 2 });
  const txs = [1n, 2n, 3n].map((n) => transfer(alice, n, 1n));
  const low = transfer(alice, 0n);
  await t.rejects(mp.admit(low), { code: 'NONCE_TOO_LOW' });
  t.ok(mp.isVerified(transactionHash(CHAIN, low)), 'the signature was good, so a block carrying it need not re-verify');
  const hashes: string[] = [];
  for (const tx of txs) {
    hashes.push((await mp.admit(tx)).hash);
  }
  for (const h of hashes) t.ok(mp.remove(h));
  t.same(hashes.map((h) => mp.isVerified(h)), [false, true, true]);
  t.notOk(mp.isVerified(transactionHash(CHAIN, low)));
});

t.test('a signature checked by block validation is remembered for the gossiped copy', async (t) => {
  const signatures = createSignatureChecker({ threads: 0 });
  const mp = pool(state([{ key: alice, balance: 1_000_000n, nonce: 0n }]), { signatures });
  const tx = transfer(alice, 0n);
  const hash = transactionHash(CHAIN, tx);
  t.notOk(mp.isVerified(hash));
  t.same(await mp.verifySignatures([tx]), [true], 'as ChainApp.validateBlock checks it');
  t.ok(mp.isVerified(hash));
  t.equal((await mp.admit(tx)).hash, hash, 'and admission still accepts it');
  t.equal(signatures.stats().checked, 1, 'without checking the signature again');
});

t.test('verifySignatures checks, in one batch, only what was not verified before, and remembers the good ones', async (t) => {
  const signatures = createSignatureChecker({ threads: 0 });
  const mp = pool(state([{ key: alice, balance: 1_000_000n, nonce: 0n }]), { signatures });
  const [seen, fresh] = [transfer(alice, 0n), transfer(alice, 1n)];
  await mp.verifySignatures([seen]);
  const before = signatures.stats().checked;
  const forged = { ...transfer(alice, 2n), signature: fresh.signature };
  t.same(await mp.verifySignatures([seen, fresh, forged]), [true, true, false]);
  t.equal(signatures.stats().checked - before, 2, 'the one verified before is not checked again');
  t.ok(mp.isVerified(transactionHash(CHAIN, fresh)));
  t.notOk(mp.isVerified(transactionHash(CHAIN, forged)), 'a bad signature is not remembered');
});
