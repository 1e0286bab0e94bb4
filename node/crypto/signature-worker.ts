import { verify } from './ed25519.js';
import { unpackSignatures } from './signature-batch.js';

/** A worker thread of the signature checker (signature-checker.ts): one verdict byte (1 = valid) per item. */
export default function run(batch: ArrayBuffer): Uint8Array {
  return Uint8Array.from(unpackSignatures(batch), (it) => (verify(it.publicKey, it.message, it.signature) ? 1 : 0));
}
