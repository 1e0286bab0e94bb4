import t, { type Test } from 'tap';
import { resolveConfig } from '../../node/config/resolve.js';
import { defaultConfig } from '../../node/config/schema.js';
import { isLedgerError } from '../../node/errors.js';
import { defaultVerifyThreads } from '../../node/rpc/verification/pool.js';

const file = (value: unknown) => ({ path: '/etc/ledger.json', value });

function badConfig(t: Test, fn: () => unknown, key: string, pattern: RegExp): void {
  try {
    fn();
    t.fail(`expected BAD_CONFIG for ${key}`);
  } catch (err) {
    t.ok(isLedgerError(err), 'a LedgerError');
    if (!isLedgerError(err)) return;
    t.equal(err.code, 'BAD_CONFIG');
    t.equal(err.data.key, key, 'names the key');
    t.match(err.message, pattern);
  }
}

t.test('defaults match the architecture table', async (t) => {
  const c = resolveConfig({ env: {}, flags: {} });
  t.same(c, defaultConfig());
  t.equal(c.dataDir, './data');
  t.same(c.rpc, {
    host: '127.0.0.1',
    port: 8545,
    maxBodyBytes: 1024 * 1024,
    maxConnections: 1024,
    maxConnectionsPerIp: 256,
    maxBatch: 100,
    maxInFlight: 256,
    maxEventLoopLagMs: 500,
    retryAfterMs: 1000,
    verifyThreads: defaultVerifyThreads(),
    verifyMaxQueuedCost: 12_000,
    bbsBatchWindowMs: 20,
    maxBatchCost: 6_000,
  });
  t.equal(c.p2p.port, 30333);
  t.same([c.plugins.explorer.port, c.plugins.relay.port, c.plugins.kyc.port, c.plugins.wallet.port], [8081, 8082, 8083, 8084]);
  t.same([c.plugins.explorer, c.plugins.relay, c.plugins.kyc, c.plugins.wallet].map((p) => [p.maxConnections, p.maxConnectionsPerIp]), [[2048, 256], [10_240, 256], [1024, 256], [1024, 256]]);
  t.equal(c.log.level, 'info');
  t.same(c.mempool, { maxTransactions: 50_000, maxBytes: 64 * 1024 * 1024, maxPerSender: 1000, verifyThreads: 0 });
  t.same(c.consensus, { idleBlockIntervalMs: 1000, minBlockIntervalMs: 25, fullBlockTransactions: 1000, roundTimeoutMs: 2000, maxBlockTransactions: 5000 });
  t.same(c.verification, { standbyDelayMs: 1500, answerWindowMs: 100, backlogBusy: 32 });
  t.equal(c.rpcAllowSubjectEnumeration, false);
});

t.test('precedence: defaults < file < env < flags', async (t) => {
  const f = file({ rpc: { port: 1111, host: '10.0.0.1' }, log: { level: 'debug' }, p2p: { port: 2222 } });
  const fileOnly = resolveConfig({ file: f, env: {}, flags: {} });
  t.equal(fileOnly.rpc.port, 1111);
  t.equal(fileOnly.rpc.host, '10.0.0.1');
  t.equal(fileOnly.rpc.maxBatch, 100, 'untouched keys keep their defaults');

  const withEnv = resolveConfig({ file: f, env: { LEDGER_RPC_PORT: '3333', LEDGER_LOG_LEVEL: 'warn' }, flags: {} });
  t.equal(withEnv.rpc.port, 3333);
  t.equal(withEnv.log.level, 'warn');
  t.equal(withEnv.p2p.port, 2222, 'the file still wins over defaults');

  const withFlags = resolveConfig({ file: f, env: { LEDGER_RPC_PORT: '3333', LEDGER_LOG_LEVEL: 'warn' }, flags: { 'rpc-port': '4444' } });
  t.equal(withFlags.rpc.port, 4444);
  t.equal(withFlags.log.level, 'warn');
  t.equal(withFlags.rpc.host, '10.0.0.1');

  const dataDir = resolveConfig({ env: { LEDGER_DATA_DIR: '/env' }, flags: { 'data-dir': '/flag' } });
  t.equal(dataDir.dataDir, '/flag');
  t.equal(resolveConfig({ env: { LEDGER_DATA_DIR: '/env' }, flags: {} }).dataDir, '/env');
  t.equal(resolveConfig({ env: { LEDGER_DATA_DIR: '' }, flags: {} }).dataDir, './data', 'an empty env var is unset');
});

