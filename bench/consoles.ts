/**
 * bench/consoles: how fast the operator consoles render each page in headless Chromium against a
 * real node with data: the relay's console (`/console`, plugins/relay/console/) and the KYC
 * dashboard (`/dashboard`, plugins/kyc/dashboard/; its node and data in bench/lib/consoles/kyc.ts).
 * A console joins by adding its pages (`{console, name, url, signIn, ready, mark, since}`).
 *
 * The relay: a `ledger start --plugins relay` process (manual approval on) with 30 agents'
 * mediation requests (20 granted, 5 denied, 5 waiting), 200 forwards queued for the granted ones,
 * policies, a webhook with a test delivery and API keys. Its operator login points at a minimal
 * OpenID issuer the bench runs (discovery and JWKS over HTTP, an id_token it signs itself) only to
 * open the first session, which makes the API key the console is then signed in with; the browser
 * sign-in flow itself is tested in test/e2e/relay-console.test.ts.
 *
 * Each page is opened `--runs` times in a fresh browser context (cold: nothing cached) and as many
 * times reloaded in the same one (warm: the assets cached); the credential lives in the page's
 * memory only, so every visit signs in again. A run's figure is the console's first-render mark
 * (set when the page's first render is done, with `main[data-page]` without `aria-busy`) less its
 * sign-in mark when there is one: from the credential given to the page on screen, the API calls
 * included. The wall time of the whole visit, sign-in typing included, is kept beside it.
 *
 *   npm run bench:consoles -- [--runs 10] [--out <file>]
 *
 * Prints a table and writes bench/results/consoles.json. The target (median ≤ 200 ms per page) is
 * reported, not enforced.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { freePortRange } from '../node/devnet/ports.js';
import { spawnNode, type NodeProcess } from './lib/chaos/node-process.js';
import { launchHeadlessChromium } from './lib/chromium.js';
import { AgentResolver, DidcommAgent } from './lib/relay/didcomm-agent.js';
import { KYC_DATA, kycPages, seedKyc, startKyc } from './lib/consoles/kyc.js';
import type { ConsolePage } from './lib/consoles/page.js';
import { latencySummary, machine } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('npm run bench:consoles -- [--runs 10] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url));
const TARGET_MS = 200;
const runs = Number(values.runs);
const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';
const CLIENT_ID = 'relay-console-bench';

interface Sample {
  render: number;
  wall: number;
}

/** Opens the page (navigating, or reloading when it is already there), signs in, and reads the marks. */
async function visit(page: Page, p: ConsolePage, reload: boolean): Promise<Sample> {
  const t0 = performance.now();
  if (reload) await page.reload();
  else await page.goto(p.url);
  await p.signIn?.(page);
  await page.waitForSelector(p.ready, { timeout: 30_000 });
  const wall = performance.now() - t0;
  const marks = (await page.evaluate(`[performance.getEntriesByName(${JSON.stringify(p.mark)})[0]?.startTime ?? -1, ${p.since ? `performance.getEntriesByName(${JSON.stringify(p.since)}).at(-1)?.startTime ?? -1` : '0'}]`)) as [number, number];
  if (!(marks[0] > 0)) throw new Error(`${p.console} ${p.name}: the app set no ${p.mark} mark`);
  if (marks[1] < 0) throw new Error(`${p.console} ${p.name}: the app set no ${p.since} mark`);
  if ((await page.locator('main table tbody tr, main dl, main svg, main img, main form, main p.empty').count()) === 0) throw new Error(`${p.console} ${p.name}: the page rendered no data`);
  return { render: marks[0] - marks[1], wall };
}

async function measure(browser: Browser, p: ConsolePage) {
  const cold: Sample[] = [];
  const warm: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    cold.push(await visit(page, p, false));
    warm.push(await visit(page, p, true));
    await context.close();
  }
  const summary = (samples: Sample[]) => {
    const render = latencySummary(samples.map((s) => s.render));
    const wall = latencySummary(samples.map((s) => s.wall));
    const round = (v: number) => Math.round(v * 10) / 10;
    return { median: round(render.p50), p90: round(render.p90), max: round(render.max), wall_median: round(wall.p50), wall_max: round(wall.max) };
  };
  return { console: p.console, page: p.name, url: p.url, cold: summary(cold), warm: summary(warm), runs };
}

