import t from 'tap';
import { Registry } from 'prom-client';
import { createLogger } from '../../../node/logging.js';
import { HeadSignal } from '../../../node/plugins/block-stream.js';
import { PluginHost } from '../../../node/plugins/host.js';
import { openDatabase } from '../../../node/state/db.js';
import { createExplorer } from '../../../plugins/explorer/index.js';
import { CHAIN, setup } from '../../rpc/ledger/harness.js';
import { rawGet } from '../../fixtures/raw-http.js';

t.test('the explorer port routes on the path as sent: no walking out of /ws', async (t) => {
  const node = await setup(t, { blocks: true });
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db, mempool: node.mempool, head: new HeadSignal(), metrics: new Registry(), log: createLogger({ level: 'silent' }) });
  t.teardown(() => host.stop());
  const [state] = await host.start([createExplorer()], { explorer: { enabled: true, host: '127.0.0.1', port: 0 } });
  const port = Number(new URL((state as { url: string }).url).port);
  for (const target of ['/ws/../api/v1/blocks/latest', '/ws/%2e%2e/api/v1/blocks/latest', '/ws/%2E%2E%5Capi/v1/blocks', '/api/v1/./blocks']) {
    const res = await rawGet(port, target);
    t.equal(res.status, 400, target);
    t.match(JSON.parse(res.body), { status: 400 }, target);
  }
  t.equal((await rawGet(port, '/api/v1/blocks')).status, 200, 'the plain path still answers');
});
