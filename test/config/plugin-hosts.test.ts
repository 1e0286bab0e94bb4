import t, { type Test } from 'tap';
import { CONFIG_FLAGS } from '../../node/cli/commands/start.js';
import { parseCommandArgs } from '../../node/cli/io.js';
import { resolveConfig } from '../../node/config/resolve.js';
import { PLUGIN_NAMES } from '../../node/config/schema.js';
import { isLedgerError } from '../../node/errors.js';

/** `ledger start <argv>` as the CLI parses it (strict: an unknown flag is a usage error), then resolved. */
const start = (argv: string[], env: Record<string, string> = {}) => resolveConfig({ env, flags: parseCommandArgs('start', argv, CONFIG_FLAGS).values });

function badConfig(t: Test, fn: () => unknown, key: string, pattern: RegExp): void {
  try {
    fn();
    t.fail(`expected BAD_CONFIG for ${key}`);
  } catch (err) {
    t.ok(isLedgerError(err) && err.code === 'BAD_CONFIG', `${key}: BAD_CONFIG`);
    if (!isLedgerError(err)) return;
    t.equal(err.data.key, key, 'names the variable or flag');
    t.match(err.message, pattern);
  }
}

t.test('each plugin host: 127.0.0.1 by default, LEDGER_<NAME>_HOST sets it, --<name>-host wins', async (t) => {
  for (const name of PLUGIN_NAMES) {
    const env = `LEDGER_${name.toUpperCase()}_HOST`;
    t.equal(start([]).plugins[name].host, '127.0.0.1', `${name}: default`);
    const fromEnv = start([], { [env]: '0.0.0.0' });
    t.equal(fromEnv.plugins[name].host, '0.0.0.0', `${name}: ${env}`);
    t.same(PLUGIN_NAMES.filter((other) => other !== name).map((other) => fromEnv.plugins[other].host), ['127.0.0.1', '127.0.0.1', '127.0.0.1'], `${env} changes only ${name}`);
    t.equal(start([`--${name}-host`, '::'], { [env]: '0.0.0.0' }).plugins[name].host, '::', `${name}: the flag over the environment`);
    t.equal(start([`--${name}-host=localhost`]).plugins[name].host, 'localhost', `${name}: a host name`);
  }
});

t.test('the file sets a plugin host, the environment overrides it', async (t) => {
  const file = { path: '/etc/ledger.json', value: { plugins: { wallet: { host: '10.0.0.5' } } } };
  t.equal(resolveConfig({ file, env: {}, flags: {} }).plugins.wallet.host, '10.0.0.5');
  t.equal(resolveConfig({ file, env: { LEDGER_WALLET_HOST: '0.0.0.0' }, flags: {} }).plugins.wallet.host, '0.0.0.0');
});

t.test('a bad host is refused with the variable or flag and the rule', async (t) => {
  badConfig(t, () => start([], { LEDGER_EXPLORER_HOST: 'http://0.0.0.0' }), 'LEDGER_EXPLORER_HOST', /^environment: LEDGER_EXPLORER_HOST must be a host name or an IP address .*without port, scheme or brackets, got "http:\/\/0\.0\.0\.0"$/);
  badConfig(t, () => start(['--relay-host', '0.0.0.0:8082']), '--relay-host', /^flags: --relay-host must be a host name or an IP address/);
  badConfig(t, () => start(['--kyc-host', '[::1]']), '--kyc-host', /got "\[::1\]"/);
  badConfig(t, () => start(['--wallet-host', 'my host']), '--wallet-host', /got "my host"/);
  badConfig(t, () => start(['--rpc-host', '256.1.1.1:80']), '--rpc-host', /must be a host name or an IP address/);
  badConfig(
    t,
    () => resolveConfig({ file: { path: '/etc/ledger.json', value: { plugins: { explorer: { host: '-bad-' } } } }, env: {}, flags: {} }),
    'plugins.explorer.host',
    /^config file \/etc\/ledger\.json: plugins\.explorer\.host must be a host name/,
  );
  t.throws(() => start(['--explorer-host']), { name: 'UsageError' }, 'a host flag needs a value');
});

t.test('the scale-out URLs: config keys, LEDGER_* variables and flags, checked', async (t) => {
  const pg = 'postgres://u:p@db:5432/x';
  t.equal(start([], { LEDGER_RELAY_POSTGRES_URL: pg }).plugins.relay['postgresUrl'], pg);
  t.equal(start(['--relay-redis-url', 'redis://c:6379']).plugins.relay['redisUrl'], 'redis://c:6379');
  t.equal(start(['--explorer-postgres-url', pg], { LEDGER_EXPLORER_POSTGRES_URL: 'postgres://other/y' }).plugins.explorer['postgresUrl'], pg, 'the flag over the environment');
  t.equal(start([]).plugins.relay['postgresUrl'], undefined, 'unset by default');
  badConfig(t, () => start([], { LEDGER_RELAY_REDIS_URL: 'http://c' }), 'LEDGER_RELAY_REDIS_URL', /must be a redis:\/\/ URL/);
  badConfig(t, () => start(['--relay-postgres-url', 'not a url']), '--relay-postgres-url', /must be a postgres:\/\/ URL .*got a value that is not a URL$/);
  badConfig(t, () => start(['--relay-postgres-url', 'mysql://u:hunter2@db/x']), '--relay-postgres-url', /got "mysql:\/\/u:\*\*\*@db\/x"$/);
  badConfig(t, () => resolveConfig({ env: {}, flags: {}, file: { path: 'c.json', value: { plugins: { explorer: { postgresUrl: 5 } } } } }), 'plugins.explorer.postgresUrl', /must be a postgres:\/\/ URL/);
});
