import { randomUUID } from 'node:crypto';
import type { IMessage } from '../wire/didcomm.js';
import type { RelayServices } from '../core/services.js';

/**
 * What a protocol handler sees and returns. The wire (wire/inbound.ts) has already decrypted the
 * envelope, checked replay and the sender's rate; a handler decides and answers with a plaintext
 * reply, which the wire packs for the sender.
 */

/** The live-mode connection a message arrived on (a WebSocket to /didcomm), if any. */
export interface LiveChannel {
  /**
   * Turns live delivery on or off. `keys` null means every key of the mediation, read again at
   * each push, so keys registered later are delivered live too; otherwise just those keys.
   * Pushes come from `replyFrom`, the relay's DID the agent addressed (its did:key when unset).
   */
  setLive(on: boolean, mediationId: string, keys: readonly string[] | null, replyTo: string, replyFrom?: string): void;
  readonly live: boolean;
}

export interface Inbound {
  message: IMessage;
  /** the authenticated sender (authcrypt), else null */
  sender: string | null;
  /** `from` as written in the plaintext; equals sender when authenticated */
  claimedFrom: string | null;
  channel: LiveChannel | null;
  /** the relay's DID the envelope was addressed to (its did:key or its did:peer:2); replies come from it */
  recipient?: string;
}

export type Reply = Omit<IMessage, 'id' | 'typ'> & { id?: string };

export interface Outcome {
  status: number;
  reply?: Reply;
  /** who the reply goes to when the message had no usable `from` (pickup's recipient_did) */
  replyTo?: string;
  headers?: Record<string, string>;
}

export type Handler = (inbound: Inbound, services: RelayServices) => Promise<Outcome>;

/** A protocol failure the sender gets as a problem-report (and the given HTTP status). */
export class ProtocolProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const PROBLEM_REPORT = 'https://didcomm.org/report-problem/2.0/problem-report';

export function reply(inbound: Inbound, type: string, body: Record<string, unknown>, extra: Partial<IMessage> = {}): Reply {
  const m = inbound.message as IMessage & { thid?: string };
  return { id: randomUUID(), type, body, thid: m.thid ?? m.id, created_time: Math.floor(Date.now() / 1000), ...extra };
}

export function problemReport(inbound: Inbound, code: string, comment: string): Reply {
  const m = inbound.message as IMessage & { thid?: string };
  return { id: randomUUID(), type: PROBLEM_REPORT, pthid: m.thid ?? m.id, body: { code, comment }, created_time: Math.floor(Date.now() / 1000) };
}

export function body(inbound: Inbound): Record<string, unknown> {
  const b = inbound.message.body as unknown;
  if (b === null || b === undefined) return {};
  if (typeof b !== 'object' || Array.isArray(b)) throw new ProtocolProblem('e.p.msg.bad-body', 'the message body must be a JSON object');
  return b as Record<string, unknown>;
}

/** Coordinate-mediation and pickup answer only a sender who proved who it is (authcrypt). */
export function requireSender(inbound: Inbound, what: string): string {
  if (!inbound.sender) throw new ProtocolProblem('e.p.req.sender-unidentified', `${what} needs an identifiable sender: authcrypt the message from your DID`, 401);
  return inbound.sender;
}
