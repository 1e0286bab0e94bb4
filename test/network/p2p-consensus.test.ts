import t from 'tap';
import { BlsQuorumCrypto } from '../../node/consensus/crypto.js';
import { ConsensusEngine } from '../../node/consensus/engine.js';
import { MemoryConsensusStore } from '../../node/consensus/store.js';
import { createLogger } from '../../node/logging.js';
import { P2PNetwork } from '../../node/network/index.js';
import { assertNoFork, CHAIN, FAST, genesisBlock, makeValidators, TestApp, transfer, waitFor } from '../consensus/harness.js';

const log = createLogger({ level: 'silent' });

t.test('three consensus engines commit the same blocks over real libp2p', async (t) => {
  const validators = makeValidators(3);
  const genesis = genesisBlock();
  const nets: P2PNetwork[] = [];
  const engines: ConsensusEngine[] = [];
  const apps: TestApp[] = [];
  const dropped: unknown[] = [];
  const faults: unknown[] = [];
  t.teardown(async () => {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(nets.map((n) => n.stop()));
  });
  for (let i = 0; i < 3; i++) {
    // the harness derives validator i from the seed filled with i + 1: the same key is the peer identity
    const seed = new Uint8Array(32).fill(i + 1);
    const bootstrap = nets.map((n) => n.listenAddrs()[0]!);
    const net = await P2PNetwork.create({ chainId: CHAIN, seed, host: '127.0.0.1', port: 0, bootstrap, log });
    nets.push(net);
    const v = validators[i]!;
    const app = new TestApp(genesis, { sets: () => validators.map((x) => x.validator) });
    apps.push(app);
    const engine = new ConsensusEngine({
      chainId: CHAIN,
      self: { address: v.address, crypto: new BlsQuorumCrypto(v.blsSecret) },
      app,
      transport: net.consensus,
      store: new MemoryConsensusStore(),
      genesis,
      committedHead: app.head,
      pacemaker: FAST,
      idleBlockIntervalMs: 50,
    });
    engine.on('fault', (err: unknown) => faults.push(err));
    engine.on('dropped', (e: { reason: string; from?: Uint8Array }) => {
      dropped.push(e.reason);
      if (e.from) net.penalize(e.from, `consensus:${e.reason}`);
    });
    engines.push(engine);
  }
  await waitFor(() => nets.every((n) => n.peerCount() === 2), 10_000, 'a full mesh');
  await Promise.all(engines.map((e) => e.start()));
  apps[1]!.submit(transfer(0));
  await waitFor(() => apps.every((a) => a.committed.length >= 6), 30_000, '6 commits everywhere');
  await Promise.all(engines.map((e) => e.stop()));
  assertNoFork(apps);
  t.same(apps[0]!.committed.slice(0, 6).map((b) => b.header.height), [1, 2, 3, 4, 5, 6], 'contiguous heights');
  t.ok(apps[0]!.committed.some((b) => b.transactions.length === 1), 'the transaction was committed');
  t.same(faults, []);
  t.equal(nets.reduce((n, x) => n + x.stats().bans, 0), 0, 'nobody was banned');
  t.same(nets.map((n) => n.stats().dropped['undecodable-consensus'] ?? 0), [0, 0, 0]);
});
