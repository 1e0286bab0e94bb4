import { generateSeed, keyPairFromSeed } from '../../../node/crypto/ed25519.js';
import { addressBytesFromPublicKey, formatAddress } from '../../../node/protocol/address.js';
import { didForPublicKey } from '../../../node/protocol/did.js';
import type { PluginContext } from '../../../node/plugins/types.js';
import { keepSecret, type SecretRow, type SecretSource } from '../secrets/sealed-rows.js';
import type { PluginDb } from '../store/tables.js';

/**
 * A plugin's own Ed25519 account key (the KYC issuer, the wallet's sponsor). On first start the
 * plugin adopts the service key `ledger init` funded at genesis (when the data directory has
 * one), else it generates a key; either way the seed is stored in the plugin's own store (table
 * `table`), encrypted under the node's service-key secret (plugins/common/secrets), and that
 * stored key is used from then on, so the account (and a DID made from it) never changes under
 * what it signed: a secret that does not open it is an error, never a reason to make a new key.
 */

/** The row of the seed in the plugin's key table (`issuer` for the wallet's sponsor too). */
export function serviceKeyRow(table: string, what: string): SecretRow {
  return { table, row: 'issuer', purpose: 'ed25519-seed', bytes: 32, plaintextField: 'seed', what };
}

/** What a plugin hands loadServiceKey: its PluginContext is one. */
export type ServiceKeySource = SecretSource & Pick<PluginContext, 'serviceKey'>;

export interface ServiceKey {
  seed: Uint8Array;
  publicKey: Uint8Array;
  /** the account's 20 bytes: also the DID's identifier */
  identifier: Uint8Array;
  /** base58 account address */
  address: string;
  did: string;
  /** where the seed came from on first start */
  origin: 'service-key' | 'generated';
}

export function serviceKeyFromSeed(seed: Uint8Array, network: string, origin: ServiceKey['origin']): ServiceKey {
  const { publicKey } = keyPairFromSeed(seed);
  const identifier = addressBytesFromPublicKey(publicKey);
  return { seed: Uint8Array.from(seed), publicKey, identifier, address: formatAddress(identifier), did: didForPublicKey(network, publicKey), origin };
}

/** The stored key, or on first start the adopted service key (or a new one), stored sealed in `row`. */
export async function loadServiceKey(db: PluginDb, row: SecretRow, network: string, source: ServiceKeySource, now: () => number = Date.now): Promise<ServiceKey> {
  const kept = await keepSecret(db, row, source, async () => {
    const adopted = await source.serviceKey();
    return { secret: adopted ?? generateSeed(), fields: { origin: adopted ? 'service-key' : 'generated', createdAt: new Date(now()).toISOString() } };
  });
  return serviceKeyFromSeed(kept.secret, network, kept.row.origin as ServiceKey['origin']);
}
