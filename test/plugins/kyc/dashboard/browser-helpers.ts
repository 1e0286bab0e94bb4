import { fileURLToPath } from 'node:url';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { contrastProblems } from '../../../e2e/contrast.js';
import { a11yProblems, watchConsole } from '../hosted/page-helpers.js';

/** What the dashboard's browser tests share: screenshots at both widths with the checks, signing in. */

export const SCREENSHOTS = fileURLToPath(new URL('../../../e2e/screenshots/', import.meta.url));
mkdirSync(SCREENSHOTS, { recursive: true });

export const WIDE = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export { watchConsole };

/** polls `probe` until it answers something (the node's work is asynchronous) */
export async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits until the app's render of the page named `page` (main[data-page]) is done. */
export async function rendered(page: Page, name: string): Promise<void> {
  try {
    await page.locator(`main[data-page="${name}"]:not([aria-busy])`).waitFor({ timeout: 15_000 });
  } catch {
    const at = await page.evaluate("`${location.hash} ${document.querySelector('main')?.dataset.page}: ${document.querySelector('main')?.textContent?.slice(0, 300)}`");
    throw new Error(`the ${name} page did not render; the app shows ${at}`);
  }
}

/**
 * Screenshots of the current page at 1,280 and 390 px wide (light, then dark at 390), each
 * checked for contrast and the accessibility smoke check; returns the problems found, by width.
 */
export async function snap(page: Page, name: string): Promise<string[]> {
  const problems: string[] = [];
  const check = async (label: string) => {
    for (const p of await contrastProblems(page)) problems.push(`${name} ${label} contrast: ${p}`);
    for (const p of await a11yProblems(page)) problems.push(`${name} ${label}: ${p}`);
  };
  await page.setViewportSize(WIDE);
  await page.screenshot({ path: `${SCREENSHOTS}kyc-dashboard-${name}-1280.png`, fullPage: true });
  await check('1280');
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${SCREENSHOTS}kyc-dashboard-${name}-390.png`, fullPage: true });
  await check('390');
  const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
  if (overflow > 0) problems.push(`${name} 390: the page scrolls sideways by ${overflow}px`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: `${SCREENSHOTS}kyc-dashboard-${name}-390-dark.png`, fullPage: true });
  await check('390 dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(WIDE);
  return problems;
}
