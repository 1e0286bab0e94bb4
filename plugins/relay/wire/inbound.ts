import { randomUUID } from 'node:crypto';
import { isLedgerError } from '../../../node/errors.js';
import type { Logger } from '../../../node/logging.js';
import type { RelayServices } from '../core/services.js';
import { WIRE_TENANT } from '../core/settings.js';
import { route, type Family } from '../protocols/dispatch.js';
import { problemReport, ProtocolProblem, type Inbound, type LiveChannel, type Outcome, type Reply } from '../protocols/types.js';
import { CodecBusyError, type Codec } from './codec.js';
import { didcommErrorText, type DIDDoc, type IMessage, type Unpacked } from './didcomm.js';
import type { DidResolver } from './dids/resolver.js';
import { didOf, inspectEnvelope } from './envelope.js';

/**
 * One envelope through the relay, whatever carried it (POST /didcomm or a live WebSocket):
 * inspect → resolve the sender → decrypt (codec pool) → replay and rate checks → dispatch →
 * pack the reply for the sender. The answer is an HTTP-style status with either a packed
 * envelope or, when nobody can be answered in DIDComm, a Problem Details body.
 */

export const ENCRYPTED = 'application/didcomm-encrypted+json';

export interface WireAnswer {
  status: number;
  /** a packed DIDComm envelope (ENCRYPTED) or a Problem Details JSON text */
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  family?: Family;
}

export interface WireProblem {
  status: number;
  code: string;
  detail: string;
  headers?: Record<string, string>;
}

export class InboundPipeline {
  constructor(
    private readonly services: RelayServices,
    private readonly codec: Codec,
    private readonly resolver: DidResolver,
    private readonly endpoint: () => string,
    private readonly log: Logger,
  ) {}

  /** the mediator's own document, with its service, as its resolution answers */
  ownDocument(): DIDDoc {
    return this.services.identity.document(this.endpoint());
  }

  /** A store or Redis that cannot be reached is a 503 with Retry-After, never a 500. */
  async handle(text: string, channel: LiveChannel | null): Promise<WireAnswer | WireProblem> {
    try {
      return await this.process(text, channel);
    } catch (err) {
      if (!isLedgerError(err) || err.kind !== 'unavailable') throw err;
      return { status: 503, code: err.code, detail: err.message, headers: { 'retry-after': String(err.data['retryAfterSeconds'] ?? 1) } };
    }
  }

