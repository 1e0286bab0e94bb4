import { verifyBbsProof } from '../../crypto/bbs.js';
import { fromHex } from '../../protocol/bytes.js';
import { didDocumentRpc } from '../../protocol/did-document.js';
import { parseDid } from '../../protocol/did.js';
import { array, did, hex, object, param, uint } from '../params.js';
import { recoveryPolicyRpc } from '../../protocol/recovery-records.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';

const MAX_BBS_HEX_BYTES = 64 * 1024;
const bbsHex = (name: string) => param(name, hex({ maxBytes: MAX_BBS_HEX_BYTES }));
const disclosed = () => array(object({ index: uint(), message: hex({ maxBytes: MAX_BBS_HEX_BYTES }) }), { max: 1024 });

export const bbsProofParam = () => bbsHex('proof_hex');

/** The params after the proof (and the key) that both BBS methods take, in seed 002's order. */
export function bbsPresentationParams() {
  return [bbsHex('header_hex'), bbsHex('ph_hex'), param('disclosed_messages', disclosed())] as const;
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
      params: [bbsProofParam(), param('pubkey_hex', hex({ maxBytes: 1024 })), ...bbsPresentationParams(), param('total_message_count', uint())],
      handler: (proof, pubkey, header, ph, messages, total) =>
        verifyBbsProof({
          proof: fromHex(proof),
          publicKey: fromHex(pubkey),
          header: fromHex(header),
          presentationHeader: fromHex(ph),
          disclosed: messages.map((m) => ({ index: m.index, message: fromHex(m.message) })),
          totalMessageCount: total,
        }),
    }),
  ];
}
