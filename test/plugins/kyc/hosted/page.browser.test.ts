import t from 'tap';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../../e2e/browser.js';
import { startFakeHostedApi } from './fake-hosted-api.js';
import { a11yProblems, agree, focusedId, focusedText, LAPTOP, lumaStdDev, PHONE, shot, tabTo, testImage, watchConsole } from './page-helpers.js';

// The hosted page in headless Chromium with a fake camera, against the hosted JSON routes in the
// seed's shapes: camera capture, liveness frames, file uploads, server errors, the result, the
// credential-offer QR code and the return to redirectUrl, on a phone and a laptop viewport.

const OFFER = 'openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fverify.example%2Foffers%2Foff_123';

let browser: Browser;
t.before(async () => {
  browser = await launchChromium(t);
});

t.test('phone: national ID by camera, liveness, address by file, credential QR, Continue', async (t) => {
  const api = await startFakeHostedApi(t);
  const s = api.create({ level: 3, redirectUrl: `${api.url}/return?ref=abc`, offerUri: OFFER });
  const context = await browser.newContext(PHONE);
  t.teardown(() => context.close());
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors = watchConsole(page);
  await page.goto(api.pageUrl(s));
  await agree(page);

  await page.getByRole('heading', { level: 2, name: 'Photograph your identity document' }).waitFor();
  t.equal(await page.locator('#org-name').textContent(), 'Acme Bank');
  t.same(await page.locator('#steps li').allTextContents(), ['Identity document (current step)', 'Liveness check', 'Proof of address']);
  t.same(await a11yProblems(page), [], 'document step passes the accessibility smoke check');
  t.equal(await page.evaluate('document.documentElement.scrollWidth'), 390, 'no horizontal scroll at 390px');
  await shot(page, 'phone-1-document');

  await page.getByLabel('National identity card').check();
  for (const side of ['front', 'back']) {
    t.ok(await page.getByRole('radio', { name: side === 'front' ? 'Front' : 'Back', exact: true }).isChecked(), `${side} is the side asked for`);
    await page.getByRole('button', { name: 'Use the camera' }).click();
    await page.getByRole('button', { name: 'Take photo' }).click();
    await page.getByRole('img', { name: `Your photo of the ${side} of the document` }).waitFor();
    if (side === 'front') await shot(page, 'phone-2-photo-taken');
    await page.getByRole('button', { name: 'Upload photo' }).click();
    if (side === 'front') await page.getByText('The front was uploaded. Now photograph the back.').waitFor();
  }

  await page.getByRole('heading', { level: 2, name: 'Liveness check' }).waitFor();
  t.equal(await focusedId(page), 'live-h', 'focus moves to the new step');
  await page.getByText('slowly turn your head to the left').waitFor();
  t.same(await a11yProblems(page), []);
  await shot(page, 'phone-3-liveness');
  await page.getByRole('button', { name: 'Start the check' }).click();

  await page.getByRole('heading', { level: 2, name: 'Proof of address' }).waitFor();
  await page.getByLabel(/Photo or scan of the document/).setInputFiles({ name: 'bill.png', mimeType: 'image/png', buffer: testImage('png') });
  await page.getByRole('img', { name: 'Your proof of address' }).waitFor();
  t.same(await a11yProblems(page), []);
  await page.getByRole('button', { name: 'Upload document' }).click();

  await page.getByRole('heading', { level: 2, name: 'We are checking your documents…' }).waitFor();
  await shot(page, 'phone-4-checking');
  await page.getByRole('heading', { level: 2, name: 'Verification complete' }).waitFor({ timeout: 30_000 });
  const qr = page.getByRole('img', { name: 'QR code of your credential offer' });
  await qr.waitFor();
  t.ok(await page.evaluate("document.querySelector('#offer-qr').naturalWidth >= 200"), 'the QR code image is rendered');
  t.equal(await page.getByRole('link', { name: 'Open in your wallet' }).getAttribute('href'), OFFER);
  t.same(await a11yProblems(page), []);
  await shot(page, 'phone-5-result');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${api.url}/return?ref=abc`);

  // what the browser uploaded: two camera JPEGs, five liveness JPEGs, the PNG proof of address
  t.same(s.documents.map((d) => [d.fields['type'], d.fields['side'], d.fields['final'], d.files[0]!.format]), [
    ['national_id', 'front', 'false', 'jpeg'],
    ['national_id', 'back', 'true', 'jpeg'],
    ['address_proof', 'front', 'true', 'png'],
  ]);
  for (const d of s.documents.slice(0, 2)) {
    const file = d.files[0]!;
    t.equal(file.mimeType, 'image/jpeg');
    const { width, height, stdDev } = lumaStdDev(file.bytes);
    t.ok(width >= 320 && height >= 240, `camera photo is ${width}x${height}`);
    t.ok(stdDev > 10, `camera photo has content (luma spread ${stdDev.toFixed(1)})`);
  }
  const frames = s.liveness[0]!.files;
  t.equal(frames.length, 5, 'five liveness frames');
  t.ok(frames.every((f) => f.field === 'frames' && f.format === 'jpeg' && f.mimeType === 'image/jpeg' && f.width <= 640));
  t.ok(new Set(frames.map((f) => f.bytes.toString('base64'))).size > 1, 'the frames are taken at different moments');
  t.ok(api.offerCalls() >= 1);
  t.same(errors, [], 'no console errors (CSP included)');
});

t.test('laptop, keyboard only: passport by camera, liveness, a failed result, then the automatic return', async (t) => {
  const api = await startFakeHostedApi(t);
  const s = api.create({ level: 2, outcome: 'failed', redirectUrl: `${api.url}/return`, pollsUntilDecision: 1 });
  const context = await browser.newContext(LAPTOP);
  t.teardown(() => context.close());
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors = watchConsole(page);
  await page.goto(api.pageUrl(s));
  await agree(page);
  await page.getByRole('heading', { level: 2, name: 'Photograph your identity document' }).waitFor();
  t.ok(await page.getByRole('radio', { name: 'Back', exact: true }).isDisabled(), 'a passport has one side');
  await shot(page, 'laptop-1-document');

  await tabTo(page, 'Use the camera');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Take photo' }).waitFor();
  t.equal(await focusedText(page), 'Take photo', 'focus goes to Take photo');
  await page.keyboard.press('Enter');
  await page.getByRole('img', { name: 'Your photo of the front of the document' }).waitFor();
  t.equal(await focusedText(page), 'Upload photo', 'focus goes to Upload');
  await page.keyboard.press('Enter');

  await page.getByRole('heading', { level: 2, name: 'Liveness check' }).waitFor();
  t.equal(await focusedId(page), 'live-h');
  await page.getByText('slowly turn your head').waitFor();
  await tabTo(page, 'Start the check');
  await page.keyboard.press('Space');
  await page.getByRole('heading', { level: 2, name: 'We could not verify your identity' }).waitFor({ timeout: 30_000 });
  t.equal(await focusedId(page), 'result-h');
  const result = await page.locator('#result-text').textContent();
  t.match(result, /^The face in your selfie photos did not match the photo on your document\. Acme Bank has received the result/, 'the reason in words for people');
  t.notMatch(result, /liveness frames/, 'not the server\'s message');
  t.ok(await page.getByRole('status').textContent().then((x) => /return to 127\.0\.0\.1:\d+ in 5 seconds/.test(x ?? '')), 'the return is announced');
  t.notOk(await page.locator('#offer').isVisible(), 'no offer on a failure');
  await shot(page, 'laptop-2-failed');
  // the return waits: announced at 5 seconds above, the countdown reaches its last second before the page leaves
  await page.getByText(/^Returning to 127\.0\.0\.1:\d+ in 1 seconds\.$/).waitFor({ timeout: 20_000 });
  t.pass('the return counted down to its last second');
  await page.waitForURL(`${api.url}/return`, { timeout: 20_000 });

  t.same(s.documents.map((d) => [d.fields['type'], d.fields['side'], d.fields['final']]), [['passport', 'front', 'true']]);
  t.equal(s.liveness[0]!.files.length, 5);
  t.equal(s.liveness[0]!.fields['challengeId'], 'chl_fake1', 'the frames name their challenge');
  t.same(errors, []);
});

t.test('phone, file uploads: a refused photo shows the sentence for its code, a non-image is refused, then front and back', async (t) => {
  const api = await startFakeHostedApi(t);
  const s = api.create({ level: 1, rejectNextDocument: { code: 'IMAGE_UNDECODABLE', detail: 'file: the JPEG does not decode (premature end of data)' } });
  const context = await browser.newContext(PHONE);
  t.teardown(() => context.close());
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors = watchConsole(page, [/status of 400/]);
  await page.goto(api.pageUrl(s));
  await agree(page);
  await page.getByRole('heading', { level: 2, name: 'Photograph your identity document' }).waitFor();
  await page.getByLabel('Driving licence').check();
  const file = page.getByLabel(/Or choose a photo/);

  await file.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
  await page.getByRole('alert').filter({ hasText: 'This file is not an image that can be read' }).waitFor();
  t.ok(await page.getByRole('button', { name: 'Upload photo' }).isDisabled());

  await file.setInputFiles({ name: 'front.jpg', mimeType: 'image/jpeg', buffer: testImage('jpeg') });
  await page.getByRole('button', { name: 'Upload photo' }).click();
  await page.getByRole('alert').filter({ hasText: 'This photo could not be opened; it may be damaged.' }).waitFor();
  t.notMatch(await page.getByRole('alert').first().textContent(), /decode|file:/, 'not the server\'s text');
  await shot(page, 'phone-6-upload-refused');
  t.equal(s.documents.length, 0);
  await page.getByRole('button', { name: 'Upload photo' }).click();
  await page.getByText('The front was uploaded. Now photograph the back.').waitFor();
  t.equal(await page.getByRole('alert').first().textContent(), '', 'the error is cleared');

  await file.setInputFiles({ name: 'back.png', mimeType: 'image/png', buffer: testImage('png') });
  await page.getByRole('button', { name: 'Upload photo' }).click();
  await page.getByRole('heading', { level: 2, name: 'Verification complete' }).waitFor({ timeout: 30_000 });
  t.notOk(await page.getByRole('button', { name: 'Continue' }).isVisible(), 'no Continue without redirectUrl');
  t.notOk(await page.locator('#offer').isVisible());
  t.same(s.documents.map((d) => [d.fields['type'], d.fields['side'], d.fields['final'], d.files[0]!.format, d.files[0]!.width]), [
    ['driving_license', 'front', 'false', 'jpeg', 900],
    ['driving_license', 'back', 'true', 'png', 900],
  ]);
  t.same(errors, []);
});

t.test('unknown link, expired session, a failed level-1 session, and a redirectUrl that is not http(s)', async (t) => {
  const api = await startFakeHostedApi(t);
  const context = await browser.newContext(PHONE);
  t.teardown(() => context.close());
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors = watchConsole(page, [/status of 404/]);

  await page.goto(`${api.url}/v/s/sess_tok_doesnotexist`);
  await page.getByRole('heading', { level: 2, name: 'This link is not valid' }).waitFor();
  t.match(await page.locator('#result-text').textContent(), /unknown or has expired/);
  t.same(await a11yProblems(page), []);
  await shot(page, 'phone-7-unknown-link');

  const s = api.create({ level: 1, status: 'expired', redirectUrl: 'javascript:alert(1)' });
  await page.goto(api.pageUrl(s));
  await page.getByRole('heading', { level: 2, name: 'This verification has expired' }).waitFor();
  t.match(await page.locator('#result-text').textContent(), /Ask Acme Bank for a new link/);
  t.notOk(await page.getByRole('button', { name: 'Continue' }).isVisible(), 'a javascript: redirectUrl is not followed');

  // the sandbox's fail is face_mismatch at every level, but a level-1 session took no selfie
  const failed = api.create({ level: 1, status: 'failed' });
  await page.goto(api.pageUrl(failed));
  await page.getByRole('heading', { level: 2, name: 'We could not verify your identity' }).waitFor();
  const text = await page.locator('#result-text').textContent();
  t.match(text, /^Your document could not be verified\. Acme Bank has received the result/);
  t.notMatch(text, /liveness|selfie|face/i, 'a level-1 session never mentions liveness');
  t.same(errors, []);
});