t.test('port 0 means ephemeral and is accepted', async (t) => {
  t.equal(resolveConfig({ env: { LEDGER_RPC_PORT: '0' }, flags: {} }).rpc.port, 0);
  t.equal(resolveConfig({ file: file({ plugins: { kyc: { port: 0 } } }), env: {}, flags: {} }).plugins.kyc.port, 0);
});

t.test('bootstrap peers and plugin switches', async (t) => {
  const c = resolveConfig({ env: { LEDGER_P2P_BOOTSTRAP: '/ip4/1.2.3.4/tcp/30333, /dns4/x.example/tcp/1' }, flags: {} });
  t.same(c.p2p.bootstrap, ['/ip4/1.2.3.4/tcp/30333', '/dns4/x.example/tcp/1']);
  t.same(resolveConfig({ env: {}, flags: { bootstrap: ['/ip4/5.6.7.8/tcp/1'] } }).p2p.bootstrap, ['/ip4/5.6.7.8/tcp/1']);

  const all = resolveConfig({ env: { LEDGER_PLUGINS: 'all' }, flags: {} });
  t.ok(Object.values(all.plugins).every((p) => p.enabled));
  const some = resolveConfig({ file: file({ plugins: { relay: { enabled: true } } }), env: { LEDGER_PLUGINS: 'all' }, flags: { plugins: 'explorer,wallet' } });
  t.same(
    Object.fromEntries(Object.entries(some.plugins).map(([k, v]) => [k, v.enabled])),
    { explorer: true, relay: false, kyc: false, wallet: true },
    'the list names exactly the enabled plugins',
  );
  t.notOk(Object.values(resolveConfig({ env: { LEDGER_PLUGINS: 'all' }, flags: { plugins: 'none' } }).plugins).some((p) => p.enabled));
  t.equal(resolveConfig({ env: { LEDGER_WALLET_PORT: '9000' }, flags: {} }).plugins.wallet.port, 9000);
});

t.test('plugin sections carry free-form options', async (t) => {
  const c = resolveConfig({ file: file({ plugins: { kyc: { enabled: true, provider: { name: 'x' }, maxSessions: 5 } } }), env: {}, flags: {} });
  t.same(c.plugins.kyc, { enabled: true, host: '127.0.0.1', port: 8083, maxConnections: 1024, maxConnectionsPerIp: 256, provider: { name: 'x' }, maxSessions: 5 });
  t.notOk('provider' in c.plugins.relay, 'options stay in their section');
});

t.test('subject enumeration only with exactly "1" in the environment', async (t) => {
  for (const v of ['1']) t.equal(resolveConfig({ env: { LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION: v }, flags: {} }).rpcAllowSubjectEnumeration, true);
  for (const v of ['', '0', 'true', 'yes', ' 1', '1 ', '01']) {
    t.equal(resolveConfig({ env: { LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION: v }, flags: {} }).rpcAllowSubjectEnumeration, false, JSON.stringify(v));
  }
  badConfig(t, () => resolveConfig({ file: file({ rpcAllowSubjectEnumeration: true }), env: {}, flags: {} }), 'rpcAllowSubjectEnumeration', /LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION=1/);
});

