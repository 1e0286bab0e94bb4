import t from 'tap';
import * as OTPAuth from 'otpauth';
import { KycClient } from '../../bench/lib/kyc/client.js';
import { testJpeg } from '../../bench/lib/kyc/images.js';
import { WebhookReceiver } from '../../bench/lib/kyc/receiver.js';
import { rendered, snap, until, watchConsole, WIDE } from '../plugins/kyc/dashboard/browser-helpers.js';
import { freePortRange } from '../../node/devnet/ports.js';
import { startOidcProvider } from '../plugins/common/auth/oidc-provider.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { OPERATOR_TOKEN, startKycNode } from './kyc/setup.js';

/**
 * The dashboard on a real node in headless Chromium, used as a new customer would: sign up in the
 * browser, then every action of the pages this node's API has: API keys (shown once, revoked),
 * webhooks (created, edited, a test sent, a failed delivery resent, the secret rotated), two-step
 * sign-in turned on and used, a forgotten password, the organization's name, colour and logo, the
 * sandbox/live switch; and sign-in through a configured OpenID provider.
 * Each result is checked through the REST API as well as on the page; every page is
 * photographed at 1,280 and 390 px wide (and dark), and checked for contrast and labels.
 */

const EMAIL = 'owner@dash.example';
const PASSWORD = 'a long enough passphrase';

/** a passport's machine-readable zone whose check digits are right (ICAO 9303's example, valid until 2031) */
const TD3 = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F3104150ZE184226B<<<<<16';

/** a 1×1 PNG, the smallest real logo */
const LOGO = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

