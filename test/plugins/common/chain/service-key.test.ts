import t, { type Test } from 'tap';
import { generateSeed } from '../../../../node/crypto/ed25519.js';
import { openDatabase } from '../../../../node/state/db.js';
import { loadServiceKey } from '../../../../plugins/common/chain/service-key.js';
import { resealRows } from '../../../../plugins/common/secrets/sealed-rows.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { loadBbsKey } from '../../../../plugins/kyc/issuance/bbs.js';
import { ISSUER_BBS_ROW, ISSUER_SECRET_ROWS, ISSUER_SEED_ROW } from '../../../../plugins/kyc/issuance/tables.js';
import { SPONSOR_SEED_ROW } from '../../../../plugins/wallet/users/sponsor.js';
import { foundIn, keySource, rawNamespace, testSecret } from '../secrets/fixtures.js';

/**
 * The plugins' service keys in their stores (in memory here; on disk in
 * test/plugins/common/secrets/on-disk.test.ts): sealed, the same key after every load, refused
 * under a wrong secret, migrated from plaintext in place, and moved to a new secret.
 */

async function stores(t: Test) {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  return { db, kyc: new PluginDb(db.pluginStore('kyc')), wallet: new PluginDb(db.pluginStore('wallet')) };
}

t.test('the KYC issuer’s keys and the sponsor’s seed are stored sealed, and load back the same', async (t) => {
  const { db, kyc, wallet } = await stores(t);
  const keys = keySource(await testSecret(), generateSeed());
  const issuer = await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keys);
  const bbs = await loadBbsKey(kyc, ISSUER_BBS_ROW, keys);
  const sponsor = await loadServiceKey(wallet, SPONSOR_SEED_ROW, 'testnet', keySource(await testSecret()));
  t.equal(issuer.origin, 'service-key');
  t.equal(sponsor.origin, 'generated');

  for (const [name, store, secret] of [['kyc', 'kyc', issuer.seed], ['bbs', 'kyc', bbs.secretKey], ['sponsor', 'wallet', sponsor.seed]] as const) {
    t.same(foundIn(await rawNamespace(db.pluginStore(store)), secret), [], `no form of the ${name} secret is in the raw store`);
  }
  const row = await kyc.json<Record<string, unknown>>(ISSUER_SEED_ROW.table).get('issuer');
  t.same(Object.keys(row!).sort(), ['createdAt', 'origin', 'sealed'], 'the row: public fields and the envelope');
  t.match(await kyc.json(ISSUER_BBS_ROW.table).get('bbs'), { publicKey: Buffer.from(bbs.publicKey).toString('hex'), sealed: { v: 1 } });

  const again = await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keySource(await testSecret(), generateSeed()));
  t.match(again, { address: issuer.address, did: issuer.did, origin: 'service-key' }, 'the same account and DID, not the new service key');
  t.same(again.seed, issuer.seed);
  t.same(await loadBbsKey(kyc, ISSUER_BBS_ROW, keys), bbs);
  t.equal((await loadServiceKey(wallet, SPONSOR_SEED_ROW, 'testnet', keySource(await testSecret()))).address, sponsor.address);
});

t.test('under a wrong secret, or moved to another row, a key is SERVICE_KEY_SECRET_WRONG and nothing changes', async (t) => {
  const { db, kyc, wallet } = await stores(t);
  const secret = await testSecret();
  await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keySource(secret));
  await loadBbsKey(kyc, ISSUER_BBS_ROW, keySource(secret));
  const before = await rawNamespace(db.pluginStore('kyc'));

  const wrong = keySource(await testSecret('not-the-secret-it-was-sealed-under'), generateSeed());
  await t.rejects(loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', wrong), {
    code: 'SERVICE_KEY_SECRET_WRONG',
    message: /^the KYC issuer's Ed25519 seed \(table iss-keys, row issuer\) does not open with the service-key secret from the environment variable LEDGER_SERVICE_KEY_SECRET/,
    data: { table: 'iss-keys', row: 'issuer' },
  });
  await t.rejects(loadBbsKey(kyc, ISSUER_BBS_ROW, wrong), { code: 'SERVICE_KEY_SECRET_WRONG', data: { row: 'bbs' } });
  t.same(await rawNamespace(db.pluginStore('kyc')), before, 'no new key was made and nothing rewritten');

  const issuerRow = await kyc.json(ISSUER_SEED_ROW.table).get('issuer');
  await wallet.json(SPONSOR_SEED_ROW.table).put('issuer', issuerRow);
  await t.rejects(loadServiceKey(wallet, SPONSOR_SEED_ROW, 'testnet', keySource(secret)), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'the issuer’s envelope in the sponsor’s table');
  const bbsRow = (await kyc.json<{ sealed: unknown }>(ISSUER_BBS_ROW.table).get('bbs'))!;
  await kyc.json(ISSUER_SEED_ROW.table).put('issuer', { ...issuerRow!, sealed: bbsRow.sealed });
  await t.rejects(loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keySource(secret)), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'the BBS envelope in the seed’s row');
});

