import t from 'tap';
import type { BrowserContext, Page } from 'playwright-core';
import { KycClient } from '../../bench/lib/kyc/client.js';
import { WebhookReceiver } from '../../bench/lib/kyc/receiver.js';
import { rendered, snap, until, watchConsole, WIDE } from '../plugins/kyc/dashboard/browser-helpers.js';
import { agree, PHONE } from '../plugins/kyc/hosted/page-helpers.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { OPERATOR_TOKEN, startKycNode, subjectOnChain } from './kyc/setup.js';

/**
 * The key flow on a real node, in Chromium: the owner invites a reviewer from the Team
 * page, who accepts the mailed link in the dashboard. Two LIVE sessions (a live key, subjects
 * with DIDs on chain) are completed by their end users on the hosted page with the fake camera;
 * the reviewer's desk lists both, oldest first, with documents and liveness frames side by side.
 * Approve stays disabled until every piece was opened (and the API refuses it too); approving
 * puts the credential on chain (JSON-RPC says valid) and sends verification.completed and
 * credential.issued; rejecting with a reason code sends verification.failed. The owner finds the
 * sessions by mode and status, sees one's images, timeline, webhook events and credential (with
 * its explorer link), and revokes the credential; a member's role is changed and another
 * removed. Each result is checked through the REST API.
 */

const OWNER = { email: 'owner@review.example', password: 'the owner passphrase' };
const REVIEWER = { email: 'rita@review.example', password: 'the reviewer passphrase' };
const EXPLORER = 'https://explorer.example';

