import t from 'tap';
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareDevnet } from '../../node/devnet/layout.js';
import { readKeyFile } from '../../node/config/keyfile.js';

t.test('a devnet layout: one genesis, a key and a config per node, ports offset per node', async (t) => {
  const dir = join(t.testdir({}), 'net');
  const layout = await prepareDevnet({ dir, validators: 3, rpcPort: 9100, p2pPort: 9200, plugins: ['explorer'] });
  t.equal(layout.reused, false);
  t.equal(layout.nodes.length, 3);
  const genesis = await readFile(join(dir, 'genesis', 'genesis.json'), 'utf8');
  for (const n of layout.nodes) {
    t.equal(await readFile(join(n.dir, 'genesis.json'), 'utf8'), genesis, `node ${n.index} shares the genesis`);
    const key = await readKeyFile(join(n.dir, 'keys', 'validator.json'));
    t.equal(key.address, n.address, `node ${n.index} runs validator ${n.index}`);
    t.equal(statSync(join(n.dir, 'keys', 'validator.json')).mode & 0o777, 0o600);
    const config = JSON.parse(await readFile(join(n.dir, 'config.json'), 'utf8'));
    t.same(config.rpc, { host: '127.0.0.1', port: 9100 + n.index });
    t.equal(config.p2p.port, 9200 + n.index);
    t.same(config.p2p.bootstrap, layout.nodes.filter((x) => x !== n).map((x) => `/ip4/127.0.0.1/tcp/${x.p2pPort}`), 'every other node as bootstrap');
    t.same(config.plugins.explorer, { enabled: true, host: '127.0.0.1', port: 8081 + 10 * n.index });
    t.equal(config.plugins.relay.enabled, false);
  }
  t.ok(existsSync(layout.devKeyFile), 'the funded dev key is there');

  const again = await prepareDevnet({ dir, validators: 3, rpcPort: 9300, p2pPort: 9400, plugins: [] });
  t.equal(again.reused, true, 'same size: reused, the chains resume');
  t.same(again.nodes.map((n) => n.address), layout.nodes.map((n) => n.address));
  t.equal(JSON.parse(await readFile(join(dir, 'node-1', 'config.json'), 'utf8')).rpc.port, 9301, 'ports follow the new flags');
  const bigger = await prepareDevnet({ dir, validators: 4, rpcPort: 9100, p2pPort: 9200, plugins: [] });
  t.equal(bigger.reused, false, 'another size: regenerated');
  t.notSame(bigger.nodes[0]!.address, layout.nodes[0]!.address);
  const reset = await prepareDevnet({ dir, validators: 4, rpcPort: 9100, p2pPort: 9200, plugins: [], reset: true });
  t.equal(reset.reused, false, '--reset regenerates');
  const short = await prepareDevnet({ dir, validators: 4, epochLength: 10, rpcPort: 9100, p2pPort: 9200, plugins: [] });
  t.equal(short.reused, false, 'another epoch length: regenerated');
  t.equal(JSON.parse(await readFile(join(dir, 'genesis', 'genesis.json'), 'utf8')).epoch_length, 10);
  t.equal((await prepareDevnet({ dir, validators: 4, epochLength: 10, rpcPort: 9100, p2pPort: 9200, plugins: [] })).reused, true, 'the same: reused');
});
