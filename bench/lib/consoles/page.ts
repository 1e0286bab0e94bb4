import type { Page } from 'playwright-core';

/** One page of a console for bench/consoles, and how to get it on screen. */
export interface ConsolePage {
  /** which console: `relay` or `kyc` */
  console: string;
  name: string;
  url: string;
  /** gives the page its credential once it shows its sign-in screen; none when it needs none */
  signIn?: (page: Page) => Promise<void>;
  /** the selector of the page rendered */
  ready: string;
  /** the app's first-render mark */
  mark: string;
  /** the app's mark taken when the credential was given, subtracted from `mark` */
  since?: string;
}
