import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import { generateSeed } from '../../../../node/crypto/ed25519.js';
import type { BinaryLevel } from '../../../../node/state/db.js';
import { loadServiceKey } from '../../../../plugins/common/chain/service-key.js';
import { resealRows } from '../../../../plugins/common/secrets/sealed-rows.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { loadBbsKey } from '../../../../plugins/kyc/issuance/bbs.js';
import { ISSUER_BBS_ROW, ISSUER_SECRET_ROWS, ISSUER_SEED_ROW } from '../../../../plugins/kyc/issuance/tables.js';
import { foundIn, keySource, testSecret } from './fixtures.js';

/**
 * What someone who copies the LevelDB directory finds: every file, grepped for the seed as hex,
 * base64 and raw bytes. The database is opened without block compression, so that anything in
 * the files is there to be found (snappy could hide a plaintext from the grep, not from a reader).
 */

const BINARY = { keyEncoding: 'view', valueEncoding: 'view' } as const;

async function open(dir: string) {
  const root = new Level<Uint8Array, Uint8Array>(dir, { ...BINARY, compression: false } as never) as unknown as BinaryLevel;
  await root.open();
  return { root, kyc: new PluginDb(root.sublevel<Uint8Array, Uint8Array>('plugin:kyc', BINARY)) };
}

async function files(dir: string): Promise<Buffer> {
  const names = await readdir(dir);
  return Buffer.concat(await Promise.all(names.map((n) => readFile(join(dir, n)))));
}

t.test('migrated from plaintext, then rotated: no database file keeps the seed or the retired envelope', async (t) => {
  const dir = join(t.testdir({}), 'chain');
  const seed = generateSeed();
  const bbsSecret = Buffer.from(generateSeed());
  let db = await open(dir);
  await db.kyc.json(ISSUER_SEED_ROW.table).put('issuer', { seed: Buffer.from(seed).toString('hex'), origin: 'generated', createdAt: '2026-01-01T00:00:00.000Z' });
  await db.kyc.json(ISSUER_BBS_ROW.table).put('bbs', { secretKey: bbsSecret.toString('hex'), publicKey: '00'.repeat(96), createdAt: '2026-01-01T00:00:00.000Z' });
  await db.root.close();
  t.same(foundIn(await files(dir), seed), ['hex'], 'before: a plaintext row is in the files, and the grep finds it');

  const old = await testSecret('the-secret-of-the-first-start');
  db = await open(dir);
  const issuer = await loadServiceKey(db.kyc, ISSUER_SEED_ROW, 'testnet', keySource(old, generateSeed()));
  t.same(issuer.seed, seed, 'migrated in place: the same seed');
  t.same(Buffer.from((await loadBbsKey(db.kyc, ISSUER_BBS_ROW, keySource(old))).secretKey), bbsSecret);
  const sealed = (await db.kyc.json<{ sealed: { ciphertext: string } }>(ISSUER_SEED_ROW.table).get('issuer'))!.sealed.ciphertext;
  await db.root.close();
  const migrated = await files(dir);
  t.same(foundIn(migrated, seed), [], 'after the migration no file holds the seed in any form');
  t.same(foundIn(migrated, bbsSecret), [], 'nor the BBS secret key');
  t.ok(migrated.includes(Buffer.from(sealed)), 'the envelope is there instead');

  const next = await testSecret('the-secret-after-rotation');
  db = await open(dir);
  const plan = await resealRows(db.root.sublevel<Uint8Array, Uint8Array>('plugin:kyc', BINARY), ISSUER_SECRET_ROWS, old, next);
  await db.root.batch(plan.ops);
  await plan.compact();
  await db.root.close();
  const rotated = await files(dir);
  t.notOk(rotated.includes(Buffer.from(sealed)), 'after the rotation the retired envelope is gone from the files');
  t.same(foundIn(rotated, seed), []);

  db = await open(dir);
  t.teardown(() => db.root.close());
  await t.rejects(loadServiceKey(db.kyc, ISSUER_SEED_ROW, 'testnet', keySource(old)), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'the old secret opens nothing');
  t.match(await loadServiceKey(db.kyc, ISSUER_SEED_ROW, 'testnet', keySource(next)), { address: issuer.address, did: issuer.did });
});

t.test('a key made under a secret never reaches the files in plaintext', async (t) => {
  const dir = join(t.testdir({}), 'chain');
  const db = await open(dir);
  const key = await loadServiceKey(db.kyc, ISSUER_SEED_ROW, 'testnet', keySource(await testSecret()));
  const bbs = await loadBbsKey(db.kyc, ISSUER_BBS_ROW, keySource(await testSecret()));
  await db.root.close();
  const bytes = await files(dir);
  t.same(foundIn(bytes, key.seed), []);
  t.same(foundIn(bytes, bbs.secretKey), []);
});
