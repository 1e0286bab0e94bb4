import { verifyBbsProof } from '../../crypto/bbs.js';
import { LedgerError } from '../../errors.js';
import { fromHex } from '../../protocol/bytes.js';
import { didDocumentRpc } from '../../protocol/did-document.js';
import { parseDid } from '../../protocol/did.js';
import { recoveryPolicyRpc } from '../../protocol/recovery-records.js';
import { array, did, hex, object, param, string, uint } from '../params.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';

const MAX_BBS_HEX_BYTES = 64 * 1024;
const credentialId = () => string({ minLength: 1, maxLength: 256 });
const disclosed = () => array(object({ index: uint(), message: hex({ maxBytes: MAX_BBS_HEX_BYTES }) }), { max: 1024 });

/**
 * DIDs, credentials and BBS proofs. Credential state (requests, attestation, revocation lists)
 * arrives with the identity-protocol work; until then no credential can exist on chain, so the
 * lookups answer as the seed says they do for an unknown credential: null, or an empty list.
 */
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
    defineMethod({ name: 'ledger_credentialVerify', params: [param('credential_id', credentialId())], handler: () => null }),
    defineMethod({ name: 'ledger_credentialsByIssuer', params: [param('did', did())], handler: () => [] }),
    defineMethod({
      name: 'ledger_credentialsBySubject',
      params: [param('did', did())],
      handler: () => {
        if (!ctx.allowSubjectEnumeration) {
          throw new LedgerError(
            'SUBJECT_ENUMERATION_DISABLED',
            'ledger_credentialsBySubject is disabled on this node because it lets anyone list the credentials held by a subject; the operator can enable it by starting the node with LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION=1',
            'disabled',
          );
        }
        return [];
      },
    }),
    defineMethod({
      name: 'ledger_bbsVerifyProof',
      params: [
        param('proof_hex', hex({ maxBytes: MAX_BBS_HEX_BYTES })),
        param('pubkey_hex', hex({ maxBytes: 1024 })),
        param('header_hex', hex({ maxBytes: MAX_BBS_HEX_BYTES })),
        param('ph_hex', hex({ maxBytes: MAX_BBS_HEX_BYTES })),
        param('disclosed_messages', disclosed()),
        param('total_message_count', uint()),
      ],
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
    defineMethod({
      name: 'ledger_bbsVerifyCredentialProof',
      params: [
        param('credential_id', credentialId()),
        param('proof_hex', hex({ maxBytes: MAX_BBS_HEX_BYTES })),
        param('header_hex', hex({ maxBytes: MAX_BBS_HEX_BYTES })),
        param('ph_hex', hex({ maxBytes: MAX_BBS_HEX_BYTES })),
        param('disclosed_messages', disclosed()),
      ],
      handler: () => null,
    }),
  ];
}
