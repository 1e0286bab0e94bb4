import t from 'tap';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  generateAccountKey,
  generateValidatorKey,
  isValidatorKey,
  keyFileFromJson,
  keyFileToJson,
  readKeyFile,
  readValidatorKeyFile,
  secureKeysDir,
  writeKeyFile,
} from '../../node/config/keyfile.js';
import { addressFromPublicKey } from '../../node/protocol/address.js';
import { toHex } from '../../node/protocol/bytes.js';

const mode = (path: string) => statSync(path).mode & 0o777;

t.test('an account key file round-trips, is 0600 in a 0700 dir', async (t) => {
  const dir = join(t.testdir({}), 'keys');
  await secureKeysDir(dir);
  const key = generateAccountKey('testnet');
  const path = join(dir, 'a.json');
  await writeKeyFile(path, key);
  t.equal(mode(path), 0o600);
  t.equal(mode(dir), 0o700);
  const json = JSON.parse(readFileSync(path, 'utf8'));
  t.same(Object.keys(json).sort(), ['address', 'did', 'public_key', 'secret_key', 'type']);
  t.equal(json.type, 'ed25519');
  t.equal(json.address, addressFromPublicKey(key.publicKey));
  t.equal(json.did, `did:ledger:testnet:${key.address}`);
  const back = await readKeyFile(path);
  t.same(back, key);
  t.notOk(isValidatorKey(back));
  await t.rejects(readValidatorKeyFile(path), { code: 'BAD_KEY_FILE', message: /is an account key/ });
});

t.test('a validator key file holds a BLS key pair and round-trips', async (t) => {
  const path = join(t.testdir({}), 'v.json');
  const key = generateValidatorKey('testnet');
  t.equal(key.blsSecretKey.length, 32);
  t.equal(key.blsPublicKey.length, 48);
  await writeKeyFile(path, key);
  t.equal(mode(path), 0o600);
  const back = await readValidatorKeyFile(path);
  t.same(back, key);
});

t.test('never overwrites without force; force replaces and keeps 0600', async (t) => {
  const path = join(t.testdir({}), 'k.json');
  const first = generateAccountKey('testnet');
  await writeKeyFile(path, first);
  await t.rejects(writeKeyFile(path, generateAccountKey('testnet')), { code: 'KEY_FILE_EXISTS', message: /refusing to overwrite.*--force/ });
  t.same(await readKeyFile(path), first, 'the existing file is untouched');
  const second = generateAccountKey('testnet');
  await writeKeyFile(path, second, { force: true });
  t.same(await readKeyFile(path), second);
  t.equal(mode(path), 0o600);
});

t.test('the loader refuses files whose parts disagree', async (t) => {
  const a = keyFileToJson(generateValidatorKey('testnet'));
  const other = keyFileToJson(generateValidatorKey('testnet'));
  const bad = (patch: Record<string, unknown>, re: RegExp) => t.throws(() => keyFileFromJson({ ...a, ...patch }, 'f.json'), { code: 'BAD_KEY_FILE', message: re });
  bad({ public_key: other.public_key }, /public_key does not match secret_key/);
  bad({ address: other.address }, /address .* does not match the public key/);
  bad({ did: other.did }, /did .* does not match the public key/);
  bad({ did: `did:ledger:${a.address}` }, /not a did:ledger DID/);
  bad({ bls_public_key: other.bls_public_key }, /bls_public_key does not match bls_secret_key/);
  bad({ secret_key: 'zz' }, /secret_key must be lowercase hex/);
  bad({ secret_key: '00'.repeat(31) }, /secret_key must be 32 bytes/);
  bad({ type: 'secp256k1' }, /type must be "ed25519"/);
  bad({ extra: 'x' }, /unknown field "extra"/);
  t.throws(() => keyFileFromJson({ ...a, bls_secret_key: undefined }, 'f.json'), { message: /missing string field "bls_secret_key"/ });
  t.throws(() => keyFileFromJson([], 'f.json'), { message: /must hold a JSON object/ });
  const other2 = { ...a, did: a.did!.replace(':testnet:', ':mainnet:') };
  t.equal(keyFileFromJson(other2).network, 'mainnet', 'any network segment is fine when it names the same key');
});

t.test('unreadable and non-JSON files', async (t) => {
  const dir = t.testdir({});
  await t.rejects(readKeyFile(join(dir, 'none.json')), { code: 'KEY_FILE_UNREADABLE', message: /no such file/ });
  writeFileSync(join(dir, 'bad.json'), 'not json');
  await t.rejects(readKeyFile(join(dir, 'bad.json')), { code: 'BAD_KEY_FILE', message: /not valid JSON/ });
});

t.test('hex fields are lowercase hex of the right length', async (t) => {
  const k = generateValidatorKey('testnet');
  const json = keyFileToJson(k);
  t.equal(json.secret_key, toHex(k.seed));
  t.match(json.bls_public_key, /^[0-9a-f]{96}$/);
});
