import { blsPublicKey, blsSign, blsVerify, decodeBlsPublicKey, POP_DST } from '../crypto/bls.js';
import { ADDRESS_LENGTH } from './address.js';
import { ByteWriter, utf8 } from './bytes.js';

/**
 * The proof of possession of a validator's BLS key (docs/protocol.md, "Validators and epochs").
 * Pure and deterministic: execution checks it, so every node must reach the same verdict. Apart
 * from the consensus vote checks (validator-keys.ts) so that a client can sign a ValidatorRegister
 * without loading the node's native BLS library.
 *
 * Consensus verifies a QC against the sum of its signers' keys, which is only sound if nobody
 * could register a key derived from other validators' keys (a rogue key). A registrant therefore
 * signs, with the new key, a message that binds the key to this chain and to its own address; a
 * key made from others' keys has no secret key to sign with. Binding the chain id and the address
 * also means a proof cannot be replayed on another network or by another account.
 */

export const POP_DOMAIN = 'ledger-bls-pop-v1';

/** "ledger-bls-pop-v1" ‖ u16 len chain_id ‖ chain_id ‖ address[20] ‖ bls_public_key[48] */
export function popMessage(chainId: string, address: Uint8Array, blsKey: Uint8Array): Uint8Array {
  if (address.length !== ADDRESS_LENGTH) throw new RangeError(`an address is ${ADDRESS_LENGTH} bytes`);
  return new ByteWriter().bytes(utf8(POP_DOMAIN)).str(chainId).bytes(address).bytes(blsKey).finish();
}

/** What a validator puts in ValidatorRegister: its BLS public key and the proof for `address` on `chainId`. */
export function proofOfPossession(chainId: string, address: Uint8Array, blsSecretKey: Uint8Array): { blsPublicKey: Uint8Array; proofOfPossession: Uint8Array } {
  const key = blsPublicKey(blsSecretKey);
  return { blsPublicKey: key, proofOfPossession: blsSign(blsSecretKey, popMessage(chainId, address, key), POP_DST) };
}

/** undefined when valid, else the reason (it becomes the receipt's `failed: <reason>`). */
export function checkProofOfPossession(chainId: string, address: Uint8Array, blsKey: Uint8Array, proof: Uint8Array): string | undefined {
  const key = decodeBlsPublicKey(blsKey);
  if (!key) return 'bls_public_key is not a valid BLS12-381 G1 public key';
  if (!blsVerify(key, popMessage(chainId, address, blsKey), proof, POP_DST)) return 'proof of possession does not verify for this key, address and chain';
  return undefined;
}
