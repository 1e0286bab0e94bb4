import { bbsDeriveProof } from '../../../node/crypto/bbs.js';

/**
 * A piscina worker of bench/verification's setup: derives the BBS presentation proofs of the
 * requests before the clock starts, on every core (each takes about as long as a verification).
 */

export interface DeriveTask {
  publicKey: Uint8Array;
  signature: Uint8Array;
  header: Uint8Array;
  messages: Uint8Array[];
  presentationHeader: Uint8Array;
  disclosedIndexes: number[];
}

export default function derive(task: DeriveTask): Promise<Uint8Array> {
  return bbsDeriveProof(task);
}
