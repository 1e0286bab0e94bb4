import { verifyBbsProof, type BbsProofInput } from '../../crypto/bbs.js';

/** A worker thread of the verification pool (pool.ts): the event loop, which consensus shares, never runs this. */

export interface VerifyTask {
  op: 'bbs';
  input: BbsProofInput;
}

export default function run(task: VerifyTask): Promise<boolean> {
  return verifyBbsProof(task.input);
}
