import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { serviceKeyPath } from '../../node/config/datadir.js';
import { generateAccountKey, writeKeyFile } from '../../node/config/keyfile.js';
import { openServiceKeyFile, writeServiceKeyFile } from '../../node/config/service-key-file.js';
import type { ServiceKeySecret } from '../../node/config/service-key-secret.js';
import { createLogger } from '../../node/logging.js';
import { HeadSignal } from '../../node/plugins/block-stream.js';
import { PluginHost } from '../../node/plugins/host.js';
import type { Plugin, PluginContext } from '../../node/plugins/types.js';
import { openDatabase } from '../../node/state/db.js';
import { CHAIN, setup } from '../rpc/ledger/harness.js';
import { foundIn, testSecret } from './common/secrets/fixtures.js';

/** ctx.serviceKey(): the plugin's service key file, sealed under the service-key secret; an older plaintext one sealed at start. */

const section = { enabled: true, host: '127.0.0.1', port: 0 };

/** A host over `dataDir`, handed `secret` as `ledger start` hands it, logging to a file the test reads. */
async function hostOver(t: Test, dataDir: string, secret: ServiceKeySecret) {
  const node = await setup(t, { blocks: true });
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const logFile = join(dataDir, 'node.log');
  const log = createLogger({ level: 'info', destination: logFile });
  const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db, mempool: node.mempool, head: new HeadSignal(), metrics: new Registry(), log, dataDir, serviceKeySecret: secret });
  t.teardown(() => host.stop());
  const logLines = () => readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return { host, logLines };
}

/** A plugin that keeps its context; with `adopt`, it asks for its service key in start(), as the KYC and wallet plugins do on first start. */
function plugin(name: string, o: { adopt?: boolean } = {}): Plugin & { ctx?: PluginContext; seed?: Uint8Array } {
  const p: Plugin & { ctx?: PluginContext; seed?: Uint8Array } = {
    name,
    async start(ctx) {
      p.ctx = ctx;
      if (o.adopt) p.seed = await ctx.serviceKey();
    },
    async stop() {},
  };
  return p;
}

t.test('a plaintext service key file from an older init is sealed in place at start, and the plugin gets the same seed', async (t) => {
  const dataDir = t.testdir({});
  const secret = await testSecret();
  const key = generateAccountKey('testnet');
  const file = serviceKeyPath(dataDir, 'alpha');
  await writeKeyFile(file, key);
  const { host, logLines } = await hostOver(t, dataDir, secret);
  const alpha = plugin('alpha');
  t.match(await host.start([alpha], { alpha: section }), [{ name: 'alpha', state: 'running' }]);

  t.same(foundIn(readFileSync(file), key.seed), [], 'sealed before the plugin started: the seed is in the file in no form');
  t.same(await openServiceKeyFile(file, 'alpha', secret), { key, sealed: true });
  t.same(await alpha.ctx!.serviceKey(), key.seed, 'the same seed');
  t.match(
    logLines().filter((l) => l.file === file),
    [{ level: 30, plugin: 'alpha', file, service_key_secret: 'the environment variable LEDGER_SERVICE_KEY_SECRET', msg: 'the service key file held its seed in plaintext: it is now encrypted under the service-key secret' }],
    'one info line names the file',
  );
});

t.test('a sealed file opens with the secret; under another it is SERVICE_KEY_SECRET_WRONG naming the file, never a fresh key', async (t) => {
  const dataDir = t.testdir({});
  const secret = await testSecret();
  const key = generateAccountKey('testnet');
  await writeServiceKeyFile(serviceKeyPath(dataDir, 'alpha'), 'alpha', key, secret);
  const right = await hostOver(t, dataDir, secret);
  const alpha = plugin('alpha', { adopt: true });
  const none = plugin('beta', { adopt: true });
  t.match(await right.host.start([alpha, none], { alpha: section, beta: section }), [{ state: 'running' }, { state: 'running' }]);
  t.same(alpha.seed, key.seed);
  t.equal(none.seed, undefined, 'a plugin whose file does not exist gets none');
  await right.host.stop();

  const before = readFileSync(serviceKeyPath(dataDir, 'alpha'), 'utf8');
  const wrong = await hostOver(t, dataDir, await testSecret('another-secret-of-some-length'));
  const again = plugin('alpha', { adopt: true });
  const [state] = await wrong.host.start([again], { alpha: section });
  t.match(state, { name: 'alpha', state: 'failed', error: `the service key file ${serviceKeyPath(dataDir, 'alpha')} does not open as the alpha plugin's with the service-key secret from the environment variable LEDGER_SERVICE_KEY_SECRET` });
  t.equal(again.seed, undefined);
  t.equal(readFileSync(serviceKeyPath(dataDir, 'alpha'), 'utf8'), before, 'the file is left as it was');
});
