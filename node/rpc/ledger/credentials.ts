import { LedgerError } from '../../errors.js';
import { parseCredentialId } from '../../protocol/credential-id.js';
import type { CredentialRecord } from '../../protocol/credential-records.js';
import { parseDid } from '../../protocol/did.js';
import { credentialId, did, param } from '../params.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';
import { credentialVerification, credentialViewOf } from './credential-view.js';
import { bbsCostOf, bbsInput, bbsPresentationParams, bbsProofParam } from './identity.js';

/**
 * Credentials (seed 002): verification, listing by issuer and (behind its switch) by subject, BBS
 * proofs against a registered credential's key, and the request status an issuer polls. A
 * credential exists for `credentialVerify` once it is registered; before that (or after expiry)
 * only `ledger_getCredentialRequest` shows it.
 */
export function credentialMethods(ctx: RpcContext): RpcMethod[] {
  const view = (c: CredentialRecord) => credentialViewOf(ctx.store, ctx.network, c);
  const registered = async (text: string) => {
    const c = await ctx.store.credentials.get(parseCredentialId(text));
    return c?.status === 'registered' ? c : undefined;
  };
  /** Registered records of one DID of this network, as the list methods return them. */
  const listed = async (text: string, by: 'byIssuer' | 'bySubject') => {
    const parsed = parseDid(text);
    if (parsed.network !== ctx.network) return [];
    const records = await ctx.store.credentials[by](parsed.identifier);
    return Promise.all(records.filter((c) => c.status === 'registered').map(view));
  };

  return [
    defineMethod({
      name: 'ledger_credentialVerify',
      params: [param('credential_id', credentialId())],
      handler: (id) => credentialVerification(ctx.store, ctx.network, parseCredentialId(id)),
    }),
    defineMethod({ name: 'ledger_credentialsByIssuer', params: [param('did', did())], handler: (text) => listed(text, 'byIssuer') }),
    defineMethod({
      name: 'ledger_credentialsBySubject',
      params: [param('did', did())],
      handler: (text) => {
        if (!ctx.allowSubjectEnumeration) {
          throw new LedgerError(
            'SUBJECT_ENUMERATION_DISABLED',
            'ledger_credentialsBySubject is disabled on this node because it lets anyone list the credentials held by a subject; the operator can enable it by starting the node with LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION=1',
            'disabled',
          );
        }
        return listed(text, 'bySubject');
      },
    }),
    defineMethod({
      name: 'ledger_getCredentialRequest',
      params: [param('credential_id', credentialId())],
      handler: async (id) => {
        const c = await ctx.store.credentials.get(parseCredentialId(id));
        return c ? { ...(await view(c)), attestations: c.attestations.length } : null;
      },
    }),
    defineMethod({
      name: 'ledger_nextRevocationIndex',
      params: [param('issuer_did', did())],
      handler: async (text) => {
        const parsed = parseDid(text);
        if (parsed.network !== ctx.network) throw new LedgerError('WRONG_NETWORK', `this node serves network ${ctx.network}, not ${parsed.network}`, 'invalid');
        const { list, index } = await ctx.store.credentials.nextPosition(parsed.identifier);
        return { status_list: list, status_index: index };
      },
    }),
    defineMethod({
      name: 'ledger_bbsVerifyCredentialProof',
      params: [param('credential_id', credentialId()), bbsProofParam(), ...bbsPresentationParams()],
      cost: (_id, proof, _header, _ph, messages) => bbsCostOf(proof, messages),
      handler: async (id, proof, header, ph, messages) => {
        const c = await registered(id);
        if (!c) return null;
        const revoked = c.revokedMs !== null;
        const proofValid = c.bbs ? await ctx.verifier.verifyBbs(bbsInput(proof, c.bbs.publicKey, header, ph, messages, c.bbs.messageCount), bbsCostOf(proof, messages)) : false;
        return { valid: proofValid && !revoked, proof_valid: proofValid, is_bbs: c.bbs !== undefined, revoked, credential: await view(c) };
      },
    }),
  ];
}
