import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../../../../node/cli/package-root.js';
import { failing, notConfigured, ok, summarize, type HealthChecks } from '../../../../../plugins/common/health.js';
import { buildInfoFile, MAX_INDEX_LAG, mountHealth, PRICE_PROBE_MS, readBuildInfo, UNKNOWN_BUILD, walletChecks, type WalletParts } from '../../../../../plugins/wallet/http/routes/health.js';
import { PriceFeed } from '../../../../../plugins/wallet/market/prices.js';
import { json, upstream } from '../../market/upstream-server.js';
import { startWallet } from '../../harness.js';

/**
 * GET /health and /v1/health without a session: ok, with warnings for the parts left unset, or
 * degraded when a configured part fails (walletChecks); and the build that `npm run build`
 * recorded (scripts/write-build-info.mjs), or an honest "unknown" for code run from its sources.
 */

const run = promisify(execFile);
const script = join(packageRoot(), 'scripts', 'write-build-info.mjs');

t.test('the health answer', async (t) => {
  let checks: () => Promise<HealthChecks> = async () => ({ sponsor: ok('funds wallets') });
  const h = await startWallet(t, ({ router }) => mountHealth(router, { checks: () => checks(), build: { commit: 'abc123', builtAt: '2025-01-02T03:04:05.000Z' }, now: () => Date.parse('2025-06-01T00:00:00Z') }));

  for (const path of ['/health', '/v1/health']) {
    const res = await h.req('GET', path);
    t.equal(res.status, 200, `${path} needs no session`);
    t.same(res.body, {
      status: 'ok',
      service: 'wallet',
      build: { commit: 'abc123', builtAt: '2025-01-02T03:04:05.000Z' },
      timestamp: '2025-06-01T00:00:00.000Z',
      checks: { sponsor: { status: 'ok', detail: 'funds wallets' } },
      warnings: [],
    });
  }
  checks = async () => ({ sponsor: ok('funds wallets'), prices: notConfigured('no price feed') });
  t.match((await h.req('GET', '/v1/health')).body, { status: 'ok', warnings: ['no price feed'] }, 'a part left unset is a warning');
  checks = async () => ({ sponsor: failing('the sponsor has no funds'), prices: notConfigured('no price feed') });
  t.match((await h.req('GET', '/v1/health')).body, { status: 'degraded', warnings: ['the sponsor has no funds', 'no price feed'] });
  checks = async () => {
    throw new Error('store closed\nsecond line');
  };
  const failed = await h.req('GET', '/v1/health');
  t.equal(failed.status, 200, 'a failing check is reported, not an error');
  t.match(failed.body, { status: 'degraded', checks: { health: { status: 'failing' } }, warnings: ['the health checks themselves failed: store closed second line'] });
  t.equal((await h.req('POST', '/v1/health')).status, 405);
});

const FUND = 1000n;

function parts(over: Partial<WalletParts> = {}): WalletParts {
  return {
    sponsor: { perHour: 60, fundAmount: FUND, status: async () => ({ address: 'Spons', balance: '5000' }) },
    indexLag: async () => 0,
    internalSecret: false,
    prices: new PriceFeed({ url: undefined }),
    chains: { eth: undefined, btc: undefined },
    mail: 'outbox',
    now: Date.now,
    ...over,
  };
}

t.test('the wallet checks: the defaults are ok, configured parts that fail are failing', async (t) => {
  const fresh = await walletChecks(parts())();
  t.same(Object.keys(fresh), ['sponsor', 'history', 'prices', 'eth', 'btc', 'internalSecret', 'mail']);
  t.match(fresh, {
    sponsor: { status: 'ok', detail: /Spons funds new wallets/ },
    history: { status: 'ok' },
    prices: { status: 'not_configured', detail: /plugins\.wallet\.prices\.url/ },
    eth: { status: 'not_configured', detail: /plugins\.wallet\.chains\.eth/ },
    btc: { status: 'not_configured', detail: /plugins\.wallet\.chains\.btc/ },
    internalSecret: { status: 'not_configured', detail: /plugins\.wallet\.internalSecret/ },
    mail: { status: 'not_configured', detail: /plugins\.wallet\.email\.smtpUrl/ },
  });
  t.equal(summarize(fresh).status, 'ok');

  const set = await walletChecks(parts({ internalSecret: true, mail: 'smtp', chains: { eth: 'https://eth.example/rpc?key=secret', btc: 'https://esplora.example' } }))();
  t.match(set, { internalSecret: { status: 'ok' }, mail: { status: 'ok' }, eth: { status: 'ok', detail: 'eth balances come from eth.example' }, btc: { status: 'ok' } });
  t.notMatch(set.eth!.detail, /secret/, 'only the host of an adapter URL is shown');

  const broken = await walletChecks(parts({ sponsor: { perHour: 60, fundAmount: FUND, status: async () => ({ address: 'Spons', balance: '999' }) }, indexLag: async () => MAX_INDEX_LAG + 1 }))();
  t.match(broken, { sponsor: { status: 'failing', detail: /Spons cannot fund new wallets/ }, history: { status: 'failing', detail: `the transaction history is ${MAX_INDEX_LAG + 1} blocks behind the chain` } });
  const off = await walletChecks(parts({ sponsor: { perHour: 0, fundAmount: FUND, status: async () => ({ address: 'Spons', balance: '0' }) } }))();
  t.match(off.sponsor, { status: 'not_configured', detail: /perHour is 0/ }, 'a sponsor turned off is not a broken one');
});

