import t from 'tap';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataPaths, serviceKeyPath, serviceKeySecretPath } from '../../node/config/datadir.js';
import { openServiceKeyFile } from '../../node/config/service-key-file.js';
import { readSecretFile, type ServiceKeySecret } from '../../node/config/service-key-secret.js';
import { openDatabase } from '../../node/state/db.js';
import { loadServiceKey } from '../../plugins/common/chain/service-key.js';
import { PluginDb } from '../../plugins/common/store/tables.js';
import { PLUGINS } from '../../plugins/index.js';
import { loadBbsKey } from '../../plugins/kyc/issuance/bbs.js';
import { ISSUER_BBS_ROW, ISSUER_SEED_ROW } from '../../plugins/kyc/issuance/tables.js';
import { SPONSOR_SEED_ROW } from '../../plugins/wallet/users/sponsor.js';
import { keySource } from '../plugins/common/secrets/fixtures.js';
import { runLedger } from './fixtures/io.js';

/** `ledger service-keys new-secret` and `rotate`, and `ledger start` refusing a secret file others may read. */

const posix = process.platform !== 'win32';

/** The keys the KYC and wallet plugins keep, loaded (or made) under `secret` as a start would. */
async function keysUnder(dataDir: string, secret: ServiceKeySecret) {
  const db = await openDatabase(dataPaths(dataDir).chainDb);
  try {
    const kyc = new PluginDb(db.pluginStore('kyc'));
    const wallet = new PluginDb(db.pluginStore('wallet'));
    const issuer = await loadServiceKey(kyc, ISSUER_SEED_ROW, 'testnet', keySource(secret));
    const bbs = await loadBbsKey(kyc, ISSUER_BBS_ROW, keySource(secret));
    const sponsor = await loadServiceKey(wallet, SPONSOR_SEED_ROW, 'testnet', keySource(secret));
    const envelopes = [await kyc.json<{ sealed: { ciphertext: string } }>('iss-keys').get('issuer'), await wallet.json<{ sealed: { ciphertext: string } }>('sponsor-key').get('issuer')].map((r) => r!.sealed.ciphertext);
    return { issuer: issuer.did, bbs: Buffer.from(bbs.publicKey).toString('hex'), sponsor: sponsor.address, envelopes };
  } finally {
    await db.close();
  }
}

/** The addresses in the service key files `ledger init` wrote, opened under `secret`. */
async function keyFilesUnder(dataDir: string, secret: ServiceKeySecret) {
  const opened = await Promise.all(['kyc', 'wallet'].map((plugin) => openServiceKeyFile(serviceKeyPath(dataDir, plugin), plugin, secret)));
  return { addresses: opened.map((f) => f.key.address), text: ['kyc', 'wallet'].map((plugin) => readFileSync(serviceKeyPath(dataDir, plugin), 'utf8')) };
}

const databaseFiles = (dataDir: string): Buffer => Buffer.concat(readdirSync(dataPaths(dataDir).chainDb).map((n) => readFileSync(join(dataPaths(dataDir).chainDb, n))));

t.test('new-secret writes a random 0600 secret and never overwrites one', async (t) => {
  const cwd = t.testdir({});
  const r = await runLedger(['service-keys', 'new-secret', '--out', 'keys.secret'], { cwd });
  t.equal(r.code, 0, r.stderr);
  t.same(r.json(), { file: join(cwd, 'keys.secret'), mode: '0600' });
  if (posix) t.equal(statSync(join(cwd, 'keys.secret')).mode & 0o777, 0o600);
  const secret = readFileSync(join(cwd, 'keys.secret'), 'utf8');
  t.match(secret, /^[A-Za-z0-9_-]{43}\n$/);
  t.notOk(r.stdout.includes(secret.trim()), 'the secret is not printed');
  const again = await runLedger(['service-keys', 'new-secret', '--out', 'keys.secret'], { cwd });
  t.equal(again.code, 1);
  t.match(again.stderr, /already exists; refusing to overwrite a secret/);
  t.equal(readFileSync(join(cwd, 'keys.secret'), 'utf8'), secret);
  t.equal((await runLedger(['service-keys', 'frob'], { cwd })).code, 2, 'an unknown subcommand is a usage error');
});

