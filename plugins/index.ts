import type { PluginEntry } from '../node/cli/io.js';
import type { ResealedSecrets, ServiceKeySecret } from '../node/config/service-key-secret.js';
import type { BinarySublevel } from '../node/state/db.js';
import type { SecretRow } from './common/secrets/sealed-rows.js';

/** `ledger service-keys rotate` for a plugin whose keys are sealed (plugins/common/secrets) */
function resealer(rows: () => Promise<readonly SecretRow[]>): NonNullable<PluginEntry['resealSecrets']> {
  return async (store: BinarySublevel, from: ServiceKeySecret, to: ServiceKeySecret): Promise<ResealedSecrets> => {
    const { resealRows } = await import('./common/secrets/sealed-rows.js');
    return resealRows(store, await rows(), from, to);
  };
}

/**
 * The service plugins this build has; the entry point hands them to the CLI. A plugin's module
 * (and its dependencies) is imported only when a node starts with that plugin enabled.
 */
export const PLUGINS: readonly PluginEntry[] = [
  { name: 'explorer', load: () => import('./explorer/index.js').then((m) => m.createExplorer()) },
  {
    name: 'relay',
    load: () => import('./relay/index.js').then((m) => m.createRelay()),
    resealSecrets: async (store, from, to, options) => (await import('./relay/store/reseal.js')).resealRelaySecrets(store, from, to, options),
  },
  {
    name: 'kyc',
    load: () => import('./kyc/index.js').then((m) => m.createKyc()),
    resealSecrets: resealer(() => import('./kyc/issuance/tables.js').then((m) => m.ISSUER_SECRET_ROWS)),
  },
  {
    name: 'wallet',
    load: () => import('./wallet/index.js').then((m) => m.createWallet()),
    resealSecrets: resealer(() => import('./wallet/users/sponsor.js').then((m) => [m.SPONSOR_SEED_ROW])),
  },
];