t.test('a row stored in plaintext before sealing is sealed in place on first load, with the same key', async (t) => {
  const { db, kyc, wallet } = await stores(t);
  const seed = generateSeed();
  const bbsSecret = Buffer.alloc(32, 7);
  const bbsPublic = Buffer.alloc(96, 9).toString('hex');
  await kyc.json(ISSUER_SEED_ROW.table).put('issuer', { seed: Buffer.from(seed).toString('hex'), origin: 'service-key', createdAt: '2026-01-01T00:00:00.000Z' });
  await kyc.json(ISSUER_BBS_ROW.table).put('bbs', { secretKey: bbsSecret.toString('hex'), publicKey: bbsPublic, createdAt: '2026-01-01T00:00:00.000Z' });
  await wallet.json(SPONSOR_SEED_ROW.table).put('issuer', { seed: Buffer.from(seed).reverse().toString('hex'), origin: 'generated', createdAt: '2026-01-01T00:00:00.000Z' });
  t.same(foundIn(await rawNamespace(db.pluginStore('kyc')), seed), ['hex'], 'before: the seed is in the store as hex');

  const logged: string[] = [];
  const keys = { ...keySource(await testSecret(), generateSeed()), log: { info: (_: object, message: string) => void logged.push(message) } };
  const issuer = await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keys);
  t.same(issuer.seed, seed, 'the same seed, not the service key on offer');
  t.equal(issuer.origin, 'service-key', 'its origin kept');
  const bbs = await loadBbsKey(kyc, ISSUER_BBS_ROW, keys);
  t.same(Buffer.from(bbs.secretKey), bbsSecret);
  t.equal(Buffer.from(bbs.publicKey).toString('hex'), bbsPublic);
  const sponsor = await loadServiceKey(wallet, SPONSOR_SEED_ROW, 'testnet', keys);
  t.same(sponsor.seed, Uint8Array.from(seed).reverse());
  t.same(logged, [
    "the KYC issuer's Ed25519 seed was stored in plaintext: it is now encrypted under the service-key secret",
    "the KYC issuer's BBS secret key was stored in plaintext: it is now encrypted under the service-key secret",
    "the wallet sponsor's Ed25519 seed was stored in plaintext: it is now encrypted under the service-key secret",
  ]);

  t.same(foundIn(await rawNamespace(db.pluginStore('kyc')), seed), [], 'after: no form of the seed');
  t.same(foundIn(await rawNamespace(db.pluginStore('kyc')), bbsSecret), [], 'nor of the BBS secret key');
  t.same(Object.keys((await kyc.json<object>(ISSUER_SEED_ROW.table).get('issuer'))!).sort(), ['createdAt', 'origin', 'sealed'], 'the plaintext field is gone');
  t.same((await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keys)).seed, seed, 'and it loads sealed the next time');
  t.equal(logged.length, 3, 'with no second migration');
});

t.test('resealing moves every row to a new secret: the same keys; the old secret opens none', async (t) => {
  const { db, kyc } = await stores(t);
  const old = await testSecret('the-secret-being-retired');
  const next = await testSecret('the-secret-taking-over');
  const issuer = await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keySource(old));
  const bbs = await loadBbsKey(kyc, ISSUER_BBS_ROW, keySource(old));

  await t.rejects(resealRows(db.pluginStore('kyc'), ISSUER_SECRET_ROWS, next, old), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'from the wrong secret: refused before any write');
  const plan = await resealRows(db.pluginStore('kyc'), ISSUER_SECRET_ROWS, old, next);
  t.same(plan.rows, ['iss-keys/issuer', 'iss-keys/bbs']);
  t.same((await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keySource(old))).seed, issuer.seed, 'nothing is written until the batch');
  await db.root.batch(plan.ops);
  await plan.compact();

  t.same((await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keySource(next))).did, issuer.did, 'the same DID under the new secret');
  t.same(await loadBbsKey(kyc, ISSUER_BBS_ROW, keySource(next)), bbs);
  await t.rejects(loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keySource(old)), { code: 'SERVICE_KEY_SECRET_WRONG' });
  await t.rejects(loadBbsKey(kyc, ISSUER_BBS_ROW, keySource(old)), { code: 'SERVICE_KEY_SECRET_WRONG' });
  t.same((await resealRows(db.pluginStore('wallet'), [], old, next)).rows, [], 'a plugin with no rows yet has nothing to reseal');
});