t.test('the dashboard: sign up, API keys, webhooks, TOTP, organization, sandbox switch', { skip: chromiumMissing() }, async (t) => {
  const n = await startKycNode(t);
  const receiver = new WebhookReceiver();
  const hookUrl = await receiver.start();
  t.teardown(() => receiver.close());
  const rest = new KycClient(n.kyc);
  const problems: string[] = [];

  const browser = await launchChromium(t);
  const context = await browser.newContext({ viewport: WIDE });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: n.kyc });
  const page = await context.newPage();
  // the app asks each optional part of the API once (api.js probe): a part this node lacks is a 401 or 404 there
  const errors = watchConsole(page, [/^Failed to load resource: the server responded with a status of (401|404)/]);
  const fillSignIn = async () => {
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const signIn = async () => {
    await fillSignIn();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  };

  await t.test('sign up in the browser', async (t) => {
    await page.goto(`${n.kyc}/dashboard`);
    await rendered(page, 'sign in');
    t.equal(await page.evaluate("performance.getEntriesByName('dashboard:first-render').length"), 0, 'the sign-in page is not what the first-render mark measures');
    problems.push(...(await snap(page, 'signin')));
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content', 'the skip link comes first');
    t.not(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'none', 'with a visible focus ring');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate("document.activeElement.getAttribute('name')"), 'email', 'then the form, from its first field');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await rendered(page, 'register');
    await page.getByLabel('Your name').fill('Dana Owner');
    await page.getByLabel('Organization').fill('Dash Bank');
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    problems.push(...(await snap(page, 'register')));
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // the header shows Sign out as soon as the token arrives; the first page renders after its API calls
    await page.waitForFunction("performance.getEntriesByName('dashboard:first-render').length > 0", undefined, { timeout: 20_000 }).catch(() => undefined);
    t.equal(await page.evaluate("performance.getEntriesByName('dashboard:first-render').length"), 1, 'the first page after signing in is marked');
    t.ok(await page.evaluate("performance.getEntriesByName('dashboard:first-render')[0].startTime > performance.getEntriesByName('dashboard:sign-in')[0].startTime"), 'after the sign-in mark');
    await page.getByRole('link', { name: 'API keys' }).click();
    await rendered(page, 'api keys');
    t.equal(await page.locator('#sandbox-banner').isVisible(), true, 'a new account starts on sandbox data, with the banner');
    rest.jwt = (await rest.call('POST', '/v1/auth/login', { body: { email: EMAIL, password: PASSWORD } })).token;
    const me = await rest.call('GET', '/v1/auth/me', { auth: 'jwt' });
    t.match(me, { user: { email: EMAIL, name: 'Dana Owner' }, organization: { name: 'Dash Bank' } }, 'the account exists through the API');
    t.equal(await page.evaluate('localStorage.length + sessionStorage.length'), 0, 'nothing kept in web storage');
    t.equal((await context.cookies()).length, 0, 'and no cookie');
  });

  let liveKeyId = '';
  let sandboxSession = '';
  await t.test('API keys: created and shown once with a copy button, filtered by mode, revoked', async (t) => {
    await page.getByLabel('Name').fill('Backend');
    await page.getByLabel('Mode').selectOption('sandbox');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    rest.apiKey = key;
    t.match(key, /^sk_sandbox_[\w-]{43}$/, 'the key is shown');
    await page.getByRole('button', { name: 'Copy' }).click();
    t.equal(await page.evaluate('navigator.clipboard.readText()'), key, 'the copy button copies it');
    const ok = await fetch(`${n.kyc}/v1/webhooks`, { headers: { authorization: `Bearer ${key}` } });
    t.equal(ok.status, 200, 'the key shown works on the API');
    problems.push(...(await snap(page, 'api-key-created')));
    await page.getByRole('button', { name: 'Done, I have copied it' }).click();
    await rendered(page, 'api keys');
    t.equal(await page.locator('#new-key').count(), 0, 'shown once: gone after Done');

    await page.getByLabel('Name').fill('Production');
    await page.getByLabel('Mode').selectOption('live');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    await page.getByRole('button', { name: 'Done, I have copied it' }).click();
    await rendered(page, 'api keys');
    const { keys } = await rest.call('GET', '/v1/api-keys', { auth: 'jwt' });
    t.match(keys, [{ name: 'Backend', mode: 'sandbox' }, { name: 'Production', mode: 'live' }].sort(() => 0), 'both keys exist through the API');
    liveKeyId = keys.find((k: { mode: string }) => k.mode === 'live').id;
    t.equal(await page.getByRole('cell', { name: 'Production', exact: true }).count(), 0, 'the live key is not in the sandbox list');

    await page.getByRole('switch', { name: 'Sandbox data' }).uncheck();
    await rendered(page, 'api keys');
    t.equal(await page.locator('#sandbox-banner').isVisible(), false, 'live: no sandbox banner');
    t.equal(await page.getByRole('cell', { name: 'Production', exact: true }).count(), 1, 'live: the live key');
    t.equal(await page.getByRole('cell', { name: 'Backend', exact: true }).count(), 0, 'and not the sandbox one');
    problems.push(...(await snap(page, 'api-keys-live')));

    await page.getByRole('button', { name: 'Revoke Production' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Production?' });
    await dialog.waitFor();
    problems.push(...(await snap(page, 'api-key-revoke-dialog')));
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('No live keys yet.').waitFor();
    const after = await rest.call('GET', '/v1/api-keys', { auth: 'jwt' });
    t.same(after.keys.map((k: { id: string }) => k.id).includes(liveKeyId), false, 'the revoked key is gone through the API');
    await page.getByRole('switch', { name: 'Sandbox data' }).check();
    await rendered(page, 'api keys');
  });

  await t.test('webhooks: created with its secret shown once, edited, a test, a failed delivery resent, the secret rotated', async (t) => {
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await rendered(page, 'webhooks');
    await page.getByLabel('URL').fill(hookUrl);
    await page.getByLabel('Description').fill('orders service');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('#webhook-secret').textContent())!;
    t.match(secret, /^whsec_/, 'the secret is shown');
    receiver.secret = secret;
    const { endpoints } = await rest.call('GET', '/v1/webhooks', { auth: 'jwt' });
    t.match(endpoints, [{ url: hookUrl, description: 'orders service', events: ['verification.completed', 'verification.failed', 'credential.issued'], status: 'active' }], 'the endpoint exists through the API');
    const id = endpoints[0].id as string;
    problems.push(...(await snap(page, 'webhooks')));

    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    await rendered(page, 'webhook');
    await page.getByLabel('Description').fill('orders service v2');
    await page.getByLabel('credential.revoked').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    t.match(await rest.call('GET', `/v1/webhooks/${id}`, { auth: 'jwt' }), { description: 'orders service v2', events: ['verification.completed', 'verification.failed', 'credential.issued', 'credential.revoked'] }, 'the edit is saved through the API');

    await page.getByLabel('Test event').selectOption('verification.completed');
    await page.getByRole('button', { name: 'Send a test' }).click();
    const test = await receiver.waitFor((e) => e.type === 'verification.completed' && e.id.startsWith('evt_test_'));
    t.ok(test, 'the test event arrives, signed with the secret shown');
    await rendered(page, 'webhook');
    await page.getByRole('cell', { name: /verification\.completed/ }).first().waitFor();

    // a real event whose every attempt fails (the node retries for 2.5 s here), then resent from the log
    receiver.fail(6);
    const { session } = await rest.createSession({ level: 1, sandbox: true, sandboxOutcome: 'fail' });
    await rest.uploadDocument(session.id, testJpeg(), { type: 'passport', side: 'front', final: true, mrz: TD3 });
    sandboxSession = session.id;
    const failed = await until(async () => (await rest.call('GET', `/v1/webhooks/${id}/deliveries?status=failed`, { auth: 'jwt' })).data.find((d: { eventType: string }) => d.eventType === 'verification.failed'));
    await page.reload();
    await rendered(page, 'sign in');
    t.equal(await page.evaluate('location.hash'), `#/signin?next=${encodeURIComponent(`/webhook/${id}`)}`, 'a reload asks to sign in again');
    await signIn();
    await rendered(page, 'webhook');
    t.pass('and then shows the page that was open');
    const resend = page.getByRole('button', { name: `Resend verification.failed ${failed.id}` });
    problems.push(...(await snap(page, 'webhook-deliveries')));
    await resend.click();
    const again = await receiver.waitFor((e) => e.type === 'verification.failed' && e.data.verificationId === session.id);
    t.equal(again.id, failed.eventId, 'the resent delivery arrives with the same event id');
    const log = await rest.call('GET', `/v1/webhooks/${id}/deliveries`, { auth: 'jwt' });
    t.ok(log.data.some((d: { resendOf?: string }) => d.resendOf === failed.id), 'the API lists the resend with resendOf');
    await page.getByRole('cell', { name: /resent/ }).first().waitFor();

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('status').filter({ hasText: 'The secret was rotated.' }).waitFor();
    const rotated = (await page.locator('#webhook-secret').textContent())!;
    t.not(rotated, secret, 'a new secret is shown');
    receiver.secret = rotated;
    const test2 = await rest.call('POST', '/v1/webhooks/test', { auth: 'jwt', body: { webhookId: id, eventType: 'verification.failed' } });
    t.equal(test2.status, 'delivered', 'a delivery after the rotation verifies with the new secret');
    await receiver.waitFor((e) => e.type === 'verification.failed');
    t.equal(receiver.rejected, 0, 'no delivery failed its signature check');
  });

  await t.test('a sandbox session: in the list, its document with the MRZ read, its timeline and webhook deliveries', async (t) => {
    await page.getByRole('link', { name: 'Sessions' }).click();
    await rendered(page, 'sessions');
    await page.getByRole('link', { name: sandboxSession }).click();
    await rendered(page, 'session');
    const { session } = await rest.getSession(sandboxSession);
    t.match(session, { status: 'failed', documents: [{ checks: { mrz: { valid: true, format: 'TD3' } }, extractedData: { lastName: 'ERIKSSON' } }] });
    t.equal(await page.locator('.mrz').textContent(), 'MRZ: valid TD3', 'the MRZ result');
    await page.getByText('Data read from the document').click();
    t.match(await page.locator('details pre').first().textContent(), /ERIKSSON/, 'the data read from it');
    const history = await rest.call('GET', `/v1/verifications/${sandboxSession}/timeline`, { auth: 'jwt' });
    t.equal(await page.locator('ol.timeline li').count(), history.timeline.length, 'every timeline entry of the API');
    const deliveries = page.getByRole('cell', { name: /delivered HTTP 200/ });
    t.match(await deliveries.textContent(), /failed.*delivered HTTP 200/, 'the failed delivery and its resend');
    problems.push(...(await snap(page, 'session-sandbox')));
  });

  await t.test('organization settings: name, colour and logo with a preview', async (t) => {
    await page.getByRole('link', { name: 'Organization' }).click();
    await rendered(page, 'organization');
    await page.getByLabel('Organization name').fill('Dash Bank Ltd');
    await page.getByLabel('Brand colour').fill('#0a7f5a');
    await page.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: LOGO });
    await page.getByRole('img', { name: 'Logo preview' }).waitFor();
    t.equal(await page.evaluate("getComputedStyle(document.querySelector('.preview-button')).backgroundColor"), 'rgb(10, 127, 90)', 'the preview shows the colour');
    problems.push(...(await snap(page, 'organization')));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    t.match(await rest.call('GET', '/v1/organization', { auth: 'jwt' }), { name: 'Dash Bank Ltd', branding: { color: '#0a7f5a', logo: `data:image/png;base64,${LOGO.toString('base64')}` } }, 'saved through the API');
  });

  await t.test('two-step sign-in: turned on in the browser, then asked for at sign-in', async (t) => {
    await page.getByRole('link', { name: 'Security' }).click();
    await rendered(page, 'security');
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    const secret = (await page.locator('#totp-secret').textContent())!;
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    await page.getByLabel('Code').fill(totp.generate());
    problems.push(...(await snap(page, 'security')));
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Two-step sign-in is on.' }).waitFor();
    t.same(await rest.call('POST', '/v1/auth/login', { body: { email: EMAIL, password: PASSWORD } }), { totpRequired: true }, 'the API now asks for a code');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await rendered(page, 'sign in');
    await fillSignIn();
    const code = page.getByLabel('Authentication code');
    await code.waitFor();
    t.equal(await page.evaluate("document.activeElement?.getAttribute('name')"), 'totpCode', 'the code field takes the focus');
    problems.push(...(await snap(page, 'signin-totp')));
    await code.fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    t.equal(await page.locator('#account .who').textContent().then((s) => s?.includes(EMAIL)), true, 'signed in again');

    await page.reload();
    await rendered(page, 'sign in');
    t.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'a reload asks to sign in again: the token was in memory only');
  });

  await t.test('a forgotten password: the page asks for the address and the reset mail goes out', async (t) => {
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await rendered(page, 'forgot password');
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByRole('button', { name: 'Send a reset link' }).click();
    await page.getByRole('status').filter({ hasText: /./ }).filter({ hasNotText: 'Working…' }).waitFor();
    problems.push(...(await snap(page, 'forgot')));
    const mails = (await (await fetch(`${n.kyc}/v1/operator/mail`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json()) as { mails: Array<{ to: string; text: string }> };
    t.match(mails.mails.find((m) => m.to === EMAIL)?.text, /reset-password\?token=rst_/, 'the reset mail is in the outbox');
  });

  t.same(errors, [], 'no console error (a CSP violation is one)');
  t.same(problems, [], 'every page passes the contrast and labels checks at both widths, light and dark, without sideways scrolling');
  await n.node.stop();
});

