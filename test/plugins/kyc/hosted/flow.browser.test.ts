import t, { type Test } from 'tap';
import QRCode from 'qrcode';
import type { Browser, Page } from 'playwright-core';
import { launchHeadlessChromium } from '../../../../bench/lib/chromium.js';
import { launchChromium } from '../../../e2e/browser.js';
import { contrastProblems } from '../../../e2e/contrast.js';
import { startFakeHostedApi } from './fake-hosted-api.js';
import { a11yProblems, agree, cameraCalls, countCameraCalls, LAPTOP, PHONE, shot, testImage, testLogo, watchConsole } from './page-helpers.js';

// The hosted page's consent notice, its hand-off to a phone when the computer has no camera, the
// selfie-file fallback of the liveness check, the organization's branding with its contrast, and
// a server code worded from the catalogue; in headless Chromium with a fake camera, and in one
// launched without it (no camera at all).

let browser: Browser;
let noCamera: Browser;
t.before(async () => {
  browser = await launchChromium(t);
  noCamera = await launchHeadlessChromium([]);
  t.teardown(() => noCamera.close());
});

async function open(t: Test, b: Browser, options: object, url: string, allow: RegExp[] = []): Promise<{ page: Page; errors: string[] }> {
  const context = await b.newContext(options);
  t.teardown(() => context.close());
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors = watchConsole(page, allow);
  await countCameraCalls(page);
  await page.goto(url);
  return { page, errors };
}

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name });

t.test('the notice states the retention the service gives: one day, or kept when null', async (t) => {
  const api = await startFakeHostedApi(t);
  const cases = [
    [1, 'The photos are deleted one day after the decision; the result and the data read from your document are kept for Acme Bank.'],
    [null, 'They are not deleted automatically after the decision: ask Acme Bank if you want them deleted.'],
  ] as const;
  for (const [days, sentence] of cases) {
    const { page, errors } = await open(t, browser, PHONE, api.pageUrl(api.create({ level: 1, evidenceRetentionDays: days })));
    await heading(page, 'Before you start').waitFor();
    t.match(await page.locator('#consent-retention').textContent(), sentence, `retention ${days}`);
    t.same(errors, []);
  }
});

t.test('consent comes first: nothing touches the camera before agreeing; declining offers the way back', async (t) => {
  const api = await startFakeHostedApi(t);
  const s = api.create({ level: 2, redirectUrl: `${api.url}/return?declined=1` });
  const { page, errors } = await open(t, browser, PHONE, api.pageUrl(s));

  await heading(page, 'Before you start').waitFor();
  t.same(await cameraCalls(page), [], 'no camera call before agreeing');
  const notice = (await page.locator('#view-consent').innerText()).replace(/\s+/g, ' ');
  t.match(notice, 'Acme Bank asks you to verify your identity.');
  t.match(notice, 'Photos of your identity document.');
  t.match(notice, 'The selfie photos taken during the liveness check.', 'a level-2 session keeps selfies');
  t.notMatch(notice, 'proof of address', 'and no proof of address');
  t.match(notice, 'name, date of birth, nationality, document number and expiry date');
  t.match(notice, /You have until .+ to finish\./);
  t.match(notice, 'The photos are deleted 30 days after the decision; the result and the data read from your document are kept for Acme Bank.', 'the retention the service gives');
  t.match(notice, 'Acme Bank decides whether your identity is verified.');
  t.notOk(await page.getByRole('button', { name: 'Use the camera' }).isVisible(), 'no camera step yet');
  t.same(await a11yProblems(page), []);
  t.same(await contrastProblems(page), []);
  t.equal(await page.evaluate('document.documentElement.scrollWidth'), 390, 'no horizontal scroll at 390px');
  await shot(page, 'phone-0-consent');

  await page.getByRole('button', { name: 'I do not agree' }).click();
  await heading(page, 'You did not agree').waitFor();
  t.match(await page.locator('#declined-text').textContent(), /^Nothing was sent and the camera was not turned on\./);
  const back = page.getByRole('button', { name: /^Return to 127\.0\.0\.1:\d+$/ });
  await back.waitFor();
  await shot(page, 'phone-0-declined');
  await page.getByRole('button', { name: 'Read the notice again' }).click();
  await heading(page, 'Before you start').waitFor();
  await page.getByRole('button', { name: 'I do not agree' }).click();
  await back.click();
  await page.waitForURL(`${api.url}/return?declined=1`);
  t.same(s.documents, [], 'nothing was sent');

  await page.goto(api.pageUrl(s));
  await agree(page);
  await heading(page, 'Photograph your identity document').waitFor();
  t.notOk((await cameraCalls(page)).includes('getUserMedia'), 'agreeing does not turn the camera on');
  await page.reload();
  await heading(page, 'Photograph your identity document').waitFor();
  t.pass('the consent holds for this tab after a reload');
  t.same(errors, []);
});

