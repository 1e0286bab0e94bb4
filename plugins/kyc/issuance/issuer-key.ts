import { generateSeed, keyPairFromSeed } from '../../../node/crypto/ed25519.js';
import { addressBytesFromPublicKey, formatAddress } from '../../../node/protocol/address.js';
import { didForPublicKey } from '../../../node/protocol/did.js';
import type { KycDb } from '../store/tables.js';

/**
 * The credential issuer's Ed25519 key. On first start the plugin adopts the service key `ledger
 * init` funded at genesis (when the data directory has one), else it generates a key; either way
 * the seed is stored in the plugin's own store and that stored key is used from then on, so the
 * issuer DID never changes under the credentials it signed.
 */

export const ISSUER_KEY_TABLE = 'iss-keys';
const ISSUER_KEY = 'issuer';

export interface IssuerKey {
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
  origin: IssuerKey['origin'];
  createdAt: string;
}

export function issuerKeyFromSeed(seed: Uint8Array, network: string, origin: IssuerKey['origin']): IssuerKey {
  const { publicKey } = keyPairFromSeed(seed);
  const identifier = addressBytesFromPublicKey(publicKey);
  return { seed: Uint8Array.from(seed), publicKey, identifier, address: formatAddress(identifier), did: didForPublicKey(network, publicKey), origin };
}

/** The stored issuer key, or on first start the adopted service key (or a new one), stored. */
export async function loadIssuerKey(db: KycDb, network: string, serviceKey: () => Promise<Uint8Array | undefined>, now: () => number = Date.now): Promise<IssuerKey> {
  const table = db.json<StoredKey>(ISSUER_KEY_TABLE);
  const stored = await table.get(ISSUER_KEY);
  if (stored) return issuerKeyFromSeed(Buffer.from(stored.seed, 'hex'), network, stored.origin);
  const adopted = await serviceKey();
  const seed = adopted ?? generateSeed();
  const origin = adopted ? 'service-key' : 'generated';
  await table.put(ISSUER_KEY, { seed: Buffer.from(seed).toString('hex'), origin, createdAt: new Date(now()).toISOString() });
  return issuerKeyFromSeed(seed, network, origin);
}
