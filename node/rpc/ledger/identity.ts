import { MAX_BBS_MESSAGES, MAX_BBS_PROOF_BYTES, type BbsProofInput } from '../../crypto/bbs.js';
import { fromHex } from '../../protocol/bytes.js';
import { didDocumentRpc } from '../../protocol/did-document.js';
import { parseDid } from '../../protocol/did.js';
import { array, did, hex, object, param, uint } from '../params.js';
import { recoveryPolicyRpc } from '../../protocol/recovery-records.js';
import { bbsProofCost } from '../verification/cost.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';

/** The input limits of the BBS methods (docs/rpc.md, "Expensive verification"); the body limit bounds the sum. */
export const MAX_BBS_FIELD_BYTES = 64 * 1024;
const bbsHex = (name: string) => param(name, hex({ maxBytes: MAX_BBS_FIELD_BYTES }));
const disclosed = () => array(object({ index: uint({ max: MAX_BBS_MESSAGES - 1 }), message: hex({ maxBytes: MAX_BBS_FIELD_BYTES }) }), { max: MAX_BBS_MESSAGES });

export const bbsProofParam = () => param('proof_hex', hex({ maxBytes: MAX_BBS_PROOF_BYTES }));

/** The params after the proof (and the key) that both BBS methods take, in seed 002's order. */
export function bbsPresentationParams() {
  return [bbsHex('header_hex'), bbsHex('ph_hex'), param('disclosed_messages', disclosed())] as const;
}

/** What verifying a proof with these params costs: known from the proof's length before any work. */
export const bbsCostOf = (proof: string, messages: readonly unknown[]) => bbsProofCost(proof.length, messages.length);

/** The verifier's input from the params as the methods receive them. */
export function bbsInput(proof: string, publicKey: Uint8Array, header: string, ph: string, messages: ReadonlyArray<{ index: number; message: string }>, total: number): BbsProofInput {
  return {
    proof: fromHex(proof),
    publicKey,
    header: fromHex(header),
    presentationHeader: fromHex(ph),
    disclosed: messages.map((m) => ({ index: m.index, message: fromHex(m.message) })),
    totalMessageCount: total,
  };
}

/** DIDs, and stateless BBS proof verification (credential methods are in credentials.ts). */
export function identityMethods(ctx: RpcContext): RpcMethod[] {
  return [
    defineMethod({
      name: 'ledger_didResolve',
      params: [param('did', did())],
      handler: async (text) => {
        const parsed = parseDid(text);
        if (parsed.network !== ctx.network) return null;
        const record = await ctx.store.dids.get(parsed.identifier);
        return record ? didDocumentRpc(record) : null;
      },
    }),
    defineMethod({
      name: 'ledger_getRecoveryPolicy',
      params: [param('did', did())],
      handler: async (text) => {
        const parsed = parseDid(text);
        if (parsed.network !== ctx.network) return null;
        const found = await ctx.store.dids.recovery(parsed.identifier);
        return found ? recoveryPolicyRpc(ctx.network, found.policy, found.pending) : null;
      },
    }),
    defineMethod({
      name: 'ledger_bbsVerifyProof',
      params: [
        bbsProofParam(),
        param('pubkey_hex', hex({ maxBytes: 1024 })),
        ...bbsPresentationParams(),
        param('total_message_count', uint({ max: MAX_BBS_MESSAGES })),
      ],
      cost: (proof, _pubkey, _header, _ph, messages) => bbsCostOf(proof, messages),
      handler: (proof, pubkey, header, ph, messages, total) =>
        ctx.verifier.verifyBbs(bbsInput(proof, fromHex(pubkey), header, ph, messages, total), bbsCostOf(proof, messages)),
    }),
  ];
}
