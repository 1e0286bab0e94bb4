import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePortRange } from '../../node/devnet/ports.js';
import { startOidcProvider } from '../plugins/common/auth/oidc-provider.js';
import { TestAgent, TestResolver } from '../plugins/relay/didcomm-client.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { contrastProblems } from './contrast.js';
import { startNodeProcess, tempDataDir } from './harness.js';

/**
 * The relay's operator console in Chromium against a real node (relay on, manual approval) and a
 * real OpenID provider (oidc-provider, a public client with PKCE whose redirect URI is on the
 * relay's port, picked first). An operator signs in by clicking through the provider's login and
 * consent pages, then does every console action: grant, deny with a reason, revoke, a keylist
 * removal, message filters, the throughput windows, policies and limits, API keys, the webhook and
 * its test delivery, notifications and settings. Each result is read back through the REST API
 * with a key the console made. A read-only key sees no write controls; a relay without OpenID
 * says so. Screenshots at 390 and 1,280 px go to test/e2e/screenshots/relay-console-*.png.
 */

const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';
const SCREENSHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url));
const CLIENT_ID = 'relay-console';

interface Rest {
  (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

function restWith(base: string, key: () => string): Rest {
  return async (method, path, body) => {
    const res = await fetch(`${base}/v1${path}`, { method, headers: { authorization: `Bearer ${key()}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
}

/** Waits for the console to finish rendering `name` (main[data-page] without aria-busy). */
async function rendered(page: Page, name: string): Promise<void> {
  await page.waitForSelector(`main[data-page="${name}"]:not([aria-busy])`, { timeout: 20_000 });
}

async function go(page: Page, hash: string, name: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await rendered(page, name);
}

/** Clicks a button that re-renders the page and waits for the new render's announcement. */
async function act(page: Page, click: () => Promise<void>, announced: RegExp): Promise<void> {
  await click();
  try {
    // a function, not a string: the console's CSP forbids the eval a string predicate needs
    await page.waitForFunction((re: string) => new RegExp(re).test((globalThis as any).document.getElementById('announce')?.textContent ?? ''), announced.source, { timeout: 20_000 });
  } catch (err) {
    const said = await page.locator('.outcome.bad').allTextContents();
    throw new Error(`no announcement matching ${announced}; the page says: ${said.join(' | ') || '(nothing)'}`, { cause: err });
  }
  await page.waitForSelector('main:not([aria-busy])');
}

async function shot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()!.width;
  await page.screenshot({ path: join(SCREENSHOTS, `relay-console-${name}-${width}.png`), fullPage: true });
}

async function webhookReceiver(t: Test): Promise<{ url: string; received: Array<{ headers: IncomingMessage['headers']; body: any }> }> {
  const received: Array<{ headers: IncomingMessage['headers']; body: any }> = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/relay-events`, received };
}

t.test('the relay console: OpenID sign-in and every operator action, checked through the REST API', { skip: chromiumMissing() }, async (t) => {
  const port = await freePortRange(1);
  const base = `http://127.0.0.1:${port}`;
  const oidc = await startOidcProvider({ publicClients: [{ clientId: CLIENT_ID, redirectUris: [`${base}/console/`] }], interactive: true });
  t.teardown(() => oidc.close());
  const dir = await tempDataDir(t);
  await writeFile(join(dir, 'config.json'), JSON.stringify({ plugins: { relay: { oidc: { issuer: oidc.issuer, audience: CLIENT_ID }, manualApproval: true } } }));
  const node = await startNodeProcess(t, dir, { plugins: { relay: port }, logLevel: 'warn' });
  t.equal(node.plugins.relay, base, 'the relay runs on the port the provider knows');
  await mkdir(SCREENSHOTS, { recursive: true });

  // three agents ask for mediation before the operator arrives; one more agent sends them mail
  const mediator = ((await (await fetch(`${base}/invite`)).json()) as { from: string }).from;
  const resolver = new TestResolver();
  const [alice, bob, carol, sender, spare] = [0, 1, 2, 3, 4].map(() => new TestAgent(resolver)) as [TestAgent, TestAgent, TestAgent, TestAgent, TestAgent];
  for (const agent of [alice, bob, carol]) {
    const reply = await agent.send(`${base}/didcomm`, mediator, `${MEDIATION}/mediate-request`, {});
    t.equal(reply.status, 202, 'a mediation request waits for the operator');
  }

  const browser: Browser = await launchChromium(t);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    // the provider's own pages (a missing favicon) are not the console's
    if (m.type() === 'error' && m.location().url.startsWith(base)) pageErrors.push(`${m.text()} (${m.location().url})`);
  });

  // sign in as a new operator would: the console, the provider's login and consent, back
  await page.goto(`${base}/console/`);
  await rendered(page, 'sign-in');
  await shot(page, 'sign-in');
  await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).click();
  await page.waitForURL(`${oidc.issuer}/interaction/**`);
  await page.getByLabel('Account').fill('operator-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${base}/console/#/mediations`);
  await rendered(page, 'mediations');
  t.match(await page.locator('#who-text').textContent(), /operator@example\.org · tenant default/, 'signed in as the provider account, in the wire tenant');
  t.equal(new URL(page.url()).search, '', 'the code and state are gone from the address bar');
  t.equal(await page.evaluate('sessionStorage.length + localStorage.length'), 0, 'nothing left in web storage');
  t.equal(await page.evaluate("performance.getEntriesByName('console:first-render').length"), 1, 'the first-render mark is set');

  // first action: an API key of scope full, shown once, which the test then reads the REST with
  await go(page, '#/api-keys', 'api-keys');
  await page.getByLabel('Name').fill('e2e checks');
  await page.getByLabel('Scope').selectOption('full');
  await act(page, () => page.getByRole('button', { name: 'Create key' }).click(), /created/);
  const fullKey = (await page.locator('#new-key-value').textContent())!;
  t.match(fullKey, /^slk_[\w-]{43}$/, 'the new key is shown once');
  const rest = restWith(base, () => fullKey);
  t.match((await rest('GET', '/auth/me')).body, { via: 'api-key', tenantId: 'default', apiKey: { name: 'e2e checks', scope: 'full' } }, 'the key works');
  t.match((await rest('GET', '/team')).body, [{ email: 'operator@example.org', role: 'owner' }], 'the operator was recorded at sign-in');

  const mediationOf = async (did: string) => ((await rest('GET', '/mediations')).body as Array<{ recipientDid: string; state: string; reason: string | null; id: string }>).find((m) => m.recipientDid === did)!;
  const row = (did: string) => page.locator('#mediations tbody tr').filter({ has: page.locator(`span[title="${did}"], span:text-is("${did}")`) });

  await t.test('mediations: grant, deny with a reason, revoke', async (t) => {
    await go(page, '#/mediations', 'mediations');
    t.equal(await page.locator('#mediations tbody tr').count(), 3, 'three requests listed');
    await shot(page, 'mediations-requested');
    await act(page, () => row(alice.did).getByRole('button', { name: 'Grant' }).click(), /granted/);
    t.equal((await mediationOf(alice.did)).state, 'granted', 'alice granted');
    await act(page, () => row(carol.did).getByRole('button', { name: 'Grant' }).click(), /granted/);
    await row(bob.did).getByText('Deny…').click();
    await row(bob.did).getByLabel('Reason').fill('unknown agent');
    await act(page, () => row(bob.did).getByRole('button', { name: 'Deny', exact: true }).click(), /denied/);
    t.match(await mediationOf(bob.did), { state: 'denied', reason: 'unknown agent' }, 'bob denied with the reason');
    await act(page, () => row(carol.did).getByRole('button', { name: 'Revoke' }).click(), /revoked/);
    t.equal((await mediationOf(carol.did)).state, 'revoked', 'carol revoked');
    await go(page, '#/mediations?state=granted', 'mediations');
    t.equal(await page.locator('#mediations tbody tr').count(), 1, 'the state filter shows the granted one');
  });

  // alice routes two keys through the relay; the sender leaves her messages
  await alice.send(`${base}/didcomm`, mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: alice.did, action: 'add' }, { recipient_did: spare.did, action: 'add' }] });
  for (let i = 0; i < 3; i++) {
    const inner = await sender.pack(sender.message('https://example.org/hello', { i }), alice.did, { anon: true });
    t.equal((await sender.post(`${base}/didcomm`, await sender.forward(mediator, alice.did, inner))).status, 202, `forward ${i} accepted`);
  }

  await t.test('the keylist: a key removed', async (t) => {
    const { id } = await mediationOf(alice.did);
    await go(page, `#/mediations/${encodeURIComponent(id)}/keylist`, 'keylist');
    t.equal(await page.locator('#keylist tbody tr').count(), 2, 'two keys');
    await act(page, () => page.getByRole('button', { name: `Remove ${spare.did}` }).click(), /removed/);
    const keys = (await rest('GET', `/mediations/${id}/keylist`)).body;
    t.same(keys.items.map((k: { key: string }) => k.key), [alice.did], 'only alice’s own key is left');
  });

  await t.test('agents and messages with their filters', async (t) => {
    await go(page, '#/agents', 'agents');
    t.equal(await page.locator('#agents tbody tr').count(), (await rest('GET', '/agents')).body.length, 'one row per agent');
    await go(page, '#/messages', 'messages');
    await page.getByLabel('State').selectOption('queued');
    await page.getByLabel('Protocol').selectOption('forward');
    await page.getByLabel('Recipient DID').fill(alice.did);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/#\/messages\?state=queued/);
    await rendered(page, 'messages');
    const listed = (await rest('GET', `/messages?state=queued&protocol=forward&recipient=${encodeURIComponent(alice.did)}`)).body;
    t.equal(listed.total, 3, 'three queued forwards for alice');
    t.equal(await page.locator('#messages tbody tr').count(), listed.total, 'the console lists them');
    await go(page, '#/messages?state=failed', 'messages');
    t.equal(await page.locator('#messages').evaluate((e) => e.tagName), 'P', 'no failed message: the empty note');
  });

  await t.test('the queue and the throughput chart in each window', async (t) => {
    await go(page, '#/queue', 'queue');
    t.equal(await page.locator('#pending').textContent(), String((await rest('GET', '/queue/status')).body.pending), 'pending as the REST says');
    for (const w of ['1h', '6h', '24h', '7d']) {
      await page.getByRole('link', { name: w, exact: true }).click();
      await page.waitForSelector(`.tabs a[aria-current][href$="${w}"]`);
      await rendered(page, 'queue');
      const data = (await rest('GET', `/mediator/throughput?window=${w}`)).body;
      t.equal(await page.locator('svg.chart polyline').count(), 2, `${w}: two lines`);
      const points = await page.locator('svg.chart polyline.received').getAttribute('points');
      t.equal(points!.split(' ').length, data.points.length, `${w}: one vertex per bucket (${data.points.length})`);
      t.match(await page.locator('figcaption').textContent(), new RegExp(`Totals: ${data.totals.received} received`), `${w}: the totals`);
    }
    t.ok((await rest('GET', '/mediator/throughput?window=7d')).body.totals.received >= 3, 'the forwards were counted');
    await shot(page, 'queue');
  });

  await t.test('policies, rate limit and retention', async (t) => {
    await go(page, '#/policies', 'policies');
    await page.getByLabel('Name').fill('kyc gate');
    await page.getByLabel('Credential type').selectOption('KYCCredential');
    await page.getByLabel('Applies to').selectOption('mediation');
    await act(page, () => page.getByRole('button', { name: 'Create policy' }).click(), /created/);
    t.match((await rest('GET', '/policies')).body, [{ name: 'kyc gate', credentialType: 'KYCCredential', appliesTo: 'mediation' }]);
    await shot(page, 'policies');
    await act(page, () => page.getByRole('button', { name: 'Delete policy kyc gate' }).click(), /deleted/);
    t.same((await rest('GET', '/policies')).body, [], 'deleted');
    await page.getByLabel('Messages per DID per minute').fill('600');
    await page.getByRole('button', { name: 'Save rate limit' }).click();
    await page.getByText('Rate limit: 600 per DID per minute.').waitFor();
    t.same((await rest('GET', '/policies/rate-limit')).body, { rateLimitPerDidPerMin: 600 });
    await page.getByLabel('Retention (seconds)').fill('86400');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Retention: 86400 s.').waitFor();
    t.same((await rest('GET', '/policies/retention')).body, { retentionSeconds: 86400 });
  });

  await t.test('API keys: one made and revoked', async (t) => {
    await go(page, '#/api-keys', 'api-keys');
    await page.getByLabel('Name').fill('dashboard reader');
    await page.getByLabel('Scope').selectOption('read');
    await act(page, () => page.getByRole('button', { name: 'Create key' }).click(), /created/);
    const readKey = (await page.locator('#new-key-value').textContent())!;
    t.equal((await fetch(`${base}/v1/mediations`, { headers: { authorization: `Bearer ${readKey}` } })).status, 200, 'the read key reads');
    await shot(page, 'api-keys');
    await act(page, () => page.getByRole('button', { name: 'Revoke key dashboard reader' }).click(), /revoked/);
    const keys = (await rest('GET', '/api-keys')).body as Array<{ name: string; revokedAt: string | null }>;
    t.ok(keys.find((k) => k.name === 'dashboard reader')?.revokedAt, 'revoked');
    t.equal((await fetch(`${base}/v1/mediations`, { headers: { authorization: `Bearer ${readKey}` } })).status, 401, 'and refused from then on');
  });

  await t.test('the webhook, its test delivery, the delivery log', async (t) => {
    const receiver = await webhookReceiver(t);
    await go(page, '#/webhooks', 'webhooks');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('delivery.failed').uncheck();
    await act(page, () => page.getByRole('button', { name: 'Create webhook' }).click(), /Webhook saved/);
    t.match(await page.locator('#new-secret-value').textContent(), /^whsec_/, 'the signing secret is shown once');
    const config = (await rest('GET', '/webhooks')).body.config;
    t.equal(config.url, receiver.url);
    t.notOk(config.events.includes('delivery.failed'), 'the unchecked event is off');
    t.ok(config.events.includes('mediation.granted'));
    await page.getByLabel('Event').selectOption('mediation.granted');
    await page.getByRole('button', { name: 'Send test delivery' }).click();
    await page.locator('#test-outcome', { hasText: /^Test mediation\.granted: delivered \(HTTP 200\)/ }).waitFor();
    t.equal(receiver.received.length, 1, 'the receiver got the test');
    t.match(receiver.received[0]!.body, { type: 'mediation.granted', data: { test: true } });
    t.match((await rest('GET', '/webhooks')).body.deliveries, [{ event: 'mediation.granted', test: true }]);
    t.equal(await page.locator('#deliveries tbody tr').count(), 1, 'the console lists the delivery');
    await shot(page, 'webhooks');
    await go(page, '#/delivery-log', 'delivery-log');
    const log = (await rest('GET', '/delivery-log?limit=100')).body as unknown[];
    t.equal(await page.locator('#delivery-log tbody tr').count(), log.length, `the delivery log as the REST has it (${log.length})`);
  });

  await t.test('notifications: what the route accepts', async (t) => {
    await go(page, '#/notifications', 'notifications');
    const email = page.locator('fieldset').filter({ hasText: 'Email' });
    await email.getByLabel('Enabled').check();
    await email.getByLabel('Target').fill('ops@example.org');
    await page.getByRole('button', { name: 'Save channels' }).click();
    await page.getByText('Channels saved.').waitFor();
    t.match((await rest('GET', '/notifications')).body.channels, { email: { enabled: true, target: 'ops@example.org' }, chat: { enabled: false } });
    // drawn again with the target set: its test button sends a real notification (no SMTP here: the mail outbox)
    await go(page, '#/settings', 'settings');
    await go(page, '#/notifications', 'notifications');
    await page.getByRole('button', { name: 'Send a test to Email' }).click();
    await page.getByText('Test to Email: stored via outbox.').waitFor();
    t.match((await rest('GET', '/notifications/email/outbox')).body.items, [{ to: 'ops@example.org', subject: /mediation\.granted$/ }], 'the test mail is in the outbox');
  });

  await t.test('settings: the tenant’s mediator settings, team, billing, health', async (t) => {
    await go(page, '#/settings', 'settings');
    await page.getByLabel('Purge a message once acknowledged').uncheck();
    await page.getByLabel('Mediation requests wait for an operator').uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    t.match((await rest('GET', '/mediator')).body.settings, { purgeOnAck: false, manualApproval: false, rateLimitPerDidPerMin: 600, retentionSeconds: 86400 });
    t.equal(await page.locator('#team tbody tr').count(), 1, 'the team: one operator');
    await shot(page, 'settings');
  });

  await t.test('sign out: the credential is gone', async (t) => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await rendered(page, 'sign-in');
    t.equal(await page.locator('#sections').isHidden(), true, 'the sections are gone');
  });