t.test('a configured price feed is asked, at most once per period', async (t) => {
  let answering = true;
  const api = await upstream(t, (call, res) => {
    if (!answering) return json(res, 503, { error: 'down' });
    const coin = /\/coins\/([^/]+)\//.exec(call.url)?.[1];
    if (coin === 'ledger-lgr') return json(res, 404, { error: 'coin not found' });
    json(res, 200, { prices: [[Date.parse('2025-06-01T00:00:00Z'), 100]] });
  });
  let now = Date.parse('2025-06-01T00:00:00Z');
  const checks = walletChecks(parts({ prices: new PriceFeed({ url: api.origin, cacheSeconds: 1, now: () => now }), now: () => now }));
  const host = api.origin.slice('http://'.length);
  const up = (await checks()).prices!;
  t.equal(up.status, 'ok');
  t.match(up.detail, new RegExp(`^the price feed at ${host} answers, but not for every asset \\(lgr: `));
  const asked = api.calls.length;
  t.equal(asked, 3, 'one series per asset');
  answering = false;
  now += PRICE_PROBE_MS - 1;
  t.equal((await checks()).prices!.status, 'ok', 'the answer stands for the period');
  t.equal(api.calls.length, asked);
  now += 1;
  const down = await checks();
  t.match(down.prices, { status: 'failing', detail: new RegExp(`^the price feed at ${host} does not answer \\(lgr: .*; eth: .*; btc: `) });
  t.equal(summarize(down).status, 'degraded', 'a configured feed that does not answer degrades the service');
});

t.test('build info: the recorded file, or unknown', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-build-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  t.equal(buildInfoFile(), null, 'code run from its sources (tsx) has no build');
  t.same(readBuildInfo(null), UNKNOWN_BUILD);
  t.same(readBuildInfo(join(dir, 'missing.json')), { commit: 'unknown', builtAt: null });
  await writeFile(join(dir, 'bad.json'), 'not json');
  t.same(readBuildInfo(join(dir, 'bad.json')), UNKNOWN_BUILD);
  await writeFile(join(dir, 'odd.json'), JSON.stringify({ commit: 'a b <script>', builtAt: 'yesterday' }));
  t.same(readBuildInfo(join(dir, 'odd.json')), { commit: 'unknown', builtAt: null }, 'values that are not ours are not repeated');

  const file = join(dir, 'build-info.json');
  const before = Date.now();
  const written = await run(process.execPath, [script, file], { env: { ...process.env, LEDGER_BUILD_COMMIT: '' } });
  const after = Date.now();
  t.match(written.stdout, /^build info: commit /);
  const info = JSON.parse(await readFile(file, 'utf8')) as { commit: string; builtAt: string };
  const checkout = existsSync(join(packageRoot(), '.git'));
  t.match(info, { commit: checkout ? /^[0-9a-f]{40}$/ : 'unknown', builtAt: /^\d{4}-\d\d-\d\dT.*Z$/ });
  t.ok(Date.parse(info.builtAt) >= before && Date.parse(info.builtAt) <= after, 'stamped while the script ran');
  t.same(readBuildInfo(file), info, 'the route reads what the build wrote');

  // no git on the PATH (a Docker build): the commit comes from the environment, else "unknown"
  await run(process.execPath, [script, file], { env: { PATH: '', LEDGER_BUILD_COMMIT: 'deadbeef1234' } });
  t.match(JSON.parse(await readFile(file, 'utf8')), { commit: 'deadbeef1234' });
  const bare = await run(process.execPath, [script, join(dir, 'sub', 'dir', 'build-info.json')], { env: { PATH: '' } });
  t.equal(bare.stderr, '', 'no git is not an error');
  t.match(JSON.parse(await readFile(join(dir, 'sub', 'dir', 'build-info.json'), 'utf8')), { commit: 'unknown', builtAt: /Z$/ });
});
