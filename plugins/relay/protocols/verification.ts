import type { IMessage } from '../wire/didcomm.js';

/**
 * Verification requests over DIDComm (issue 27): a relying party delivers its signed request
 * (seed 002, node/protocol/verification.ts) to the subject's agent. The relay has no handler for
 * this type, on purpose: the message travels inside a routing 2.0 forward, encrypted to the
 * subject, and the relay queues the envelope without opening it (dispatch.ts routes on the outer
 * type only). The subject's wallet answers on chain, not over DIDComm, so there is no reply type.
 * docs/relay.md, "Verification requests over DIDComm".
 */

export const VERIFICATION = 'https://ledger.dev/verification/1.0';
export const VERIFICATION_REQUEST = `${VERIFICATION}/request`;

/** The signed request as JSON. Opaque here: members this code does not know (chainId, nonce, …) are signed too, so they go through untouched. */
export type SignedRequestJson = Record<string, unknown>;

export interface VerificationRequestMessage extends IMessage {
  typ: 'application/didcomm-plain+json';
  type: typeof VERIFICATION_REQUEST;
  from: string;
  to: [string];
  created_time: number;
  expires_time?: number;
  thid: string;
  body: { request: SignedRequestJson };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The plaintext a requester packs (authcrypt, from its DID) to the subject's agent. `created_time`
 * defaults to the request's own `timestamp` (Unix ms) in seconds, which keeps this a pure function;
 * `expiresTime` (Unix seconds) tells the subject's wallet when to stop acting on it.
 */
export function verificationRequestMessage(args: {
  id: string;
  from: string;
  to: string;
  /** any JSON object (a VerificationRequest too): carried as given */
  request: object;
  createdTime?: number;
  expiresTime?: number;
}): VerificationRequestMessage {
  const { id, from, to } = args;
  const request: unknown = args.request;
  if (!isObject(request)) throw new TypeError('the verification request must be a JSON object');
  const ts = request.timestamp;
  const created = args.createdTime ?? (Number.isSafeInteger(ts) && (ts as number) >= 0 ? Math.floor((ts as number) / 1000) : undefined);
  if (created === undefined) throw new TypeError('createdTime is needed: the request has no timestamp to take it from');
  const message: VerificationRequestMessage = {
    id,
    typ: 'application/didcomm-plain+json',
    type: VERIFICATION_REQUEST,
    from,
    to: [to],
    created_time: created,
    // the first message of its thread: its id is the thread id
    thid: id,
    body: { request },
  };
  if (args.expiresTime !== undefined) message.expires_time = args.expiresTime;
  return message;
}

/** The signed request a received plaintext carries, as sent; null for another type or a body without one. Checking it is the wallet's work (parse, then verify the signature). */
export function requestOf(message: Pick<IMessage, 'type' | 'body'>): SignedRequestJson | null {
  if (message.type !== VERIFICATION_REQUEST || !isObject(message.body)) return null;
  const request = message.body.request;
  return isObject(request) ? request : null;
}
