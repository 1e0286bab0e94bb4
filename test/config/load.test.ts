import t from 'tap';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../node/config/load.js';

t.test('reads <dataDir>/config.json when present', async (t) => {
  const cwd = t.testdir({ data: { 'config.json': JSON.stringify({ rpc: { port: 9000 } }) } });
  const { config, configPath } = loadConfig({ flags: {}, env: {}, cwd });
  t.equal(config.dataDir, join(cwd, 'data'), 'dataDir is made absolute from cwd');
  t.equal(config.rpc.port, 9000);
  t.equal(configPath, join(cwd, 'data', 'config.json'));
});

t.test('no config file is fine', async (t) => {
  const cwd = t.testdir({});
  const { config, configPath } = loadConfig({ flags: {}, env: {}, cwd });
  t.equal(configPath, undefined);
  t.equal(config.rpc.port, 8545);
});

t.test('the data dir from flags or env decides where config.json is looked for', async (t) => {
  const cwd = t.testdir({ a: { 'config.json': '{"rpc":{"port":1}}' }, b: { 'config.json': '{"rpc":{"port":2}}' } });
  t.equal(loadConfig({ flags: { 'data-dir': 'a' }, env: { LEDGER_DATA_DIR: 'b' }, cwd }).config.rpc.port, 1);
  t.equal(loadConfig({ flags: {}, env: { LEDGER_DATA_DIR: 'b' }, cwd }).config.rpc.port, 2);
});

t.test('--config names a file that must exist and replaces <dataDir>/config.json', async (t) => {
  const cwd = t.testdir({ data: { 'config.json': '{"rpc":{"port":1}}' }, 'other.json': '{"rpc":{"port":7}, "dataDir": "/srv/ledger"}' });
  const { config, configPath } = loadConfig({ flags: { config: 'other.json' }, env: {}, cwd });
  t.equal(config.rpc.port, 7);
  t.equal(config.dataDir, '/srv/ledger');
  t.equal(configPath, join(cwd, 'other.json'));
  t.throws(() => loadConfig({ flags: { config: 'missing.json' }, env: {}, cwd }), { code: 'BAD_CONFIG', message: /cannot read config file .*missing\.json/ });
  t.equal(loadConfig({ flags: {}, env: { LEDGER_CONFIG: 'other.json' }, cwd }).config.rpc.port, 7, 'LEDGER_CONFIG works like --config');
});

t.test('a config file that is not JSON is a precise error', async (t) => {
  const cwd = t.testdir({});
  mkdirSync(join(cwd, 'data'));
  writeFileSync(join(cwd, 'data', 'config.json'), '{ rpc: 1 }');
  t.throws(() => loadConfig({ flags: {}, env: {}, cwd }), { code: 'BAD_CONFIG', message: /config\.json is not valid JSON/ });
});