t.test('rotate re-encrypts every plugin’s keys and the service key files under the new secret: the same keys, and the old secret opens none', async (t) => {
  const cwd = t.testdir({});
  const dataDir = join(cwd, 'data');
  t.equal((await runLedger(['init', '--data-dir', dataDir], { cwd })).code, 0);
  const first = await readSecretFile(serviceKeySecretPath(dataDir), 'data-dir');
  const before = await keysUnder(dataDir, first);
  const filesBefore = await keyFilesUnder(dataDir, first);
  const files = databaseFiles(dataDir);
  t.ok(before.envelopes.every((e) => files.includes(Buffer.from(e))), 'before: the envelopes are in the database files');

  t.equal((await runLedger(['service-keys', 'new-secret', '--out', 'next.secret'], { cwd })).code, 0);
  const wrong = await runLedger(['service-keys', 'rotate', '--new-secret-file', 'next.secret'], { cwd, plugins: PLUGINS, env: { LEDGER_SERVICE_KEY_SECRET: 'not-the-secret-of-these-keys' } });
  t.equal(wrong.code, 1, 'from a wrong current secret: refused');
  t.match(wrong.stderr, /ledger service-keys: the KYC issuer's Ed25519 seed \(table iss-keys, row issuer\) does not open with the service-key secret from the environment variable LEDGER_SERVICE_KEY_SECRET/);
  t.same(await keysUnder(dataDir, first), before, 'and nothing was written');
  t.same(await keyFilesUnder(dataDir, first), filesBefore, 'in the database or in the key files');

  const r = await runLedger(['service-keys', 'rotate', '--new-secret-file', 'next.secret'], { cwd, plugins: PLUGINS });
  t.equal(r.code, 0, r.stderr);
  t.same(r.json(), {
    data_dir: dataDir,
    from: `the file ${serviceKeySecretPath(dataDir)}`,
    to: `the file ${join(cwd, 'next.secret')}`,
    resealed: ['kyc/iss-keys/issuer', 'kyc/iss-keys/bbs', 'wallet/sponsor-key/issuer', 'keys/service-kyc.json', 'keys/service-wallet.json'],
  });
  t.match(r.stderr, /Start the node with the new secret/);

  const next = await readSecretFile(join(cwd, 'next.secret'));
  const after = await keysUnder(dataDir, next);
  t.same({ ...after, envelopes: [] }, { ...before, envelopes: [] }, 'the same issuer DID, BBS key and sponsor address');
  const rotated = databaseFiles(dataDir);
  t.ok(before.envelopes.every((e) => !rotated.includes(Buffer.from(e))), 'the retired envelopes are compacted out of the files');
  await t.rejects(keysUnder(dataDir, first), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'the old secret opens nothing');
  const filesAfter = await keyFilesUnder(dataDir, next);
  t.same(filesAfter.addresses, filesBefore.addresses, 'the key files hold the same accounts, re-sealed');
  t.ok(filesAfter.text.every((text, i) => text !== filesBefore.text[i]));
  await t.rejects(keyFilesUnder(dataDir, first), { code: 'SERVICE_KEY_SECRET_WRONG', message: /service-kyc\.json does not open/ }, 'nor the key files');

  const same = await runLedger(['service-keys', 'rotate', '--new-secret-file', 'next.secret', '--service-key-secret-file', 'next.secret'], { cwd, plugins: PLUGINS });
  t.equal(same.code, 1);
  t.match(same.stderr, /is the current one/);
});

t.test('rotate on a data directory that was initialised and never started re-seals the key files and makes no database', async (t) => {
  const cwd = t.testdir({});
  const dataDir = join(cwd, 'data');
  t.equal((await runLedger(['init', '--data-dir', dataDir], { cwd })).code, 0);
  const first = await readSecretFile(serviceKeySecretPath(dataDir), 'data-dir');
  const before = await keyFilesUnder(dataDir, first);
  t.equal((await runLedger(['service-keys', 'new-secret', '--out', 'next.secret'], { cwd })).code, 0);
  const r = await runLedger(['service-keys', 'rotate', '--new-secret-file', 'next.secret'], { cwd, plugins: PLUGINS });
  t.equal(r.code, 0, r.stderr);
  t.same(r.json().resealed, ['keys/service-kyc.json', 'keys/service-wallet.json']);
  t.same((await keyFilesUnder(dataDir, await readSecretFile(join(cwd, 'next.secret')))).addresses, before.addresses, 'the same accounts under the new secret');
  await t.rejects(keyFilesUnder(dataDir, first), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'and not under the old one');
  t.notOk(existsSync(dataPaths(dataDir).chainDb), 'no chain database was made');
});

t.test('ledger start with a plugin that keeps sealed secrets refuses a secret file others may read, naming the file and its mode', { skip: !posix && 'POSIX modes' }, async (t) => {
  for (const plugin of ['kyc', 'relay']) {
    const cwd = t.testdir({});
    const file = join(cwd, 'open.secret');
    writeFileSync(file, 'a-secret-anyone-on-the-machine-may-read\n');
    chmodSync(file, 0o644);
    const r = await runLedger(['start', '--data-dir', 'data', '--service-key-secret-file', file, '--rpc-port', '0', '--p2p-port', '0', '--plugins', plugin], {
      cwd,
      plugins: PLUGINS,
      env: { LEDGER_LOG_LEVEL: 'silent' },
    });
    t.equal(r.code, 1, plugin);
    t.equal(r.stderr, `ledger start: the service-key secret file ${file} has mode 0644: group or others have access to it; it must be private to its owner (chmod 600 ${file})\n`);
  }
});
