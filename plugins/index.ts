import type { Plugin } from '../node/plugins/types.js';
import { createExplorer } from './explorer/index.js';
import { createKyc } from './kyc/index.js';
import { createRelay } from './relay/index.js';
import { createWallet } from './wallet/index.js';

/** The service plugins this build has; the entry point hands them to the node's plugin host. */
export function availablePlugins(): Plugin[] {
  return [createExplorer(), createRelay(), createKyc(), createWallet()];
}