t.test('file validation names the key', async (t) => {
  const r = (value: unknown) => () => resolveConfig({ file: file(value), env: {}, flags: {} });
  badConfig(t, r({ rpc: { prot: 1 } }), 'rpc.prot', /config file \/etc\/ledger\.json: rpc\.prot is not a known config key/);
  badConfig(t, r({ colour: 'red' }), 'colour', /not a known config key/);
  badConfig(t, r({ plugins: { chat: {} } }), 'plugins.chat', /not a known config key/);
  badConfig(t, r({ rpc: { port: 65536 } }), 'rpc.port', /0-65535/);
  badConfig(t, r({ rpc: { port: -1 } }), 'rpc.port', /0-65535/);
  badConfig(t, r({ rpc: { port: '8545' } }), 'rpc.port', /got "8545"/);
  badConfig(t, r({ rpc: { port: 1.5 } }), 'rpc.port', /integer/);
  badConfig(t, r({ rpc: 5 }), 'rpc', /must be an object/);
  badConfig(t, r({ rpc: { maxBatchCost: 178 } }), 'rpc.maxBatchCost', /from 179 \(one proof over the largest credential\)/);
  badConfig(t, r({ rpc: { verifyThreads: 0 } }), 'rpc.verifyThreads', /from 1 to 64/);
  badConfig(t, r({ log: { level: 'verbose' } }), 'log.level', /trace, debug, info, warn, error, fatal, silent/);
  badConfig(t, r({ mempool: { maxTransactions: 0 } }), 'mempool.maxTransactions', /positive integer/);
  badConfig(t, r({ p2p: { bootstrap: ['1.2.3.4:30333'] } }), 'p2p.bootstrap', /multiaddr/);
  badConfig(t, r({ plugins: { explorer: { enabled: 'yes' } } }), 'plugins.explorer.enabled', /boolean/);
  badConfig(t, r({ dataDir: '' }), 'dataDir', /non-empty path/);
  badConfig(t, r({ verification: { backlogBusy: 0 } }), 'verification.backlogBusy', /from 1 to 100000/);
  badConfig(t, r({ rpc: { maxConnections: -1 } }), 'rpc.maxConnections', /from 0 \(no cap\) to 1000000/);
  badConfig(t, r({ plugins: { relay: { maxConnectionsPerIp: '100' } } }), 'plugins.relay.maxConnectionsPerIp', /integer number of connections/);
  t.equal(r({ plugins: { relay: { maxConnections: 0 } } })().plugins.relay.maxConnections, 0, '0: no cap');
  badConfig(t, r({ verification: { standbyDelayMs: 600_001 } }), 'verification.standbyDelayMs', /from 0 \(every member answers at once\) to 600000/);
  t.throws(r([1, 2]), /must hold a JSON object/);
});

t.test('env and flag validation names the variable or flag', async (t) => {
  badConfig(t, () => resolveConfig({ env: { LEDGER_RPC_PORT: 'http' }, flags: {} }), 'LEDGER_RPC_PORT', /^environment: LEDGER_RPC_PORT must be an integer port/);
  badConfig(t, () => resolveConfig({ env: { LEDGER_P2P_PORT: '70000' }, flags: {} }), 'LEDGER_P2P_PORT', /0-65535/);
  badConfig(t, () => resolveConfig({ env: {}, flags: { 'log-level': 'loud' } }), '--log-level', /^flags: --log-level must be one of/);
  badConfig(t, () => resolveConfig({ env: {}, flags: { plugins: 'explorer,chat' } }), '--plugins', /unknown plugin "chat"/);
  badConfig(t, () => resolveConfig({ env: { LEDGER_PLUGINS: 'kyc,foo' }, flags: {} }), 'LEDGER_PLUGINS', /unknown plugin "foo"/);
});

t.test('attestation.auto: on by default; file, env and flag turn it off; anything but a boolean is refused', async (t) => {
  t.equal(resolveConfig({ env: {}, flags: {} }).attestation.auto, true);
  t.equal(resolveConfig({ file: file({ attestation: { auto: false } }), env: {}, flags: {} }).attestation.auto, false);
  t.equal(resolveConfig({ env: { LEDGER_ATTESTATION_AUTO: 'false' }, flags: {} }).attestation.auto, false);
  t.equal(resolveConfig({ env: { LEDGER_ATTESTATION_AUTO: 'false' }, flags: { 'attestation-auto': 'true' } }).attestation.auto, true, 'the flag wins');
  badConfig(t, () => resolveConfig({ env: { LEDGER_ATTESTATION_AUTO: 'maybe' }, flags: {} }), 'LEDGER_ATTESTATION_AUTO', /boolean/);
});