async function signIn(page: Page, base: string, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${base}/dashboard`);
  await rendered(page, 'sign in');
  await page.getByLabel('Email', { exact: true }).fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** The end user's part: consent, a photo of the passport with the fake camera, the liveness frames. */
async function completeOnHostedPage(context: BrowserContext, sessionUrl: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(sessionUrl);
  await agree(page);
  await page.getByRole('heading', { level: 2, name: 'Photograph your identity document' }).waitFor();
  await page.getByLabel('Passport').check();
  // the camera starts by itself, or after "Use the camera" (the page's markup is changing)
  const first = page.getByRole('button', { name: /^(Use the camera|Take photo)$/ }).first();
  if ((await first.textContent())?.trim() === 'Use the camera') await first.click();
  await page.getByRole('button', { name: 'Take photo' }).click();
  await page.getByRole('img', { name: 'Your photo of the front of the document' }).waitFor();
  await page.getByRole('button', { name: 'Upload photo' }).click();
  await page.getByRole('heading', { level: 2, name: 'Liveness check' }).waitFor();
  await page.getByRole('button', { name: 'Start the check' }).click();
  await page.getByRole('heading', { level: 2, name: 'We are checking your documents…' }).waitFor({ timeout: 60_000 });
  await page.close();
}

t.test('live sessions decided on the review desk by an invited reviewer', { skip: chromiumMissing() }, async (t) => {
  const n = await startKycNode(t, { explorerUrl: EXPLORER });
  const receiver = new WebhookReceiver();
  const hookUrl = await receiver.start();
  t.teardown(() => receiver.close());
  const rest = new KycClient(n.kyc);
  await rest.register(OWNER.email, OWNER.password, 'Olga Owner');
  await rest.createKey('live');
  receiver.secret = (await rest.addWebhook(hookUrl, ['verification.completed', 'verification.failed', 'credential.issued', 'credential.revoked'])).secret;
  const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const problems: string[] = [];

  const browser = await launchChromium(t);
  const ownerContext = await browser.newContext({ viewport: WIDE });
  const owner = await ownerContext.newPage();
  const probes = [/^Failed to load resource: the server responded with a status of (401|403|404)/];
  const errors = watchConsole(owner, probes);
  await signIn(owner, n.kyc, OWNER);

  await t.test('the owner invites a reviewer and a developer; the reviewer accepts the mailed link', async (t) => {
    await owner.getByRole('link', { name: 'Team' }).click();
    await rendered(owner, 'team');
    for (const [email, role] of [[REVIEWER.email, 'reviewer'], ['dev@review.example', 'developer']] as const) {
      await owner.getByLabel('Email', { exact: true }).fill(email);
      await owner.getByLabel('Role', { exact: true }).selectOption(role);
      await owner.getByRole('button', { name: 'Send invitation' }).click();
      await owner.getByRole('status').filter({ hasText: `Invitation sent to ${email}.` }).waitFor();
    }
    await owner.getByRole('cell', { name: 'dev@review.example', exact: true }).waitFor();
    problems.push(...(await snap(owner, 'team-invited')));
    await owner.getByLabel('Email', { exact: true }).fill('temp@review.example');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.getByRole('button', { name: 'Withdraw the invitation of temp@review.example' }).click();
    await owner.getByRole('cell', { name: 'temp@review.example', exact: true }).waitFor({ state: 'detached' });
    const team = await rest.call('GET', '/v1/team', { auth: 'jwt' });
    t.match(team.invitations, [{ email: REVIEWER.email, role: 'reviewer' }, { email: 'dev@review.example', role: 'developer' }].sort(() => 0), 'both invitations exist through the API');

    const mails = (await (await fetch(`${n.kyc}/v1/operator/mail`, { headers: operator })).json()) as { mails: Array<{ to: string; text: string }> };
    const link = /(\S+\/dashboard\/#\/accept\?token=\S+)/.exec(mails.mails.find((m) => m.to === REVIEWER.email)!.text)![1]!;
    const devToken = /accept\?token=(\S+)/.exec(mails.mails.find((m) => m.to === 'dev@review.example')!.text)![1]!;
    const reviewerPage = await (await browser.newContext({ viewport: WIDE })).newPage();
    await reviewerPage.goto(link);
    await rendered(reviewerPage, 'accept invitation');
    await reviewerPage.getByLabel('Your name').fill('Rita Reviewer');
    await reviewerPage.getByLabel('Password', { exact: true }).fill(REVIEWER.password);
    problems.push(...(await snap(reviewerPage, 'accept-invitation')));
    await reviewerPage.getByRole('button', { name: 'Join the team' }).click();
    await reviewerPage.getByRole('button', { name: 'Sign out' }).waitFor();
    await reviewerPage.getByRole('link', { name: 'Review' }).click();
    await rendered(reviewerPage, 'review');
    t.match(await reviewerPage.locator('#account .who').textContent(), /rita@review\.example · reviewer/, 'signed in as a reviewer');
    t.equal(await reviewerPage.getByRole('link', { name: 'API keys' }).count(), 0, 'a reviewer is not shown the API keys');
    await reviewerPage.close();
    const dev = await rest.call('POST', '/v1/auth/accept-invitation', { body: { token: decodeURIComponent(devToken), name: 'Dev', password: 'the developer passphrase' }, expect: 201 });
    t.equal(dev.user.role, 'developer');
    const devPage = await (await browser.newContext({ viewport: WIDE })).newPage();
    await signIn(devPage, n.kyc, { email: 'dev@review.example', password: 'the developer passphrase' });
    const devNav = await devPage.getByRole('navigation', { name: 'sections' }).getByRole('link').allTextContents();
    t.ok(devNav.includes('API keys') && devNav.includes('Webhooks'), 'a developer is shown the API keys and webhooks');
    t.notOk(devNav.includes('Review'), 'but not the review desk, which the API refuses them');
    await devPage.close();

    await owner.reload();
    await signIn(owner, n.kyc, OWNER);
    await owner.getByRole('link', { name: 'Team' }).click();
    await rendered(owner, 'team');
    t.match((await rest.call('GET', '/v1/team', { auth: 'jwt' })).members, [{ email: OWNER.email, role: 'owner' }, { email: REVIEWER.email, role: 'reviewer', name: 'Rita Reviewer' }, { email: 'dev@review.example', role: 'developer' }], 'the reviewer is a member through the API');
    await owner.getByLabel('Role of dev@review.example').selectOption('admin');
    await owner.getByRole('status').filter({ hasText: 'dev@review.example is now admin.' }).waitFor();
    t.match((await rest.call('GET', '/v1/team', { auth: 'jwt' })).members.find((m: { email: string }) => m.email === 'dev@review.example'), { role: 'admin' }, 'the role is changed through the API');
    await owner.getByRole('button', { name: 'Remove dev@review.example' }).click();
    await owner.getByRole('dialog', { name: 'Remove dev@review.example?' }).getByRole('button', { name: 'Remove member' }).click();
    await rendered(owner, 'team');
    await owner.getByRole('cell', { name: 'dev@review.example', exact: true }).waitFor({ state: 'detached' });
    t.notOk((await rest.call('GET', '/v1/team', { auth: 'jwt' })).members.some((m: { email: string }) => m.email === 'dev@review.example'), 'removed through the API');
    problems.push(...(await snap(owner, 'team')));
  });

  const subjectA = await subjectOnChain(n, 0);
  const subjectB = await subjectOnChain(n, 1);
  const endUsers = await browser.newContext({ ...PHONE, viewport: { width: 390, height: 844 } });
  await endUsers.grantPermissions(['camera'], { origin: n.kyc });
  const a = await rest.createSession({ level: 2, subjectDid: subjectA.did });
  const b = await rest.createSession({ level: 2, subjectDid: subjectB.did });
  t.equal(a.session.sandbox, false, 'live sessions');
  await completeOnHostedPage(endUsers, a.sessionUrl);
  await completeOnHostedPage(endUsers, b.sessionUrl);
  for (const s of [a, b]) t.equal((await rest.getSession(s.session.id)).session.status, 'processing', 'waiting for a person');

  const reviewerContext = await browser.newContext({ viewport: WIDE });
  const desk = await reviewerContext.newPage();
  const deskErrors = watchConsole(desk, probes);
  await signIn(desk, n.kyc, REVIEWER);
  await desk.getByRole('link', { name: 'Review' }).click();
  const reviewerJwt = (await rest.call('POST', '/v1/auth/login', { body: REVIEWER })).token as string;
  const asReviewer = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${n.kyc}${path}`, { method, headers: { authorization: `Bearer ${reviewerJwt}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: (await res.json()) as any };
  };

  await t.test('the desk lists both, oldest first; Approve waits until every piece was opened; approved → the credential on chain and the webhooks', async (t) => {
    await rendered(desk, 'review');
    const rows = desk.getByRole('link', { name: /^ver_/ });
    t.same(await rows.allTextContents(), [a.session.id, b.session.id], 'oldest first');
    problems.push(...(await snap(desk, 'review-desk')));
    await rows.first().click();
    await rendered(desk, 'review session');
    const approve = desk.getByRole('button', { name: 'Approve' });
    const pieces = desk.getByRole('button', { name: /^Open (passport|Liveness frame)/ });
    const count = await pieces.count();
    t.ok(count >= 2, `documents and liveness frames to open (${count})`);
    t.ok(await approve.isDisabled(), 'Approve is disabled before anything was opened');
    t.match(await asReviewer('POST', `/v1/review/sessions/${a.session.id}/approve`), { status: 409, body: { code: 'EVIDENCE_NOT_OPENED' } }, 'and the API refuses it');
    problems.push(...(await snap(desk, 'review-unopened')));
    for (let i = 0; i < count - 1; i++) await pieces.first().click().then(() => desk.locator('figure[data-opened]').nth(i).waitFor());
    t.ok(await approve.isDisabled(), 'still disabled with one piece left');
    await pieces.first().click();
    await desk.locator('figure[data-opened]').nth(count - 1).waitFor();
    t.ok(await approve.isEnabled(), 'enabled once every piece was opened');
    t.equal(await desk.locator('figure.evidence img[src^="blob:"]').count(), count, 'every image shown from a blob: URL');
    problems.push(...(await snap(desk, 'review-opened')));
    await approve.click();
    await desk.getByRole('dialog', { name: 'Approve this session?' }).getByRole('button', { name: 'Approve' }).click();
    const decided = desk.locator('.decision');
    await decided.waitFor();
    t.match(await decided.textContent(), /approved by rita@review\.example on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/, 'the decision shows who and when');
    problems.push(...(await snap(desk, 'review-approved')));

    const done = await until(async () => {
      const s = (await rest.getSession(a.session.id)).session;
      return s.status === 'processing' ? undefined : s;
    });
    t.match(done, { status: 'completed', credentialId: /^urn:ledger:credential:/, review: { outcome: 'pass', decidedBy: { kind: 'user', email: REVIEWER.email } } }, 'completed through the API, with the decision');
    t.match(await n.rpc.credentialVerify(done.credentialId), { valid: true, revoked: false, credential: { subject_did: subjectA.did, kyc_level: 2 } }, 'the credential is valid on chain');
    const completed = await receiver.waitFor((e) => e.type === 'verification.completed' && e.data.verificationId === a.session.id);
    t.equal(completed.data.credentialId, done.credentialId, 'verification.completed arrives with the credential');
    await receiver.waitFor((e) => e.type === 'credential.issued' && e.data.credentialId === done.credentialId);
  });

  await t.test('the second session is rejected with a reason code → verification.failed', async (t) => {
    await desk.getByRole('link', { name: 'Back to the review desk' }).click();
    await rendered(desk, 'review');
    t.same(await desk.getByRole('link', { name: /^ver_/ }).allTextContents(), [b.session.id], 'the decided session left the desk');
    await desk.getByRole('link', { name: b.session.id }).click();
    await rendered(desk, 'review session');
    t.ok(await desk.getByRole('button', { name: 'Reject' }).isDisabled(), 'Reject, too, waits until every piece was opened');
    await desk.getByRole('button', { name: 'Open all' }).click();
    await desk.getByText('You have opened every piece of evidence.').waitFor();
    await desk.getByLabel('Reason', { exact: true }).selectOption('face_mismatch');
    await desk.getByLabel('Message').fill('The selfie shows someone else.');
    problems.push(...(await snap(desk, 'review-reject')));
    await desk.getByRole('button', { name: 'Reject' }).click();
    await desk.locator('.decision').waitFor();
    t.match(await desk.locator('.decision').textContent(), /rejected by rita@review\.example on .* face_mismatch: The selfie shows someone else\./);
    t.match((await rest.getSession(b.session.id)).session, { status: 'failed', reason: 'face_mismatch', review: { outcome: 'fail', reason: 'face_mismatch', message: 'The selfie shows someone else.' } }, 'failed through the API');
    const failed = await receiver.waitFor((e) => e.type === 'verification.failed' && e.data.verificationId === b.session.id);
    t.match(failed.data, { reason: 'face_mismatch' }, 'verification.failed arrives with the reason');
  });

  await t.test('the owner\'s Sessions page: live sessions by status, one session\'s images, timeline, webhook events and credential', async (t) => {
    const credentialId = (await rest.getSession(a.session.id)).session.credentialId as string;
    await owner.getByRole('link', { name: 'Sessions' }).click();
    await rendered(owner, 'sessions');
    t.equal(await owner.getByText('No sessions match.').count(), 1, 'no sandbox sessions');
    await owner.getByRole('switch', { name: 'Sandbox data' }).uncheck();
    await rendered(owner, 'sessions');
    t.same(await owner.getByRole('link', { name: /^ver_/ }).allTextContents(), [b.session.id, a.session.id], 'live: both, newest first');
    await owner.getByLabel('Status').selectOption('completed');
    await owner.getByRole('button', { name: 'Filter' }).click();
    await owner.waitForURL(/status=completed/);
    await rendered(owner, 'sessions');
    t.same(await owner.getByRole('link', { name: /^ver_/ }).allTextContents(), [a.session.id], 'filtered by status');
    const listed = await rest.call('GET', '/v1/verifications?status=completed&mode=live', { auth: 'jwt' });
    t.same(listed.sessions.map((s: { id: string }) => s.id), [a.session.id], 'as the API lists them');
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await owner.getByLabel('From').fill(tomorrow);
    await owner.getByRole('button', { name: 'Filter' }).click();
    await owner.waitForURL(new RegExp(`from=${tomorrow}`));
    await rendered(owner, 'sessions');
    t.equal(await owner.getByText('No sessions match.').count(), 1, 'none from tomorrow on');
    t.equal((await rest.call('GET', `/v1/verifications?status=completed&mode=live&from=${tomorrow}`, { auth: 'jwt' })).total, 0, 'nor in the API');
    await owner.getByLabel('From').fill('');
    await owner.getByRole('button', { name: 'Filter' }).click();
    await owner.waitForURL((url) => !url.hash.includes('from='));
    await rendered(owner, 'sessions');
    problems.push(...(await snap(owner, 'sessions')));

    await owner.getByRole('link', { name: a.session.id }).click();
    await rendered(owner, 'session');
    await owner.getByRole('button', { name: 'Open passport, front' }).click();
    await owner.locator('figure[data-opened] img[src^="blob:"]').first().waitFor();
    t.match(await owner.locator('.decision').textContent(), /approved by rita@review\.example/, 'the decision with who made it');
    const mrz = (await rest.getSession(a.session.id)).session.documents[0].checks.mrz;
    t.equal(await owner.locator('.mrz').first().textContent(), mrz ? `MRZ: ${mrz.valid ? 'valid' : 'invalid'} ${mrz.format}` : 'MRZ: none read', 'the document\'s MRZ result as the API has it');
    const history = await rest.call('GET', `/v1/verifications/${a.session.id}/timeline`, { auth: 'jwt' });
    t.equal(await owner.locator('ol.timeline li').count(), history.timeline.length, 'every timeline entry of the API');
    t.match(await owner.locator('ol.timeline').textContent(), /decided by rita@review\.example/);
    t.ok(await owner.getByRole('cell', { name: /verification\.completed/ }).count(), 'the webhook events sent');
    t.equal(await owner.getByRole('link', { name: 'View on the explorer' }).getAttribute('href'), `${EXPLORER}/#/credential/${encodeURIComponent(credentialId).replaceAll('%3A', ':')}`, 'the credential links to the explorer');
    const [issued] = (await rest.call('GET', `/v1/credentials?credentialId=${encodeURIComponent(credentialId)}`, { auth: 'jwt' })).credentials;
    t.match(await owner.locator('dl.facts').filter({ hasText: 'On chain' }).textContent(), new RegExp(`On chain\\s*issued.*Transaction\\s*${issued.txHash.slice(0, 10)}`, 's'), "the credential's on-chain state and transaction, as the API has them");
    problems.push(...(await snap(owner, 'session')));
    await owner.getByRole('switch', { name: 'Sandbox data' }).check();
  });

  await t.test('the owner sees the live credential with its explorer link and revokes it', async (t) => {
    const credentialId = (await rest.getSession(a.session.id)).session.credentialId as string;
    await owner.getByRole('link', { name: 'Credentials' }).click();
    await rendered(owner, 'credentials');
    t.equal(await owner.getByText('No sandbox credentials yet.').count(), 1, 'none in sandbox');
    await owner.getByRole('switch', { name: 'Sandbox data' }).uncheck();
    await rendered(owner, 'credentials');
    const explorer = owner.getByRole('link', { name: 'View on the explorer' });
    t.equal(await explorer.getAttribute('href'), `${EXPLORER}/#/credential/${encodeURIComponent(credentialId).replaceAll('%3A', ':')}`, 'a link to the explorer\'s credential page');
    problems.push(...(await snap(owner, 'credentials')));
    await owner.getByRole('button', { name: `Revoke ${credentialId}` }).click();
    const dialog = owner.getByRole('dialog', { name: 'Revoke this credential?' });
    await dialog.getByLabel('Reason').fill('fraud reported');
    await dialog.getByRole('button', { name: 'Revoke credential' }).click();
    await owner.getByRole('cell', { name: /fraud reported/ }).waitFor({ timeout: 60_000 });
    t.match((await rest.call('GET', '/v1/credentials?mode=live', { auth: 'jwt' })).credentials, [{ credentialId, revoked: true, revocationReason: 'fraud reported' }], 'revoked through the API');
    t.match(await n.rpc.credentialVerify(credentialId), { revoked: true }, 'and on chain');
    await receiver.waitFor((e) => e.type === 'credential.revoked' && e.data.credentialId === credentialId);
  });

  t.same([...errors, ...deskErrors], [], 'no console error (a CSP violation is one)');
  t.same(problems, [], 'every page passes the contrast and labels checks at both widths, light and dark');
  t.equal(receiver.rejected, 0, 'every webhook verified');
  await n.node.stop();
});