  private async process(text: string, channel: LiveChannel | null): Promise<WireAnswer | WireProblem> {
    const { services } = this;
    let header;
    try {
      header = inspectEnvelope(text);
    } catch (err) {
      return { status: 400, code: 'ENVELOPE_MALFORMED', detail: (err as Error).message };
    }
    // the relay answers under the DID the agent addressed: its did:key or a did:peer:2 of its keys
    const recipient = header.kids.map((kid) => services.identity.ownerOf(kid)).find((did) => did !== undefined);
    const recipientDoc = recipient === undefined ? undefined : this.ownDocumentOf(recipient);
    if (recipient === undefined || recipientDoc === undefined) {
      return { status: 400, code: 'NOT_FOR_THIS_MEDIATOR', detail: `the envelope is not encrypted to this mediator's key ${services.identity.keyAgreementKid} (or #key-1 of its did:peer:2)` };
    }
    const senderDid = header.skid ? didOf(header.skid) : null;
    const docs: Record<string, DIDDoc> = { [recipient]: recipientDoc };
    // wire senders count against the wire tenant's limit
    const limit = (await services.settings.get(WIRE_TENANT)).rateLimitPerDidPerMin;
    if (senderDid) {
      // a claimed sender already over its limit is refused before any crypto; only a proved one is counted
      const used = await services.coordination.limiter.peek(senderDid);
      if (used.count >= limit) return this.tooMany(senderDid, limit, used.retryAfter);
      const doc = await this.resolver.resolve(senderDid);
      if (!doc) return { status: 400, code: 'SENDER_UNRESOLVABLE', detail: `the sender ${senderDid.slice(0, 200)} cannot be resolved, so its authcrypt envelope cannot be decrypted` };
      docs[senderDid] = doc;
    }
    let unpacked: Unpacked;
    try {
      unpacked = await this.codec.unpack(text, docs);
    } catch (err) {
      if (err instanceof CodecBusyError) return { status: 503, code: 'BUSY', detail: 'the relay is at capacity; retry shortly', headers: { 'retry-after': '1' } };
      return { status: 400, code: 'ENVELOPE_UNDECRYPTABLE', detail: `the envelope cannot be decrypted: ${didcommErrorText(err)}` };
    }
    const message = unpacked.message;
    const sender = unpacked.authenticated && unpacked.fromKid ? didOf(unpacked.fromKid) : null;
    const claimedFrom = typeof message.from === 'string' ? message.from : null;
    if (typeof message.id !== 'string' || message.id.length === 0 || message.id.length > 200) return { status: 400, code: 'MESSAGE_INVALID', detail: 'the message has no id' };
    const expires = (message as { expires_time?: unknown }).expires_time;
    if (typeof expires === 'number' && expires * 1000 < services.now()) return { status: 400, code: 'MESSAGE_EXPIRED', detail: 'the message expired (expires_time is past)' };
    if (!(await services.coordination.replay.firstSeen(sender ?? claimedFrom, message.id))) return { status: 409, code: 'MESSAGE_REPLAYED', detail: `message ${message.id.slice(0, 100)} was already received` };
    if (sender) {
      const verdict = await services.coordination.limiter.hit(sender, limit);
      if (!verdict.allowed) return this.tooMany(sender, limit, verdict.retryAfter);
    }
    const inbound: Inbound = { message, sender, claimedFrom, channel, recipient };
    let outcome: Outcome;
    let family: Family | undefined;
    try {
      const target = route(message.type);
      family = target.family;
      outcome = await target.handler(inbound, services);
    } catch (err) {
      if (!(err instanceof ProtocolProblem)) throw err;
      if (family === 'forward' || !(sender ?? claimedFrom)) return { status: err.status, code: err.code, detail: err.message, headers: err.headers };
      outcome = { status: err.status, reply: problemReport(inbound, err.code, err.message), headers: err.headers };
    }
    if (!outcome.reply) return { status: outcome.status, headers: outcome.headers, family };
    const to = sender ?? claimedFrom ?? outcome.replyTo;
    if (!to) return { status: outcome.status === 200 ? 202 : outcome.status, headers: outcome.headers, family };
    const packed = await this.pack(outcome.reply, to, sender !== null, recipient);
    if (typeof packed !== 'string') return packed;
    return { status: outcome.status, body: packed, contentType: ENCRYPTED, headers: outcome.headers, family };
  }

  /**
   * Packs a reply or a push for `to`: authcrypt from the mediator's DID `from` (the one the agent
   * addressed; its did:key by default) when `authcrypt`, else anoncrypt.
   */
  async pack(reply: Reply, to: string, authcrypt: boolean, from = this.services.identity.did): Promise<string | WireProblem> {
    const doc = await this.resolver.resolve(to);
    if (!doc) return { status: 400, code: 'REPLY_UNRESOLVABLE', detail: `the reply cannot be encrypted: ${to.slice(0, 200)} does not resolve` };
    const message: IMessage = { typ: 'application/didcomm-plain+json', ...reply, id: reply.id ?? randomUUID(), to: [to], ...(authcrypt ? { from } : {}) } as IMessage;
    try {
      return await this.codec.pack({ message, to, from: authcrypt ? from : null }, { [to]: doc, [from]: this.ownDocumentOf(from) ?? this.ownDocument() });
    } catch (err) {
      if (err instanceof CodecBusyError) return { status: 503, code: 'BUSY', detail: 'the relay is at capacity; retry shortly', headers: { 'retry-after': '1' } };
      this.log.warn({ err: didcommErrorText(err), to }, 'a reply could not be packed');
      return { status: 500, code: 'REPLY_PACK_FAILED', detail: 'the reply could not be encrypted for the sender' };
    }
  }

  /** a did:peer:2 that starts with our keys but does not parse is not one the relay answers for */
  private ownDocumentOf(did: string): DIDDoc | undefined {
    try {
      return this.services.identity.documentOf(did, this.endpoint());
    } catch {
      return undefined;
    }
  }

  private tooMany(did: string, limit: number, retryAfter: number): WireProblem {
    return { status: 429, code: 'RATE_LIMITED', detail: `${did.slice(0, 200)} is over its limit of ${limit} envelopes a minute`, headers: { 'retry-after': String(retryAfter) } };
  }
}
