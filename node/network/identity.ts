import { generateKeyPairFromSeed, publicKeyFromRaw } from '@libp2p/crypto/keys';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { peerIdFromPublicKey, peerIdFromString } from '@libp2p/peer-id';
import { keyPairFromSeed, SEED_LENGTH } from '../crypto/ed25519.js';
import { LedgerError } from '../errors.js';
import { addressBytesFromPublicKey } from '../protocol/address.js';

/**
 * A node's libp2p identity is its Ed25519 validator key: the peer id embeds the public key, Noise
 * proves the remote holds the private key, and the validator address is BLAKE3(public key)[0..20].
 * So a peer's validator address follows from the authenticated connection, with no handshake of
 * our own.
 */

function checkSeed(seed: Uint8Array): void {
  if (seed.length !== SEED_LENGTH) throw new LedgerError('BAD_SEED', `an Ed25519 seed is ${SEED_LENGTH} bytes, got ${seed.length}`);
}

export async function privateKeyFromSeed(seed: Uint8Array): Promise<PrivateKey> {
  checkSeed(seed);
  return generateKeyPairFromSeed('Ed25519', seed);
}

/** The peer id (12D3KooW…) of the node whose key file holds this 32-byte seed. */
export function peerIdFromSeed(seed: Uint8Array): string {
  checkSeed(seed);
  return peerIdFromPublicKey(publicKeyFromRaw(keyPairFromSeed(seed).publicKey)).toString();
}

/** The 20-byte address of an Ed25519 peer; undefined for any other key type. */
export function addressOfPeer(peer: PeerId): Uint8Array | undefined {
  if (peer.type !== 'Ed25519' || !peer.publicKey) return undefined;
  return addressBytesFromPublicKey(peer.publicKey.raw);
}

/** The 20-byte validator address behind a peer id; throws BAD_PEER_ID unless it is an Ed25519 peer id. */
export function addressFromPeerId(peer: string | PeerId): Uint8Array {
  let id: PeerId;
  try {
    id = typeof peer === 'string' ? peerIdFromString(peer) : peer;
  } catch (err) {
    throw new LedgerError('BAD_PEER_ID', `not a peer id: ${(err as Error).message}`);
  }
  const address = addressOfPeer(id);
  if (!address) throw new LedgerError('BAD_PEER_ID', `peer ${id.toString()} is not an Ed25519 peer; its key type is ${id.type}`);
  return address;
}
