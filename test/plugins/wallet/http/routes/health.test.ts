import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../../../../node/cli/package-root.js';
import { buildInfoFile, mountHealth, readBuildInfo, UNKNOWN_BUILD } from '../../../../../plugins/wallet/http/routes/health.js';
import { startWallet } from '../../harness.js';

/**
 * GET /health and /v1/health without a session: ok or degraded with the operator's warnings, and
 * the build that `npm run build` recorded (scripts/write-build-info.mjs), or an honest "unknown"
 * for code run from its sources.
 */

const run = promisify(execFile);
const script = join(packageRoot(), 'scripts', 'write-build-info.mjs');

t.test('the health answer', async (t) => {
  let warnings: () => Promise<string[]> = async () => [];
  const h = await startWallet(t, ({ router }) => mountHealth(router, { warnings: () => warnings(), build: { commit: 'abc123', builtAt: '2025-01-02T03:04:05.000Z' }, now: () => Date.parse('2025-06-01T00:00:00Z') }));

  for (const path of ['/health', '/v1/health']) {
    const res = await h.req('GET', path);
    t.equal(res.status, 200, `${path} needs no session`);
    t.same(res.body, { status: 'ok', service: 'wallet', build: { commit: 'abc123', builtAt: '2025-01-02T03:04:05.000Z' }, timestamp: '2025-06-01T00:00:00.000Z', warnings: [] });
  }
  warnings = async () => ['the sponsor has no funds'];
  t.match((await h.req('GET', '/v1/health')).body, { status: 'degraded', warnings: ['the sponsor has no funds'] });
  warnings = async () => {
    throw new Error('store closed\nsecond line');
  };
  const failed = await h.req('GET', '/v1/health');
  t.equal(failed.status, 200, 'a failing check is a warning, not an error');
  t.match(failed.body, { status: 'degraded', warnings: ['the health checks themselves failed: store closed second line'] });
  t.equal((await h.req('POST', '/v1/health')).status, 405);
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
  const written = await run(process.execPath, [script, file], { env: { ...process.env, LEDGER_BUILD_COMMIT: '' } });
  t.match(written.stdout, /^build info: commit /);
  const info = JSON.parse(await readFile(file, 'utf8')) as { commit: string; builtAt: string };
  const checkout = existsSync(join(packageRoot(), '.git'));
  t.match(info, { commit: checkout ? /^[0-9a-f]{40}$/ : 'unknown', builtAt: /^\d{4}-\d\d-\d\dT.*Z$/ });
  t.ok(Math.abs(Date.parse(info.builtAt) - Date.now()) < 60_000);
  t.same(readBuildInfo(file), info, 'the route reads what the build wrote');

  // no git on the PATH (a Docker build): the commit comes from the environment, else "unknown"
  await run(process.execPath, [script, file], { env: { PATH: '', LEDGER_BUILD_COMMIT: 'deadbeef1234' } });
  t.match(JSON.parse(await readFile(file, 'utf8')), { commit: 'deadbeef1234' });
  const bare = await run(process.execPath, [script, join(dir, 'sub', 'dir', 'build-info.json')], { env: { PATH: '' } });
  t.equal(bare.stderr, '', 'no git is not an error');
  t.match(JSON.parse(await readFile(join(dir, 'sub', 'dir', 'build-info.json'), 'utf8')), { commit: 'unknown', builtAt: /Z$/ });
});
