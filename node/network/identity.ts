import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { addressBytesFromPublicKey } from '../protocol/address.js';

/**
 * A node's libp2p identity is its Ed25519 validator key: the peer id embeds the public key, Noise
 * proves the remote holds the private key, and the validator address is BLAKE3(public key)[0..20].
 * So a peer's validator address follows from the authenticated connection, with no handshake of
 * our own.
 */

export function privateKeyFromSeed(seed: Uint8Array): Promise<PrivateKey> {
  return generateKeyPairFromSeed('Ed25519', seed);
}

export async function peerIdFromSeed(seed: Uint8Array): Promise<string> {
  return peerIdFromPrivateKey(await privateKeyFromSeed(seed)).toString();
}

/** The 20-byte address of an Ed25519 peer; undefined for any other key type. */
export function addressOfPeer(peer: PeerId): Uint8Array | undefined {
  if (peer.type !== 'Ed25519' || !peer.publicKey) return undefined;
  return addressBytesFromPublicKey(peer.publicKey.raw);
}
