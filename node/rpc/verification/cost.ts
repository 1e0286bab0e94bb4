import { impliedMessageCount, MAX_BBS_MESSAGES } from '../../crypto/bbs.js';

/**
 * What expensive RPC work costs, in work units of about one millisecond of one core
 * (docs/rpc.md, "Expensive verification"). The numbers are the measured BBS verification times,
 * rounded up: about 43 ms plus 4.3 ms per message of the signed credential, whether disclosed or
 * hidden (`npm run bench:bbs` prints them for a machine).
 */

const BBS_BASE_COST = 50;
const BBS_COST_PER_MESSAGE = 5;

/** The cost of one BBS proof verification over a credential of `messageCount` messages. */
export function bbsVerifyCost(messageCount: number): number {
  return BBS_BASE_COST + BBS_COST_PER_MESSAGE * Math.min(Math.max(messageCount, 0), MAX_BBS_MESSAGES);
}

/** The cost of verifying a hex proof with `disclosedCount` disclosed messages, known before any work. */
export function bbsProofCost(proofHexLength: number, disclosedCount: number): number {
  return bbsVerifyCost(impliedMessageCount(proofHexLength / 2, disclosedCount));
}

/** The most one request can cost: a proof over the largest credential. */
export const MAX_REQUEST_COST = bbsVerifyCost(MAX_BBS_MESSAGES);
