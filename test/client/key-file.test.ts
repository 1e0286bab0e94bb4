import t from 'tap';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadKeyFile } from '../../node/client/core.js';
import { generateAccountKey, generateValidatorKey, keyFileToJson, writeKeyFile } from '../../node/config/keyfile.js';

// the CLI's `keys new` and `init` write key files with writeKeyFile
t.test('loadKeyFile reads what the CLI writes: an account key and a validator key', async (t) => {
  const dir = t.testdir();
  const account = generateAccountKey('testnet');
  const validator = generateValidatorKey('testnet');
  await writeKeyFile(join(dir, 'keys/alice.json'), account);
  await writeKeyFile(join(dir, 'keys/validator.json'), validator);
  t.same(await loadKeyFile(join(dir, 'keys/alice.json')), account);
  t.same(await loadKeyFile(join(dir, 'keys/validator.json')), validator);
});

t.test('loadKeyFile refuses a malformed file, naming the file and the fault', async (t) => {
  const json = keyFileToJson(generateAccountKey('testnet'));
  const other = generateAccountKey('testnet');
  const dir = t.testdir({
    'not-json.json': '{"type": "ed25519",',
    'wrong-address.json': JSON.stringify({ ...json, address: other.address }),
    'short-seed.json': JSON.stringify({ ...json, secret_key: 'ab' }),
    'extra.json': JSON.stringify({ ...json, mnemonic: 'x' }),
  });
  const cases: Array<[string, RegExp]> = [
    ['not-json.json', /not-json\.json: not valid JSON/],
    ['wrong-address.json', /wrong-address\.json: address \S+ does not match the public key/],
    ['short-seed.json', /short-seed\.json: .*secret_key/],
    ['extra.json', /extra\.json: unknown field "mnemonic"/],
  ];
  for (const [name, message] of cases) {
    await chmod(join(dir, name), 0o600);
    await t.rejects(loadKeyFile(join(dir, name)), { name: 'LedgerError', code: 'BAD_KEY_FILE', message }, name);
  }
  await t.rejects(loadKeyFile(join(dir, 'missing.json')), { code: 'KEY_FILE_UNREADABLE', message: /missing\.json: no such file/ });
});

t.test('loadKeyFile refuses a key file that group or others can access, as the CLI never writes one', { skip: process.platform === 'win32' && 'POSIX modes' }, async (t) => {
  const dir = t.testdir();
  const file = join(dir, 'alice.json');
  const key = generateAccountKey('testnet');
  await writeFile(file, JSON.stringify(keyFileToJson(key)));
  for (const mode of [0o644, 0o640, 0o604, 0o660, 0o602]) {
    await chmod(file, mode);
    const octal = mode.toString(8).padStart(4, '0');
    await t.rejects(loadKeyFile(file), { code: 'KEY_FILE_PERMISSIONS', data: { mode: octal }, message: new RegExp(`has mode ${octal}: .*chmod 600`) }, octal);
  }
  for (const mode of [0o600, 0o400]) {
    await chmod(file, mode);
    t.same(await loadKeyFile(file), key, `mode ${mode.toString(8)} is private`);
  }
});