t.test('sign-in with a configured OpenID provider: a button per provider, its login and consent, back signed in', { skip: chromiumMissing() }, async (t) => {
  const port = await freePortRange(1);
  const base = `http://127.0.0.1:${port}`;
  const oidc = await startOidcProvider({ clientId: 'kyc-dashboard', redirectUris: [`${base}/v1/auth/acme/callback`], interactive: true });
  t.teardown(() => oidc.close());
  const n = await startKycNode(t, { providers: { acme: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret } } }, { kycPort: port });
  t.same(await (await fetch(`${base}/dashboard/config.json`)).json(), { providers: ['acme'], explorerUrl: null }, 'config.json names the provider');

  const browser = await launchChromium(t);
  const page = await (await browser.newContext({ viewport: WIDE })).newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    // the provider's own pages are not the dashboard's; the app's probes of absent parts are expected
    if (m.type() === 'error' && m.location().url.startsWith(base) && !/status of (401|404)/.test(m.text())) errors.push(m.text());
  });
  await page.goto(`${base}/dashboard`);
  await rendered(page, 'sign in');
  await page.getByRole('link', { name: 'Sign in with acme' }).click();
  await page.waitForURL(`${oidc.issuer}/interaction/**`);
  await page.getByLabel('Account').fill('operator-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  t.notMatch(page.url(), /token=/, 'the token left the address bar');
  t.match(await page.locator('#account .who').textContent(), /Test Operator's organization.*operator@example\.org · owner/, 'signed in as the provider\'s account, the owner of a new organization');

  await page.getByRole('link', { name: 'API keys' }).click();
  await rendered(page, 'api keys');
  await page.getByLabel('Name').fill('from sso');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.locator('#new-key').textContent())!;
  const me = await fetch(`${base}/v1/webhooks`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(me.status, 200, 'the key made by the provider-signed-in account works on the API');
  t.same(errors, [], 'no console error on the dashboard');
  await n.node.stop();
});
