import t, { type Test } from 'tap';
import { copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { serviceKeyPath } from '../../node/config/datadir.js';
import { generateAccountKey, generateValidatorKey, keyFileFromJson, readKeyFile, secureKeysDir, writeKeyFile, writePrivateJson } from '../../node/config/keyfile.js';
import { openServiceKeyFile, readServiceKeyPublic, resealServiceKeyFiles, sealServiceKeyFile, writeServiceKeyFile } from '../../node/config/service-key-file.js';
import { foundIn, testSecret } from '../plugins/common/secrets/fixtures.js';

/** The service key files `ledger init` writes: the seed sealed under the service-key secret, the public fields in clear. */

const mode = (path: string) => statSync(path).mode & 0o777;

async function keysDir(t: Test): Promise<string> {
  const dataDir = t.testdir({});
  await secureKeysDir(join(dataDir, 'keys'));
  return dataDir;
}

t.test('a sealed file holds no form of the seed, keeps its public fields readable, and opens only with its secret', async (t) => {
  const dataDir = await keysDir(t);
  const secret = await testSecret();
  const key = generateAccountKey('testnet');
  const path = serviceKeyPath(dataDir, 'kyc');
  await writeServiceKeyFile(path, 'kyc', key, secret);

  const bytes = readFileSync(path);
  t.same(foundIn(bytes, key.seed), [], 'not as hex, base64 or raw bytes');
  t.equal(mode(path), 0o600);
  const json = JSON.parse(bytes.toString('utf8'));
  t.same(Object.keys(json).sort(), ['address', 'did', 'public_key', 'sealed', 'type']);
  t.match(json.sealed, { v: 1, cipher: 'aes-256-gcm', kdf: { name: 'scrypt' } });
  t.same(await readServiceKeyPublic(path), { publicKey: key.publicKey, address: key.address, did: key.did, network: 'testnet' }, 'tooling reads the public part without the secret');

  t.same(await openServiceKeyFile(path, 'kyc', secret), { key, sealed: true });
  t.same((await openServiceKeyFile(path, 'kyc', await testSecret('the-test-service-key-secret'))).key.seed, key.seed, 'the same secret text in another process opens it');
  await t.rejects(openServiceKeyFile(path, 'kyc', await testSecret('another-secret-of-some-length')), {
    code: 'SERVICE_KEY_SECRET_WRONG',
    message: `the service key file ${path} does not open as the kyc plugin's with the service-key secret from the environment variable LEDGER_SERVICE_KEY_SECRET: it was sealed under another secret or for another plugin, or it was altered. Configure the secret it was sealed under (docs/operators.md, "The service-key secret"); no new key is made in its place, since its account is the one funded at genesis`,
    data: { file: path, plugin: 'kyc' },
  });
  t.throws(() => keyFileFromJson(json, path), { code: 'BAD_KEY_FILE', message: /holds its seed sealed under the service-key secret/ }, 'not usable as a signing key file');
  await t.rejects(readKeyFile(path), { code: 'BAD_KEY_FILE' });
});

t.test("a file copied under another plugin's name does not open", async (t) => {
  const dataDir = await keysDir(t);
  const secret = await testSecret();
  await writeServiceKeyFile(serviceKeyPath(dataDir, 'kyc'), 'kyc', generateAccountKey('testnet'), secret);
  copyFileSync(serviceKeyPath(dataDir, 'kyc'), serviceKeyPath(dataDir, 'wallet'));
  await t.rejects(openServiceKeyFile(serviceKeyPath(dataDir, 'wallet'), 'wallet', secret), { code: 'SERVICE_KEY_SECRET_WRONG', message: /service-wallet\.json does not open as the wallet plugin's/ });
});

t.test('public fields that disagree with the sealed seed are refused', async (t) => {
  const dataDir = await keysDir(t);
  const secret = await testSecret();
  const path = serviceKeyPath(dataDir, 'kyc');
  await writeServiceKeyFile(path, 'kyc', generateAccountKey('testnet'), secret);
  const other = generateAccountKey('testnet');
  const json = JSON.parse(readFileSync(path, 'utf8'));
  // another key's public fields, consistent among themselves, over this file's envelope
  await writeServiceKeyFile(path, 'kyc', other, secret, { force: true });
  const swapped = { ...JSON.parse(readFileSync(path, 'utf8')), sealed: json.sealed };
  await writePrivateJson(path, swapped, { force: true });
  await t.rejects(openServiceKeyFile(path, 'kyc', secret), { code: 'BAD_KEY_FILE', message: /public_key does not match the sealed seed/ });
  await writePrivateJson(path, { ...swapped, address: json.address }, { force: true });
  await t.rejects(readServiceKeyPublic(path), { code: 'BAD_KEY_FILE', message: /address .* does not match the public key/ });
});

t.test('a plaintext file from an older init is sealed in place with the same key, atomically and 0600', async (t) => {
  const dataDir = await keysDir(t);
  const secret = await testSecret();
  const key = generateAccountKey('testnet');
  const path = serviceKeyPath(dataDir, 'wallet');
  await writeKeyFile(path, key);
  t.same(await openServiceKeyFile(path, 'wallet', secret), { key, sealed: false }, 'read as it is before');
  t.same(await readServiceKeyPublic(path), { publicKey: key.publicKey, address: key.address, did: key.did, network: 'testnet' });

  t.equal(await sealServiceKeyFile(path, 'wallet', secret), true);
  t.same(foundIn(readFileSync(path), key.seed), [], 'the seed is gone from the file');
  t.equal(mode(path), 0o600);
  t.same(readdirSync(join(dataDir, 'keys')), ['service-wallet.json'], 'no temporary file left');
  t.same(await openServiceKeyFile(path, 'wallet', secret), { key, sealed: true });
  const sealed = readFileSync(path, 'utf8');
  t.equal(await sealServiceKeyFile(path, 'wallet', await testSecret('another-secret-of-some-length')), false, 'a sealed file is left alone, unopened');
  t.equal(readFileSync(path, 'utf8'), sealed);

  await writeKeyFile(serviceKeyPath(dataDir, 'kyc'), generateValidatorKey('testnet'));
  await t.rejects(sealServiceKeyFile(serviceKeyPath(dataDir, 'kyc'), 'kyc', secret), { code: 'BAD_KEY_FILE', message: /is a validator key/ }, 'a validator key is no service key');
});

t.test('resealing every service key file: all open before any is written, and a second run finds them moved', async (t) => {
  const dataDir = await keysDir(t);
  const from = await testSecret();
  const to = await testSecret('the-next-service-key-secret');
  const kyc = generateAccountKey('testnet');
  const wallet = generateAccountKey('testnet');
  await writeServiceKeyFile(serviceKeyPath(dataDir, 'kyc'), 'kyc', kyc, from);
  await writeKeyFile(serviceKeyPath(dataDir, 'wallet'), wallet); // still in plaintext
  await writeKeyFile(join(dataDir, 'keys', 'dev.json'), generateAccountKey('testnet'));
  const before = readFileSync(serviceKeyPath(dataDir, 'kyc'), 'utf8');

  await t.rejects(resealServiceKeyFiles(dataDir, await testSecret('not-the-secret-of-these-keys'), to), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'a wrong current secret');
  t.equal(readFileSync(serviceKeyPath(dataDir, 'kyc'), 'utf8'), before, 'changed nothing');

  const plan = await resealServiceKeyFiles(dataDir, from, to);
  t.same(plan.files.sort(), ['keys/service-kyc.json', 'keys/service-wallet.json'], 'only the service key files');
  t.equal(readFileSync(serviceKeyPath(dataDir, 'kyc'), 'utf8'), before, 'nothing is written before write()');
  await plan.write();
  t.same((await openServiceKeyFile(serviceKeyPath(dataDir, 'kyc'), 'kyc', to)).key, kyc, 'the same keys under the new secret');
  t.same(await openServiceKeyFile(serviceKeyPath(dataDir, 'wallet'), 'wallet', to), { key: wallet, sealed: true }, 'the plaintext one sealed on the way');
  await t.rejects(openServiceKeyFile(serviceKeyPath(dataDir, 'kyc'), 'kyc', from), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'the old secret opens none');
  t.same((await resealServiceKeyFiles(dataDir, from, to)).files, [], 'run again after a rotate cut short: nothing left to move');
  t.same((await resealServiceKeyFiles(join(dataDir, 'none'), from, to)).files, [], 'a data directory without keys/');
});
