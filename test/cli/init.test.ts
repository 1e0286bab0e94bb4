import t from 'tap';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_BALANCE, VALIDATOR_STAKE } from '../../node/cli/commands/init.js';
import { readKeyFile, readValidatorKeyFile } from '../../node/config/keyfile.js';
import { loadConfig } from '../../node/config/load.js';
import { formatAddress } from '../../node/protocol/address.js';
import { parseGenesis } from '../../node/protocol/genesis.js';
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
  t.notMatch(r.stdout, /secret/, 'no secret is printed');

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
