import { generateSeed, keyPairFromSeed } from '../../../node/crypto/ed25519.js';
import { addressBytesFromPublicKey, formatAddress } from '../../../node/protocol/address.js';
import { didForPublicKey } from '../../../node/protocol/did.js';
import type { PluginDb } from '../store/tables.js';

/**
 * A plugin's own Ed25519 account key (the KYC issuer, the wallet's sponsor). On first start the
 * plugin adopts the service key `ledger init` funded at genesis (when the data directory has
 * one), else it generates a key; either way the seed is stored in the plugin's own store (table
 * `table`) and that stored key is used from then on, so the account (and a DID made from it)
 * never changes under what it signed.
 */

const KEY_ROW = 'issuer';

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

interface StoredKey {
  seed: string;
  origin: ServiceKey['origin'];
  createdAt: string;
}

export function serviceKeyFromSeed(seed: Uint8Array, network: string, origin: ServiceKey['origin']): ServiceKey {
  const { publicKey } = keyPairFromSeed(seed);
  const identifier = addressBytesFromPublicKey(publicKey);
  return { seed: Uint8Array.from(seed), publicKey, identifier, address: formatAddress(identifier), did: didForPublicKey(network, publicKey), origin };
}

/** The stored key, or on first start the adopted service key (or a new one), stored. */
export async function loadServiceKey(db: PluginDb, tableName: string, network: string, serviceKey: () => Promise<Uint8Array | undefined>, now: () => number = Date.now): Promise<ServiceKey> {
  const table = db.json<StoredKey>(tableName);
  const stored = await table.get(KEY_ROW);
  if (stored) return serviceKeyFromSeed(Buffer.from(stored.seed, 'hex'), network, stored.origin);
  const adopted = await serviceKey();
  const seed = adopted ?? generateSeed();
  const origin = adopted ? 'service-key' : 'generated';
  await table.put(KEY_ROW, { seed: Buffer.from(seed).toString('hex'), origin, createdAt: new Date(now()).toISOString() });
  return serviceKeyFromSeed(seed, network, origin);
}
