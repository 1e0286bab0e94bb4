import { invalid, LedgerError } from '../../errors.js';
import { formatTokens } from '../../protocol/amount.js';
import { fromHex, toHex } from '../../protocol/bytes.js';
import { authenticationKeys } from '../../protocol/did-document.js';
import { parseDid } from '../../protocol/did.js';
import { unsignedRequest } from '../../protocol/payload-codecs/verification.js';
import { responseFromRecord } from '../../protocol/verification-response.js';
import { MIN_VERIFICATION_FEE, parseVerificationRequest, verifyVerificationRequest } from '../../protocol/verification.js';
import type { DidRecord } from '../../protocol/records.js';
import { BACKLOG_BUSY } from '../../verification/defaults.js';
import { precheckPresentation } from '../../verification/precheck.js';
import { parsePresentation, presentationHash } from '../../verification/presentation.js';
import { did, jsonObject, oneOf, optionalParam, param, string } from '../params.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';
import { MAX_LISTED_REQUESTS, statusFilter, VERIFICATION_STATUSES, verificationRequestView } from './verification-view.js';

/**
 * Verification requests (seed 002; docs/rpc.md, "Verification requests"): a relying party submits
 * its signed request, the subject's wallet lists what is asked of it and presents, the committee
 * answers on chain, and anyone reads the response. Every refusal names its cause before anything
 * reaches the mempool, so nothing is charged for a request that would fail.
 */

const requestId = () => string({ minLength: 1, maxLength: 256 });

export function verificationMethods(ctx: RpcContext): RpcMethod[] {
  /** An active DID of this network, or a precise error naming `role`. */
  const activeDid = async (text: string, role: string): Promise<DidRecord> => {
    const parsed = parseDid(text);
    if (parsed.network !== ctx.network) throw invalid('WRONG_NETWORK', `the ${role} ${text} belongs to network ${parsed.network}; this node serves ${ctx.network}`);
    const record = await ctx.store.dids.get(parsed.identifier);
    if (!record) throw new LedgerError('UNKNOWN_DID', `the ${role} ${text} does not exist on this chain`, 'not_found', { did: text });
    if (!record.active) throw new LedgerError('DID_DEACTIVATED', `the ${role} ${text} is deactivated`, 'conflict', { did: text });
    return record;
  };

  /** New verification work waits while this validator's committee checks are backlogged: the caller retries, nothing is dropped. */
  const refuseWhenBacklogged = (): void => {
    const backlog = ctx.presentations?.backlog() ?? 0;
    const limit = ctx.verificationBacklogBusy ?? BACKLOG_BUSY;
    if (backlog < limit) return;
    throw new LedgerError('VERIFICATION_BACKLOG', `busy: this validator has ${backlog} presentation checks waiting or running; it takes new verification work below ${limit}`, 'limit', { backlog, limit });
  };

  return [
    defineMethod({
      name: 'ledger_submitVerificationRequest',
      write: true,
      params: [param('request', jsonObject())],
      handler: async (json) => {
        refuseWhenBacklogged();
        const request = parseVerificationRequest(json);
        if (request.chainId === undefined || request.nonce === undefined) {
          throw invalid('BAD_VERIFICATION_REQUEST', `the request must carry chainId ("${ctx.chainId}") and nonce (the requester's next, from ledger_getNonce) in what it signs`);
        }
        if (request.chainId !== ctx.chainId) throw invalid('WRONG_CHAIN', `the request is for chain ${request.chainId}; this node serves ${ctx.chainId}`, { expected: ctx.chainId });
        if (BigInt(request.fee) < MIN_VERIFICATION_FEE) {
          throw invalid('FEE_TOO_LOW', `the fee ${request.fee} is below the minimum verification fee ${MIN_VERIFICATION_FEE} (${formatTokens(MIN_VERIFICATION_FEE)} LGR)`, { minimum: String(MIN_VERIFICATION_FEE) });
        }
        const requester = await activeDid(request.requester.did, 'requester DID');
        const key = authenticationKeys(requester).find((k) => verifyVerificationRequest(request, k));
        if (!key) throw invalid('BAD_SIGNATURE', `the request signature does not verify under an authentication key of ${request.requester.did}`);
        await activeDid(request.subject.did, 'subject DID');
        if (await ctx.store.verifications.get(request.requestId)) {
          throw new LedgerError('DUPLICATE_REQUEST_ID', `requestId ${request.requestId} is already used on chain`, 'conflict', { requestId: request.requestId, pending: false });
        }
        const queued = ctx.mempool.pending(key).find((e) => e.tx.payload.kind === 'VerificationRequest' && e.tx.payload.request.requestId === request.requestId);
        if (queued) throw new LedgerError('DUPLICATE_REQUEST_ID', `requestId ${request.requestId} is already pending in transaction ${queued.hash}`, 'conflict', { requestId: request.requestId, pending: true, pendingHash: queued.hash });
        const { signature, ...unsigned } = request;
        const tx = { senderPubkey: key, nonce: BigInt(request.nonce), payload: { kind: 'VerificationRequest' as const, request: unsignedRequest(unsigned, 'request') }, signature: fromHex(signature, 64, 'signature') };
        const { hash } = await ctx.mempool.admit(tx);
        return { requestId: request.requestId, txHash: hash };
      },
    }),
    defineMethod({
      name: 'ledger_getVerificationRequests',
      params: [param('subject_did', did()), optionalParam('status', oneOf(VERIFICATION_STATUSES, `one of ${VERIFICATION_STATUSES.join(', ')} (default pending)`))],
      handler: async (text, status) => {
        const parsed = parseDid(text);
        if (parsed.network !== ctx.network) return [];
        return (await ctx.store.verifications.bySubject(parsed.identifier, statusFilter(status ?? 'pending'), MAX_LISTED_REQUESTS)).map(verificationRequestView);
      },
    }),
    defineMethod({
      name: 'ledger_getVerificationRequest',
      params: [param('request_id', requestId())],
      handler: async (id) => {
        const v = await ctx.store.verifications.get(id);
        return v ? verificationRequestView(v) : null;
      },
    }),
    defineMethod({
      name: 'ledger_getVerificationResponse',
      params: [param('request_id', requestId())],
      handler: async (id) => {
        const v = await ctx.store.verifications.get(id);
        return (v && responseFromRecord(v, ctx.chainId)) ?? null;
      },
    }),
    defineMethod({
      name: 'ledger_submitPresentation',
      write: true,
      params: [param('presentation', jsonObject())],
      handler: async (json) => {
        refuseWhenBacklogged();
        const p = parsePresentation(json);
        if (!ctx.presentations) {
          // what is wrong with the presentation itself comes first
          await precheckPresentation(p, ctx.network, { verification: (id) => ctx.store.verifications.get(id), did: (id) => ctx.store.dids.get(id) });
          throw new LedgerError('NO_COMMITTEE_ROUTE', 'this node has no peer-to-peer network to reach the committee', 'disabled');
        }
        await ctx.presentations.precheck(p);
        const sent = ctx.presentations.submit(p);
        return { requestId: p.requestId, presentationHash: toHex(presentationHash(p)), peers: sent.peers, answeringHere: sent.answeringHere };
      },
    }),
  ];
}