t.test('no camera: the computer shows a QR code of the session URL, the phone finishes, the computer moves on', async (t) => {
  const api = await startFakeHostedApi(t);
  const s = api.create({ level: 2, pollsUntilDecision: 3 });
  const desk = await open(t, noCamera, LAPTOP, api.pageUrl(s));
  await agree(desk.page);
  await heading(desk.page, 'Continue on your phone').waitFor();
  const qr = desk.page.getByRole('img', { name: 'QR code of the link to this verification' });
  await qr.waitFor();
  const expected = await QRCode.toDataURL(api.pageUrl(s), { errorCorrectionLevel: 'M', margin: 2, width: 320 });
  t.equal(await qr.getAttribute('src'), expected, 'the QR code holds the session URL and nothing else');
  t.same(await a11yProblems(desk.page), []);
  t.same(await contrastProblems(desk.page), []);
  await shot(desk.page, 'laptop-3-handoff');
  await desk.page.reload();
  await heading(desk.page, 'Continue on your phone').waitFor();
  t.pass('after a reload the consent holds and the phone is offered again');

  const phone = await open(t, browser, PHONE, api.pageUrl(s));
  await agree(phone.page);
  await phone.page.getByRole('button', { name: 'Use the camera' }).click();
  await phone.page.getByRole('button', { name: 'Take photo' }).click();
  await phone.page.getByRole('button', { name: 'Upload photo' }).click();
  await heading(phone.page, 'Liveness check').waitFor();
  await desk.page.getByText('Done on your phone: Identity document.').waitFor();
  t.ok(await heading(desk.page, 'Continue on your phone').isVisible(), 'the computer waits while the phone has a step left');
  await phone.page.getByRole('button', { name: 'Start the check' }).click();

  await heading(desk.page, 'Verification complete').waitFor({ timeout: 30_000 });
  t.pass('the computer shows the result the phone reached');
  t.equal(s.documents.length, 1);
  t.equal(s.liveness[0]!.files.length, 5, 'the phone sent the camera frames');
  t.same(desk.errors, []);
  t.same(phone.errors, []);
});

t.test('no camera: photo files here, and selfie files for the liveness check, complete the session', async (t) => {
  const api = await startFakeHostedApi(t);
  const s = api.create({ level: 2 });
  const { page, errors } = await open(t, noCamera, LAPTOP, api.pageUrl(s));
  await agree(page);
  await page.getByRole('button', { name: 'Use photo files on this device instead' }).click();
  await heading(page, 'Photograph your identity document').waitFor();
  t.notOk(await page.getByRole('button', { name: 'Use the camera' }).isVisible(), 'no camera button without a camera');
  await page.getByLabel(/Or choose a photo/).setInputFiles({ name: 'passport.jpg', mimeType: 'image/jpeg', buffer: testImage('jpeg') });
  await page.getByRole('button', { name: 'Upload photo' }).click();

  await heading(page, 'Liveness check').waitFor();
  await page.getByText('Look at the camera, then slowly turn your head to the left.').waitFor();
  t.notOk(await page.getByRole('button', { name: 'Start the check' }).isVisible(), 'no camera check without a camera');
  const files = page.getByLabel('Choose your selfie photos (JPEG or PNG)');
  await files.setInputFiles([{ name: 'one.jpg', mimeType: 'image/jpeg', buffer: testImage('jpeg', 1200, 1600) }]);
  await page.getByRole('alert').filter({ hasText: 'Choose at least 2 photos.' }).waitFor();
  t.ok(await page.getByRole('button', { name: 'Send the photos' }).isDisabled());
  await files.setInputFiles(['a', 'b', 'c'].map((n, i) => ({ name: `${n}.${i === 2 ? 'png' : 'jpg'}`, mimeType: i === 2 ? 'image/png' : 'image/jpeg', buffer: testImage(i === 2 ? 'png' : 'jpeg', 1200, 1600) })));
  await page.getByText('3 photos chosen.').waitFor();
  t.same(await a11yProblems(page), []);
  await shot(page, 'laptop-4-liveness-files');
  await page.getByRole('button', { name: 'Send the photos' }).click();
  await heading(page, 'Verification complete').waitFor({ timeout: 30_000 });

  const frames = s.liveness[0]!.files;
  t.equal(frames.length, 3, 'three selfie frames');
  t.ok(frames.every((f) => f.field === 'frames' && f.format === 'jpeg' && f.height === 640 && f.width === 480), 'each re-encoded as a JPEG of at most 640 px, as camera frames are');
  t.equal(s.liveness[0]!.fields['challengeId'], 'chl_fake1');
  t.same(errors, []);
});

