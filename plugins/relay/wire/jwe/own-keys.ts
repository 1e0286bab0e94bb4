import type { KeyObject } from 'node:crypto';
import type { Secret } from 'didcomm-node';
import { ownSecretLookup } from '../dids/secrets.js';
import { x25519Private } from './primitives.js';
import type { OwnKeys } from './unpack.js';

/** The mediator's keys as the fast path asks for them, with each private key object made once. */
export function ownKeys(secrets: readonly Secret[]): OwnKeys {
  const lookup = ownSecretLookup(secrets);
  const objects = new Map<string, KeyObject>();
  const ownDids = new Set(secrets.map((s) => s.id.split('#')[0]!));
  return {
    secret: lookup,
    privateKey(secret) {
      const jwk = (secret as { privateKeyJwk?: Record<string, unknown> }).privateKeyJwk;
      if (secret.type !== 'JsonWebKey2020' || !jwk || jwk.kty !== 'OKP' || jwk.crv !== 'X25519' || typeof jwk.x !== 'string' || typeof jwk.d !== 'string') return null;
      let key = objects.get(jwk.d);
      if (!key) objects.set(jwk.d, (key = x25519Private({ x: jwk.x, d: jwk.d })));
      return key;
    },
    isOwnDid: (did) => ownDids.has(did) || lookup(`${did}#key-1`) !== null,
  };
}
