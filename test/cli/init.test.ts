import t from 'tap';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_BALANCE, VALIDATOR_STAKE } from '../../node/cli/commands/init.js';
import { serviceKeyPath, serviceKeySecretPath } from '../../node/config/datadir.js';
import { readKeyFile, readValidatorKeyFile } from '../../node/config/keyfile.js';
import { loadConfig } from '../../node/config/load.js';
import { openServiceKeyFile, readServiceKeyPublic } from '../../node/config/service-key-file.js';
import { readSecretFile, writeSecretFile } from '../../node/config/service-key-secret.js';
import { formatAddress } from '../../node/protocol/address.js';
import { parseGenesis } from '../../node/protocol/genesis.js';
import { foundIn, testSecret } from '../plugins/common/secrets/fixtures.js';
import { runLedger } from './fixtures/io.js';

const mode = (p: string) => statSync(p).mode & 0o777;

t.test('init writes genesis, keys and config and prints a summary', async (t) => {
  const cwd = t.testdir({});
  const r = await runLedger(['init'], { cwd });
  t.equal(r.code, 0, r.stderr);
  const s = r.json();
  const dataDir = join(cwd, 'data');
  t.equal(s.data_dir, dataDir);
  t.equal(s.chain_id, 'ledger-testnet-1');
  t.equal(s.network, 'testnet');
  t.equal(s.genesis_file, join(dataDir, 'genesis.json'));
  t.equal(s.config_file, join(dataDir, 'config.json'));
  t.equal(s.validators.length, 1);
  t.equal(s.validators[0].key_file, join(dataDir, 'keys', 'validator.json'));
  t.equal(s.dev_account.key_file, join(dataDir, 'keys', 'dev.json'));
  t.equal(s.dev_account.balance, '20000000000');
  t.notMatch(r.stdout, /secret_key/, 'no secret is printed');

  const genesis = parseGenesis(JSON.parse(readFileSync(s.genesis_file, 'utf8')));
  t.equal(genesis.validators.length, 1);
  t.equal(formatAddress(genesis.validators[0]!.address), s.validators[0].address);
  t.equal(genesis.validators[0]!.stake, VALIDATOR_STAKE);
  const dev = genesis.accounts.find((a) => formatAddress(a.address) === s.dev_account.address);
  t.equal(dev?.balance, DEV_BALANCE);
  t.ok(genesis.genesisTimeMs > 1_600_000_000_000, 'the genesis time is set at init');

  const vkey = await readValidatorKeyFile(s.validators[0].key_file);
  t.same(vkey.blsPublicKey, genesis.validators[0]!.blsPublicKey, 'the validator key file holds the genesis BLS key');
  const dkey = await readKeyFile(s.dev_account.key_file);
  t.equal(dkey.did, s.dev_account.did);
  t.same([vkey.seed, vkey.blsSecretKey, dkey.seed].flatMap((secret) => foundIn(Buffer.from(r.stdout), secret)), [], 'nor any key');
  t.equal(mode(join(dataDir, 'keys')), 0o700);
  t.equal(mode(s.validators[0].key_file), 0o600);
  t.equal(mode(s.dev_account.key_file), 0o600);

  const { config } = loadConfig({ flags: {}, env: {}, cwd });
  t.ok(Object.values(config.plugins).every((p) => p.enabled), 'the written config turns every plugin on');
});

t.test('init refuses to re-initialize without --force; --force replaces the chain', async (t) => {
  const cwd = t.testdir({});
  const first = (await runLedger(['init', '--data-dir', 'd'], { cwd })).json();
  const again = await runLedger(['init', '--data-dir', 'd'], { cwd });
  t.equal(again.code, 1);
  t.match(again.stderr, /genesis\.json already exists; refusing to re-initialize \(use --force/);
  t.equal((await readKeyFile(first.dev_account.key_file)).address, first.dev_account.address, 'nothing was touched');

  mkdirSync(join(cwd, 'd', 'chain'));
  writeFileSync(join(cwd, 'd', 'config.json'), '{"rpc":{"port":9999}}');
  const forced = await runLedger(['init', '--data-dir', 'd', '--force'], { cwd });
  t.equal(forced.code, 0, forced.stderr);
  const s = forced.json();
  t.not(s.dev_account.address, first.dev_account.address, 'fresh keys');
  t.equal(s.chain_db_removed, true);
  t.notOk(existsSync(join(cwd, 'd', 'chain')));
  t.equal(s.config_file, null, 'an existing config.json is kept');
  t.equal(readFileSync(join(cwd, 'd', 'config.json'), 'utf8'), '{"rpc":{"port":9999}}');
  t.equal(mode(s.dev_account.key_file), 0o600);
});

t.test('init with several validators, another network and the env data dir', async (t) => {
  const cwd = t.testdir({});
  const r = await runLedger(['init', '--validators', '3', '--network', 'devnet'], { cwd, env: { LEDGER_DATA_DIR: 'env-dir' } });
  t.equal(r.code, 0, r.stderr);
  const s = r.json();
  t.equal(s.chain_id, 'ledger-devnet-1');
  t.same(
    s.validators.map((v: { key_file: string }) => v.key_file),
    ['validator.json', 'validator-1.json', 'validator-2.json'].map((f) => join(cwd, 'env-dir', 'keys', f)),
  );
  t.match(s.dev_account.did, /^did:ledger:devnet:/);
  const genesis = parseGenesis(JSON.parse(readFileSync(s.genesis_file, 'utf8')));
  t.equal(genesis.validators.length, 3);
  t.equal(genesis.network, 'devnet');
  t.equal(genesis.epochLength, 100, 'the default epoch length');

  const short = await runLedger(['init', '--epoch-length', '20', '--data-dir', 'short'], { cwd });
  t.equal(short.code, 0, short.stderr);
  t.equal(parseGenesis(JSON.parse(readFileSync(short.json().genesis_file, 'utf8'))).epochLength, 20, '--epoch-length sets it');
  const tooShort = await runLedger(['init', '--epoch-length', '9', '--data-dir', 'tiny'], { cwd });
  t.equal(tooShort.code, 2);
  t.match(tooShort.stderr, /--epoch-length/);

  const bad = await runLedger(['init', '--network', 'Dev-Net', '--data-dir', 'x'], { cwd });
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--network must be/);
  t.notOk(existsSync(join(cwd, 'x', 'genesis.json')));
});