  await t.test('a callback this tab did not start is refused, and the code leaves the address bar', async (t) => {
    await page.goto(`${base}/console/?code=forged&state=forged`);
    await rendered(page, 'sign-in');
    t.match(await page.getByRole('alert').first().textContent(), /did not start in this tab/);
    t.equal(new URL(page.url()).search, '', 'no code in the URL');
  });

  await t.test('the keyboard: the skip link first, a visible focus ring, the form in order', async (t) => {
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.id'), 'skip', 'Tab reaches the skip link first');
    await page.keyboard.press('Enter');
    t.equal(await page.evaluate('document.activeElement.id'), 'main', 'which moves focus to the content');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.textContent'), 'Sign in with OpenID Connect', 'then the first control of the page');
    t.not(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'none', 'with a visible focus outline');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.name'), 'key', 'then the API key field');
  });

  await t.test('a read key: what its scope cannot do is not offered', async (t) => {
    const made = await rest('POST', '/api-keys', { name: 'reader', scope: 'read' });
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true });
    t.teardown(() => ctx.close());
    const p = await ctx.newPage();
    await p.goto(`${base}/console/#/mediations`);
    await rendered(p, 'sign-in');
    await p.getByLabel('API key', { exact: true }).fill(made.body.key);
    await p.getByRole('button', { name: 'Sign in with the key' }).click();
    await rendered(p, 'mediations');
    t.equal(await p.getByRole('button', { name: 'Grant' }).count(), 0, 'no grant button');
    t.match(await p.locator('main').textContent(), /needs an API key of scope manage/);
    await go(p, '#/api-keys', 'api-keys');
    t.equal(await p.getByRole('button', { name: 'Create key' }).count(), 0, 'no key creation');
    await shot(p, 'read-key-api-keys');
  });

  await t.test('a manage key: decisions and webhook tests, but neither keys nor the webhook itself', async (t) => {
    const made = await rest('POST', '/api-keys', { name: 'manager', scope: 'manage' });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => ctx.close());
    const p = await ctx.newPage();
    await p.goto(`${base}/console/#/mediations`);
    await rendered(p, 'sign-in');
    await p.getByLabel('API key', { exact: true }).fill(made.body.key);
    await p.getByRole('button', { name: 'Sign in with the key' }).click();
    await rendered(p, 'mediations');
    t.ok((await p.getByRole('button', { name: 'Revoke' }).count()) > 0, 'revoke offered');
    await go(p, '#/api-keys', 'api-keys');
    t.equal(await p.getByRole('button', { name: 'Create key' }).count(), 0, 'no key creation');
    t.match(await p.locator('main').textContent(), /needs an API key of scope full/);
    await go(p, '#/webhooks', 'webhooks');
    t.equal(await p.getByRole('button', { name: 'Save webhook' }).count(), 0, 'no webhook change');
    t.equal(await p.getByRole('button', { name: 'Send test delivery' }).count(), 1, 'a test delivery');
  });

  await t.test('screenshots at 390 and 1,280 px, light and dark, with AA contrast', async (t) => {
    const key = (await rest('POST', '/api-keys', { name: 'shots', scope: 'full' })).body.key as string;
    const pages: Array<[string, string]> = [['#/mediations', 'mediations'], ['#/agents', 'agents'], ['#/messages', 'messages'], ['#/queue', 'queue'], ['#/policies', 'policies'], ['#/api-keys', 'api-keys'], ['#/webhooks', 'webhooks'], ['#/delivery-log', 'delivery-log'], ['#/notifications', 'notifications'], ['#/settings', 'settings']];
    for (const [width, scheme] of [[390, 'dark'], [1280, 'dark'], [390, 'light'], [1280, 'light']] as const) {
      const ctx: BrowserContext = await browser.newContext({ viewport: { width, height: 844 }, colorScheme: scheme, ...(width === 390 ? { isMobile: true } : {}) });
      const p = await ctx.newPage();
      await p.goto(`${base}/console/#/mediations`);
      await rendered(p, 'sign-in');
      t.same(await contrastProblems(p), [], `${scheme} ${width}: sign-in`);
      await p.getByLabel('API key', { exact: true }).fill(key);
      await p.getByRole('button', { name: 'Sign in with the key' }).click();
      for (const [hash, name] of pages) {
        await go(p, hash, name);
        t.same(await contrastProblems(p), [], `${scheme} ${width}: ${name}`);
        const overflow = await p.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        t.equal(overflow, 0, `${scheme} ${width}: ${name} does not scroll sideways`);
        if (scheme === 'dark' && width === 390) await shot(p, `${name}-dark`);
      }
      await ctx.close();
    }
  });

  t.same(pageErrors, [], 'no script errors in the console');
  await node.stop();
});

t.test('a relay without OpenID: the console says so, and how to configure it', { skip: chromiumMissing() }, async (t) => {
  const node = await startNodeProcess(t, await tempDataDir(t), { plugins: { relay: 0 }, logLevel: 'warn' });
  const base = node.plugins.relay!;
  const browser = await launchChromium(t);
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(`${base}/console/`);
  await rendered(page, 'sign-in');
  t.match(await page.locator('main').textContent(), /OpenID sign-in is not configured/);
  t.match(await page.locator('main').textContent(), /"oidc": \{ "issuer"/, 'with the setting to add');
  t.equal(await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).count(), 0, 'no OpenID button');
  await page.getByLabel('API key', { exact: true }).fill(`slk_${'A'.repeat(43)}`);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByText('This key is not accepted').waitFor();
  await shot(page, 'not-configured');
  await node.stop();
});
