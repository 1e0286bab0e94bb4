import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Headless Chromium for the benches and the browser tests (test/e2e/browser.ts): the
 * distribution's `chromium` package (CI installs it when it is missing), driven by
 * playwright-core. `CHROMIUM_PATH` points at another binary. The caller closes it.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The error message when no browser can be run, or undefined when one can. */
export function chromiumMissing(path = CHROMIUM_PATH): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${path}: install the distribution's chromium package, or set CHROMIUM_PATH to a Chromium binary`;
  }
}

export async function launchHeadlessChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', ...extraArgs] });
}
