import type { Browser } from 'playwright-core';
import { launchHeadlessChromium } from '../../bench/lib/chromium.js';

export { CHROMIUM_PATH, chromiumMissing } from '../../bench/lib/chromium.js';

/**
 * Headless Chromium for the browser tests (bench/lib/chromium.ts), with a fake camera so
 * getUserMedia works without hardware and without a permission prompt; closed at the test's end.
 */
export const FAKE_MEDIA_ARGS = ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'] as const;

export async function launchChromium(t: { teardown(fn: () => unknown): void }, opts: { extraArgs?: string[] } = {}): Promise<Browser> {
  const browser = await launchHeadlessChromium([...FAKE_MEDIA_ARGS, ...(opts.extraArgs ?? [])]);
  t.teardown(() => browser.close());
  return browser;
}