t.test('branding: the logo and the colour, with AA contrast kept; a colour that cannot keep it is not used', async (t) => {
  const api = await startFakeHostedApi(t);
  const branded = api.create({ level: 1, branding: { color: '#6b1fa8', logo: testLogo() } });
  const background = (page: Page) => page.evaluate("getComputedStyle(document.querySelector('#consent-agree')).backgroundColor") as Promise<string>;

  for (const [name, options] of [['phone-8-branded', PHONE], ['laptop-5-branded', LAPTOP]] as const) {
    const { page, errors } = await open(t, browser, options, api.pageUrl(branded));
    await heading(page, 'Before you start').waitFor();
    const img = page.getByRole('img', { name: 'Acme Bank logo' });
    await img.waitFor();
    t.equal(await page.evaluate("document.querySelector('#org-logo').naturalWidth"), 160, 'the logo is shown');
    t.equal(await background(page), 'rgb(107, 31, 168)', 'primary buttons in the brand colour');
    t.same(await contrastProblems(page), [], `${name}: contrast`);
    await shot(page, name);
    await agree(page);
    await heading(page, 'Photograph your identity document').waitFor();
    t.same(await contrastProblems(page), []);
    t.same(errors, []);
  }

  const dark = await open(t, browser, { ...PHONE, colorScheme: 'dark' }, api.pageUrl(branded));
  await heading(dark.page, 'Before you start').waitFor();
  t.equal(await background(dark.page), 'rgb(138, 180, 248)', 'in the dark scheme the dark purple cannot keep AA: the default accent');
  t.same(await contrastProblems(dark.page), [], 'dark scheme contrast');
  await shot(dark.page, 'phone-9-dark');
  await agree(dark.page);
  await heading(dark.page, 'Photograph your identity document').waitFor();
  t.same(await contrastProblems(dark.page), [], 'dark scheme contrast on the document step');
  await shot(dark.page, 'phone-9-dark-document');

  const garish = api.create({ level: 1, branding: { color: '#e0301e' } });
  const { page } = await open(t, browser, PHONE, api.pageUrl(garish));
  await heading(page, 'Before you start').waitFor();
  t.equal(await background(page), 'rgb(11, 87, 208)', 'a red that misses AA on the page background: the default accent');
  t.notOk(await page.locator('#org-logo').isVisible(), 'no logo, no image');
  t.same(await contrastProblems(page), []);
});

t.test('a refused liveness submission shows the catalogue\'s sentence for its code, never the server\'s text', async (t) => {
  const api = await startFakeHostedApi(t);
  const s = api.create({ level: 2, rejectNextLiveness: { code: 'LIVENESS_CHALLENGE_EXPIRED', detail: 'the liveness challenge expired at 2026-11-29T23:00:00.000Z; get a new one' } });
  const { page, errors } = await open(t, browser, PHONE, api.pageUrl(s), [/status of 409/]);
  await agree(page);
  await page.getByLabel(/Or choose a photo/).setInputFiles({ name: 'p.jpg', mimeType: 'image/jpeg', buffer: testImage('jpeg') });
  await page.getByRole('button', { name: 'Upload photo' }).click();
  await page.getByRole('button', { name: 'Start the check' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'The check took too long. Try again.' });
  await alert.waitFor();
  t.notMatch(await alert.textContent(), /expired at|challenge|2026/, 'not the server\'s text');
  await page.getByRole('button', { name: 'Try again' }).click();
  await heading(page, 'We are checking your documents…').waitFor({ timeout: 30_000 });
  t.equal(s.liveness.length, 1, 'the second try went through');
  t.same(errors, []);
});
