import type { RpcMethod } from '../server.js';
import { accountMethods } from './accounts.js';
import { chainMethods } from './chain.js';
import { consensusMethods } from './consensus.js';
import type { RpcContext } from './context.js';
import { credentialMethods } from './credentials.js';
import { identityMethods } from './identity.js';
import { transactionMethods } from './transactions.js';
import { verificationMethods } from './verification.js';

export type { RpcContext } from './context.js';

/** Every method of seed 002's JSON-RPC table, plus ledger_getEvidence and the verification methods (issue 27). There is deliberately no `ledger_getAccount`. */
export function createMethods(ctx: RpcContext): RpcMethod[] {
  return [...chainMethods(ctx), ...accountMethods(ctx), ...transactionMethods(ctx), ...identityMethods(ctx), ...credentialMethods(ctx), ...verificationMethods(ctx), ...consensusMethods(ctx)];
}
