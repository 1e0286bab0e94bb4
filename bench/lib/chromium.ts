import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Headless Chromium for the benches, launched as the browser tests launch it: the distribution's
 * `chromium` (or `CHROMIUM_PATH`), driven by playwright-core. The caller closes it.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBenchChromium(): Promise<Browser> {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: install the distribution's chromium package, or set CHROMIUM_PATH to a Chromium binary`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
}
