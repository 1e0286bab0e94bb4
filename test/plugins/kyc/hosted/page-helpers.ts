import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';

/** What the browser tests share: screenshots, console watching, the accessibility smoke check, test images. */

export const SCREENSHOTS = fileURLToPath(new URL('../../../e2e/screenshots/', import.meta.url));
mkdirSync(SCREENSHOTS, { recursive: true });

/** the two widths the screenshots are taken at */
export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const LAPTOP = { viewport: { width: 1280, height: 800 } };

export const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}kyc-hosted-${name}.png`, fullPage: true });

/** Console errors and uncaught exceptions (a CSP violation is a console error). */
export function watchConsole(page: Page, allow: RegExp[] = []): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !allow.some((re) => re.test(m.text()))) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/**
 * The smoke check (evaluated in the page, so plain browser JavaScript): one h1, main landmark, lang, every form
 * control labelled, every image with an alt attribute (non-empty when shown), every visible
 * button named, videos labelled, a live region. Returns what is wrong.
 */
const A11Y_SMOKE = String.raw`
(() => {
  const problems = [];
  const visible = (el) => el.getClientRects().length > 0;
  const h1 = document.querySelectorAll('h1').length;
  if (h1 !== 1) problems.push(h1 + ' h1 elements');
  if (!document.querySelector('main')) problems.push('no main landmark');
  if (!document.documentElement.lang) problems.push('no lang on html');
  for (const el of document.querySelectorAll('input, select, textarea')) {
    const named = (el.labels && el.labels.length > 0) || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby');
    if (!named) problems.push('unlabelled ' + el.tagName.toLowerCase() + ' ' + (el.id || el.name));
  }
  for (const img of document.querySelectorAll('img')) {
    if (!img.hasAttribute('alt')) problems.push('img without alt: ' + (img.id || img.className));
    else if (visible(img) && !img.getAttribute('alt')) problems.push('visible img with empty alt: ' + (img.id || img.className));
  }
  for (const b of document.querySelectorAll('button')) {
    if (visible(b) && !b.textContent.trim() && !b.getAttribute('aria-label')) problems.push('button without a name');
  }
  for (const v of document.querySelectorAll('video')) if (!v.getAttribute('aria-label')) problems.push('video without a label');
  if (!document.querySelector('[aria-live]')) problems.push('no live region');
  return problems;
})()
`;
export const a11yProblems = (page: Page): Promise<string[]> => page.evaluate(A11Y_SMOKE) as Promise<string[]>;

/** The consent notice comes first on a pending session: agreeing leads to the steps. */
export async function agree(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 2, name: 'Before you start' }).waitFor();
  await page.getByRole('button', { name: 'I agree, continue' }).click();
}

/**
 * Counts the page's camera calls (getUserMedia, enumerateDevices) from before its first script,
 * so a test can tell that nothing touched the camera yet; read with `cameraCalls(page)`.
 */
const COUNT_CAMERA_CALLS = String.raw`
(() => {
  window.__cameraCalls = [];
  const media = navigator.mediaDevices;
  if (!media) return;
  for (const name of ['getUserMedia', 'enumerateDevices']) {
    const original = media[name].bind(media);
    Object.defineProperty(media, name, { value: (...args) => (window.__cameraCalls.push(name), original(...args)) });
  }
})()
`;
export const countCameraCalls = (page: Page) => page.addInitScript({ content: COUNT_CAMERA_CALLS });
export const cameraCalls = (page: Page) => page.evaluate('window.__cameraCalls') as Promise<string[]>;

/** Presses Tab until the focused element's text matches, as a keyboard-only user would. */
export async function tabTo(page: Page, text: string | RegExp, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await focusedText(page);
    if (typeof text === 'string' ? focused === text : text.test(focused)) return;
  }
  throw new Error(`Tab never reached ${String(text)}`);
}

export const focusedId = (page: Page) => page.evaluate('document.activeElement?.id ?? ""') as Promise<string>;
export const focusedText = (page: Page) => page.evaluate('document.activeElement?.textContent?.trim() ?? ""') as Promise<string>;

/** A photo-like test image: gradients and a few bars, so it has detail. */
export function testImage(format: 'jpeg' | 'png', width = 900, height = 560): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const bar = Math.floor(x / 60) % 2 === 0 && y > height / 3 && y < height / 2 ? 0 : 1;
      data[i] = ((x * 255) / width) * bar;
      data[i + 1] = ((y * 255) / height) * bar;
      data[i + 2] = 160 * bar;
      data[i + 3] = 255;
    }
  }
  if (format === 'jpeg') return jpeg.encode({ data, width, height }, 85).data;
  const png = new PNG({ width, height });
  data.copy(png.data);
  return PNG.sync.write(png);
}

/** A 160x48 PNG logo in one colour (the brand purple of the tests), as a data URI. */
export function testLogo(): string {
  const png = new PNG({ width: 160, height: 48 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([107, 31, 168, 255], i);
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

/** The spread of a JPEG's luminance: a camera frame with content is far from flat. */
export function lumaStdDev(bytes: Buffer): { width: number; height: number; stdDev: number } {
  const img = jpeg.decode(bytes, { maxMemoryUsageInMB: 256 });
  let sum = 0;
  let sq = 0;
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const l = 0.299 * img.data[i * 4]! + 0.587 * img.data[i * 4 + 1]! + 0.114 * img.data[i * 4 + 2]!;
    sum += l;
    sq += l * l;
  }
  const mean = sum / n;
  return { width: img.width, height: img.height, stdDev: Math.sqrt(sq / n - mean * mean) };
}
