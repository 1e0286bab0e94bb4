import { workerData } from 'node:worker_threads';
import { verifyBbsProof, type BbsProofInput } from '../../../node/crypto/bbs.js';
import { packEnvelope, unpackEnvelope, type DIDDoc, type Packed, type PackRequest, type Secret, type Unpacked } from './didcomm.js';

/**
 * A worker thread of the DIDComm codec pool: decrypts and encrypts envelopes (didcomm.ts: Node's
 * crypto for X25519 envelopes, the reference library's WASM for the rest) and checks BBS proofs
 * for credential gates, so that the event loop, which consensus shares, never spends its time in
 * crypto. It holds the mediator's secrets (workerData) and gets every DID document a call needs
 * with the call.
 */

export type CodecTask =
  | { op: 'unpack'; envelope: string; docs: Record<string, DIDDoc> }
  | { op: 'pack'; request: PackRequest; docs: Record<string, DIDDoc> }
  | { op: 'bbs'; input: BbsProofInput };

const secrets = (workerData as { secrets: Secret[] }).secrets;

export default async function run(task: CodecTask): Promise<Unpacked | Packed | boolean> {
  if (task.op === 'bbs') return verifyBbsProof(task.input);
  const lookup = (did: string) => task.docs[did] ?? null;
  return task.op === 'unpack' ? unpackEnvelope(task.envelope, lookup, secrets) : packEnvelope(task.request, lookup, secrets);
}