/**
 * A minimal OpenID issuer on 127.0.0.1: its discovery document and JWKS, and id_tokens signed
 * with its key, enough for the relay's verifier to open one operator session.
 */
async function startIssuer(): Promise<{ issuer: string; idToken(): Promise<string>; close(): Promise<void> }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((req, res) => {
    const body =
      req.url === '/.well-known/openid-configuration'
        ? { issuer, jwks_uri: `${issuer}/jwks`, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, id_token_signing_alg_values_supported: ['ES256'], response_types_supported: ['code'], subject_types_supported: ['public'] }
        : req.url === '/jwks'
          ? { keys: [jwk] }
          : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'not_found' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    idToken: () =>
      new SignJWT({ email: 'bench@example.org', name: 'Bench Operator' })
        .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
        .setIssuer(issuer)
        .setAudience(CLIENT_ID)
        .setSubject('bench-operator')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function json(base: string, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** The relay's data: mediations in every state, queued forwards, policies, a webhook, keys. Returns a full API key. */
async function seedRelay(base: string, idToken: string): Promise<string> {
  const session = (await json(base, 'POST', '/v1/auth/session', '', { id_token: idToken })).token as string;
  const key = (await json(base, 'POST', '/v1/api-keys', session, { name: 'bench', scope: 'full' })).key as string;
  for (const scope of ['read', 'manage']) await json(base, 'POST', '/v1/api-keys', key, { name: `bench ${scope}`, scope });
  const mediator = ((await (await fetch(`${base}/invite`)).json()) as { from: string }).from;
  const resolver = new AgentResolver();
  const agents = Array.from({ length: 30 }, () => new DidcommAgent(resolver));
  for (const a of agents) await a.send(`${base}/didcomm`, mediator, `${MEDIATION}/mediate-request`, {});
  const mediations = (await json(base, 'GET', '/v1/mediations', key)) as Array<{ id: string; recipientDid: string }>;
  const byDid = new Map(mediations.map((m) => [m.recipientDid, m.id]));
  const granted = agents.slice(0, 20);
  for (const a of granted) {
    await json(base, 'POST', `/v1/mediations/${byDid.get(a.did)}/grant`, key);
    await a.send(`${base}/didcomm`, mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: a.did, action: 'add' }] });
  }
  for (const a of agents.slice(20, 25)) await json(base, 'POST', `/v1/mediations/${byDid.get(a.did)}/deny`, key, { reason: 'not on the allow list' });
  const sender = new DidcommAgent(resolver);
  for (let i = 0; i < 200; i++) {
    const to = granted[i % granted.length]!;
    const inner = await sender.pack(sender.message('https://example.org/bench', { i }), to.did, { anon: true });
    const res = await sender.post(`${base}/didcomm`, await sender.forward(mediator, to.did, inner));
    if (res.status !== 202) throw new Error(`a forward was refused: ${res.status}`);
  }
  for (const [name, credentialType] of [['kyc gate', 'KYCCredential'], ['email gate', 'EmailVerificationCredential']]) await json(base, 'POST', '/v1/policies', key, { name, credentialType });
  await json(base, 'PUT', '/v1/webhooks', key, { url: 'http://127.0.0.1:9/relay-events', events: ['mediation.granted', 'message.queued'] });
  await json(base, 'POST', '/v1/webhooks/test', key, { event: 'mediation.granted' });
  return key;
}

