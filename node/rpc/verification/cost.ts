import { impliedMessageCount, MAX_BBS_MESSAGES } from '../../crypto/bbs.js';

/**
 * What expensive RPC work costs, in work units of about one millisecond of one core
 * (docs/rpc.md, "Expensive verification"). The numbers are the measured BBS verification times
 * of one proof alone (a batch is cheaper), rounded up: about 8 ms plus 0.1 ms per hidden message
 * of the signed credential and 0.15 ms per disclosed one; 8 ms for 12 messages, 108 to 118 ms for
 * 1,024
 * (`npm run bench:bbs` prints them for a machine).
 */

const BBS_BASE_COST = 8;
const BBS_MESSAGES_PER_UNIT = 6;

/** The cost of one BBS proof verification over a credential of `messageCount` messages. */
export function bbsVerifyCost(messageCount: number): number {
  return BBS_BASE_COST + Math.ceil(Math.min(Math.max(messageCount, 0), MAX_BBS_MESSAGES) / BBS_MESSAGES_PER_UNIT);
}

/** The cost of verifying a hex proof with `disclosedCount` disclosed messages, known before any work. */
export function bbsProofCost(proofHexLength: number, disclosedCount: number): number {
  return bbsVerifyCost(impliedMessageCount(proofHexLength / 2, disclosedCount));
}

/** The most one request can cost: a proof over the largest credential. */
export const MAX_REQUEST_COST = bbsVerifyCost(MAX_BBS_MESSAGES);
