import { voteDigest } from '../consensus/crypto.js';
import { blsVerify, decodeBlsPublicKey, VOTE_DST } from '../crypto/bls.js';
import type { PayloadOf } from './payloads.js';

export { checkProofOfPossession, popMessage, POP_DOMAIN, proofOfPossession } from './proof-of-possession.js';

/**
 * The equivocation check of SubmitEvidence (docs/protocol.md, "Validators and epochs"). Pure and
 * deterministic: execution runs it, so every node must reach the same verdict. The proof of
 * possession lives in proof-of-possession.ts.
 */

/**
 * undefined when both votes verify under `blsKey` on this chain (then the validator signed two
 * different vote digests in one round, which an honest validator never does), else the reason.
 * The codec already guarantees that the two votes name different blocks.
 */
export function checkEquivocation(chainId: string, blsKey: Uint8Array, e: PayloadOf<'SubmitEvidence'>): string | undefined {
  const key = decodeBlsPublicKey(blsKey);
  if (!key) return 'the validator has no valid BLS key';
  for (const [name, v] of [['first', e.first], ['second', e.second]] as const) {
    if (!blsVerify(key, voteDigest(chainId, e.epoch, e.round, v.height, v.blockHash), v.signature, VOTE_DST)) return `the ${name} vote signature does not verify under the validator's key`;
  }
  return undefined;
}