/** The relay console's pages, signed in with an API key typed into its sign-in screen. */
function relayPages(base: string, key: string): ConsolePage[] {
  const signIn = async (page: Page) => {
    await page.waitForSelector('main[data-page="sign-in"]:not([aria-busy])');
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
  };
  const names: Array<[string, string]> = [
    ['mediations', '#/mediations'],
    ['agents', '#/agents'],
    ['messages', '#/messages'],
    ['queue', '#/queue?window=24h'],
    ['policies', '#/policies'],
    ['api-keys', '#/api-keys'],
    ['webhooks', '#/webhooks'],
    ['delivery-log', '#/delivery-log'],
    ['notifications', '#/notifications'],
    ['settings', '#/settings'],
  ];
  return names.map(([name, hash]) => ({ console: 'relay', name, url: `${base}/console/${hash}`, signIn, ready: `main[data-page="${name}"]:not([aria-busy])`, mark: 'console:first-render', since: 'console:sign-in' }));
}

async function startRelay(dir: string, issuer: string): Promise<{ node: NodeProcess; base: string }> {
  const dataDir = join(dir, 'relay');
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ plugins: { relay: { enabled: true, manualApproval: true, oidc: { issuer, audience: CLIENT_ID } } } }, null, 2) + '\n');
  const port = await freePortRange(1);
  const node = await spawnNode({ bin: join(root, 'bin', 'ledger.js'), dataDir, rpcPort: 0, p2pPort: 0, logFile: join(dir, 'relay.log'), plugins: 'relay', args: ['--relay-port', String(port)], readyTimeoutMs: 60_000 });
  return { node, base: `http://127.0.0.1:${port}` };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-consoles-'));
  const closers: Array<() => unknown> = [];
  try {
    const issuer = await startIssuer();
    closers.push(() => issuer.close());
    const relay = await startRelay(dir, issuer.issuer);
    closers.push(() => relay.node.stop());
    const key = await seedRelay(relay.base, await issuer.idToken());
    const kyc = await startKyc(dir, root);
    closers.push(() => kyc.node.stop());
    const kycIds = await seedKyc(kyc.base, kyc.node.url, kyc.dataDir);
    const pages: ConsolePage[] = [...relayPages(relay.base, key), ...kycPages(kyc.base, kycIds)];

    const browser = await launchHeadlessChromium();
    closers.push(() => browser.close());
    const load = loadavg();
    const results = [];
    for (const p of pages) results.push(await measure(browser, p));
    const loadAfter = loadavg();

    const result = {
      bench: 'consoles',
      data: { relay: { mediations: 30, granted: 20, denied: 5, requested: 5, queued_forwards: 200, policies: 2, api_keys: 3 }, kyc: KYC_DATA },
      first_render_ms: results,
      note: "first_render_ms: from the credential given to the page (relay: console:sign-in, when the key is submitted; kyc: dashboard:sign-in, when the password login has answered) to the page's first render (console:first-render, dashboard:first-render), its API calls included; cold: a fresh browser context, warm: a reload with the assets cached; wall_*: the whole visit as the driver sees it, sign-in typing included",
      target_ms: TARGET_MS,
      browser: { name: 'chromium', version: browser.version(), headless: true, viewport: '1280x900' },
      machine: { ...machine(), loadavg_before: load.map((v) => Math.round(v * 100) / 100), loadavg_after: loadAfter.map((v) => Math.round(v * 100) / 100) },
      at: new Date().toISOString(),
    };
    console.table(
      results.flatMap((r) =>
        (['cold', 'warm'] as const).map((how) => ({
          console: r.console,
          page: r.page,
          visit: how,
          'median ms': r[how].median,
          'p90 ms': r[how].p90,
          'max ms': r[how].max,
          'wall median ms': r[how].wall_median,
          target: r[how].median <= TARGET_MS ? `≤ ${TARGET_MS} ms: met` : `≤ ${TARGET_MS} ms: missed`,
        })),
      ),
    );
    console.log(`load average (1, 5, 15 min) before ${result.machine.loadavg_before.join(', ')}, after ${result.machine.loadavg_after.join(', ')}; ${result.machine.cpus} cpus`);
    const out = values.out ?? join(root, 'bench/results/consoles.json');
    await mkdir(join(out, '..'), { recursive: true });
    await writeFile(out, JSON.stringify(result, null, 1) + '\n');
    console.log(`wrote ${out}`);
  } finally {
    for (const close of closers.reverse()) await close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
