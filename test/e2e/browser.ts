import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Headless Chromium for the browser tests: the distribution's `chromium` package (CI installs it
 * when it is missing), driven by playwright-core, with a fake camera so getUserMedia works without
 * hardware and without a permission prompt. `CHROMIUM_PATH` points at another binary.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const FAKE_MEDIA_ARGS = ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'] as const;

/** The error message when no browser can be run, or undefined when one can. */
export function chromiumMissing(path = CHROMIUM_PATH): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${path}: install the distribution's chromium package, or set CHROMIUM_PATH to a Chromium binary`;
  }
}

export async function launchChromium(t: { teardown(fn: () => unknown): void }, opts: { extraArgs?: string[] } = {}): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...FAKE_MEDIA_ARGS, '--no-sandbox', ...(opts.extraArgs ?? [])],
  });
  t.teardown(() => browser.close());
  return browser;
}
