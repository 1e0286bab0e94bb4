import { verifyBbsProofs, type BbsProofInput } from '../../crypto/bbs.js';
import { credentialHash, verifyCredentialProof, type Credential } from '../../protocol/credential-document.js';

/** A worker thread of the verification pool (pool.ts): the event loop, which consensus shares, never runs this. */

export type VerifyTask =
  /** BBS proofs, sharing one pairing check: one verdict each */
  | { op: 'bbs'; inputs: BbsProofInput[] }
  /** an Ed25519Signature2020 proof over a W3C credential (JSON-LD canonicalization, then Ed25519) */
  | { op: 'credential-proof'; credential: Credential; issuerKey: Uint8Array }
  /** the SHA-256 registered on chain: the JSON-LD canonical form of the credential's body */
  | { op: 'credential-hash'; credential: Credential };

export default async function run(task: VerifyTask): Promise<boolean | boolean[] | Uint8Array> {
  if (task.op === 'bbs') return verifyBbsProofs(task.inputs);
  if (task.op === 'credential-proof') return (await verifyCredentialProof(task.credential, task.issuerKey)).ok;
  return credentialHash(task.credential);
}