t.test('init refuses to overwrite a stray key file before writing anything', async (t) => {
  const cwd = t.testdir({ data: { keys: { 'dev.json': '{}' } } });
  const r = await runLedger(['init'], { cwd });
  t.equal(r.code, 1);
  t.match(r.stderr, /dev\.json already exists; refusing to overwrite it/);
  t.notOk(existsSync(join(cwd, 'data', 'keys', 'validator.json')));
  t.notOk(existsSync(join(cwd, 'data', 'genesis.json')));
});

t.test('init seals the service key files under the service-key secret, made in the data directory when none is configured', async (t) => {
  const cwd = t.testdir({});
  const r = await runLedger(['init'], { cwd });
  t.equal(r.code, 0, r.stderr);
  const s = r.json();
  const dataDir = join(cwd, 'data');
  const secretFile = serviceKeySecretPath(dataDir);
  t.equal(s.service_key_secret, `the file ${secretFile}`);
  t.match(r.stderr, /no service-key secret is configured: made one in the data directory/);
  t.equal(mode(secretFile), 0o600);
  t.equal(mode(join(dataDir, 'secrets')), 0o700);
  const secret = await readSecretFile(secretFile, 'data-dir');
  t.notOk(r.stdout.includes(readFileSync(secretFile, 'utf8').trim()), 'the secret is not printed');
  for (const plugin of ['kyc', 'wallet']) {
    const file = serviceKeyPath(dataDir, plugin);
    t.same(s.service_accounts.find((a: { plugin: string }) => a.plugin === plugin).key_file, file);
    t.equal(mode(file), 0o600);
    const { key, sealed } = await openServiceKeyFile(file, plugin, secret);
    t.ok(sealed, `${plugin}: sealed`);
    t.equal(key.address, s.service_accounts.find((a: { plugin: string }) => a.plugin === plugin).address, `${plugin}: the account funded at genesis`);
    t.same(foundIn(readFileSync(file), key.seed), [], `${plugin}: the file holds the seed in no form`);
    t.equal((await readServiceKeyPublic(file)).did, key.did, `${plugin}: its public fields are readable without the secret`);
    await t.rejects(openServiceKeyFile(file, plugin, await testSecret('another-secret-of-some-length')), { code: 'SERVICE_KEY_SECRET_WRONG' }, `${plugin}: another secret does not open it`);
  }

  const again = await runLedger(['init', '--force'], { cwd });
  t.equal(again.code, 0, again.stderr);
  t.notMatch(again.stderr, /made one/, 'a second init uses the secret the first made');
  t.ok((await openServiceKeyFile(serviceKeyPath(dataDir, 'kyc'), 'kyc', secret)).sealed);
});

t.test('init finds the secret as start does: the environment, then the configured file', async (t) => {
  const cwd = t.testdir({});
  const env = { LEDGER_SERVICE_KEY_SECRET: 'a-secret-from-the-environment' };
  const fromEnv = await runLedger(['init', '--data-dir', 'e'], { cwd, env });
  t.equal(fromEnv.code, 0, fromEnv.stderr);
  t.equal(fromEnv.json().service_key_secret, 'the environment variable LEDGER_SERVICE_KEY_SECRET');
  t.notOk(existsSync(serviceKeySecretPath(join(cwd, 'e'))), 'no secret file is made');
  t.ok((await openServiceKeyFile(serviceKeyPath(join(cwd, 'e'), 'kyc'), 'kyc', await testSecret(env.LEDGER_SERVICE_KEY_SECRET))).sealed);

  const file = join(cwd, 'elsewhere.secret');
  await writeSecretFile(file);
  const fromFlag = await runLedger(['init', '--data-dir', 'f', '--service-key-secret-file', 'elsewhere.secret'], { cwd });
  t.equal(fromFlag.code, 0, fromFlag.stderr);
  t.equal(fromFlag.json().service_key_secret, `the file ${file}`);
  t.ok((await openServiceKeyFile(serviceKeyPath(join(cwd, 'f'), 'wallet'), 'wallet', await readSecretFile(file))).sealed);
  const fromConfigEnv = await runLedger(['init', '--data-dir', 'g'], { cwd, env: { LEDGER_SERVICE_KEY_SECRET_FILE: file } });
  t.equal(fromConfigEnv.json().service_key_secret, `the file ${file}`, 'LEDGER_SERVICE_KEY_SECRET_FILE');

  chmodSync(file, 0o644);
  const open = await runLedger(['init', '--data-dir', 'h', '--service-key-secret-file', file], { cwd });
  t.equal(open.code, 1);
  t.equal(open.stderr, `ledger init: the service-key secret file ${file} has mode 0644: group or others have access to it; it must be private to its owner (chmod 600 ${file})\n`);
  t.notOk(existsSync(join(cwd, 'h', 'keys', 'validator.json')), 'refused before any key is written');
  t.notOk(existsSync(join(cwd, 'h', 'genesis.json')));
});
