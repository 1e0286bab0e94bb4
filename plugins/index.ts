import type { PluginEntry } from '../node/cli/io.js';

/**
 * The service plugins this build has; the entry point hands them to the CLI. A plugin's module
 * (and its dependencies) is imported only when a node starts with that plugin enabled.
 */
export const PLUGINS: readonly PluginEntry[] = [
  { name: 'explorer', load: () => import('./explorer/index.js').then((m) => m.createExplorer()) },
  { name: 'relay', load: () => import('./relay/index.js').then((m) => m.createRelay()) },
  { name: 'kyc', load: () => import('./kyc/index.js').then((m) => m.createKyc()) },
  { name: 'wallet', load: () => import('./wallet/index.js').then((m) => m.createWallet()) },
];
