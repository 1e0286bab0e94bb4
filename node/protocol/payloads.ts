import { invalid } from '../errors.js';
import type { ByteReader, ByteWriter } from './bytes.js';
import type { JsonForm, Payload, PayloadCodec } from './payload-types.js';
import { CREDENTIAL_CODECS } from './payload-codecs/credentials.js';
import { amountCodec, didCreate, didDeactivate, transfer } from './payload-codecs/core.js';
import { didRecover, setRecoveryPolicy } from './payload-codecs/recovery.js';
import { VALIDATOR_CODECS } from './payload-codecs/validators.js';
import { VERIFICATION_CODECS } from './payload-codecs/verification.js';

/**
 * Transaction payloads. The JSON form is externally tagged (`{"Transfer": {...}}`); the binary
 * form is a one-byte tag followed by the fields. New payload kinds (credentials, recovery) are
 * added by registering a codec with a new tag: existing encodings never change.
 */

export type { EquivocationKind, JsonForm, Payload, PayloadCodec, PayloadKind, PayloadOf, ServiceEndpoint, SignedVoteRef, UnsignedVerificationRequest, VerificationAnswerItem } from './payload-types.js';
export { EQUIVOCATION_KINDS } from './payload-codecs/validators.js';
export { MAX_SERVICES, MAX_SERVICE_FIELD } from './payload-codecs/core.js';
export { byteArrayFromJson } from './payload-codecs/fields.js';

/** Tags 5 to 7 are the credential payloads, 8 and 9 recovery, 10 and 11 verification, 12 to 15 are free; validator payloads start at 16. */
const codecs: PayloadCodec[] = [
  transfer,
  amountCodec('Stake', 1),
  amountCodec('Unstake', 2),
  didCreate,
  didDeactivate,
  ...CREDENTIAL_CODECS,
  setRecoveryPolicy,
  didRecover,
  ...VERIFICATION_CODECS,
  ...VALIDATOR_CODECS,
] as PayloadCodec[];
const byKind = new Map(codecs.map((c) => [c.kind as string, c]));
const byTag = new Map(codecs.map((c) => [c.tag, c]));

export const PAYLOAD_KINDS: readonly string[] = codecs.map((c) => c.kind);

export function encodePayload(w: ByteWriter, p: Payload): void {
  const codec = byKind.get(p.kind);
  if (!codec) throw new Error(`no codec for payload kind ${p.kind}`);
  codec.encode(w.u8(codec.tag), p);
}

export function decodePayload(r: ByteReader): Payload {
  const tag = r.u8();
  const codec = byTag.get(tag);
  if (!codec) throw invalid('MALFORMED_PAYLOAD', `unknown payload tag ${tag}`);
  return codec.decode(r);
}

export function payloadFromJson(value: unknown): Payload {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('MALFORMED_PAYLOAD', `payload must be an externally tagged object such as {"Transfer": {...}}`);
  }
  const keys = Object.keys(value);
  if (keys.length !== 1) throw invalid('MALFORMED_PAYLOAD', `payload must have exactly one key, one of: ${PAYLOAD_KINDS.join(', ')}`);
  const kind = keys[0]!;
  const codec = byKind.get(kind);
  if (!codec) throw invalid('MALFORMED_PAYLOAD', `unknown payload kind ${JSON.stringify(kind)}; known kinds: ${PAYLOAD_KINDS.join(', ')}`);
  const body = (value as Record<string, unknown>)[kind];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('MALFORMED_PAYLOAD', `payload ${kind} must be an object`);
  return codec.fromJson(body as Record<string, unknown>);
}

export function payloadToJson(p: Payload, form: JsonForm = 'standard'): Record<string, unknown> {
  const codec = byKind.get(p.kind)!;
  return { [p.kind]: codec.toJson(p, form) };
}

/** The amount a payload moves out of the sender's spendable balance, fee excluded. */
export function payloadDebit(p: Payload): bigint {
  if (p.kind === 'Transfer' || p.kind === 'Stake') return p.amount;
  if (p.kind === 'VerificationRequest') return BigInt(p.request.fee);
  return p.kind === 'CredentialRequest' ? p.fee : 0n;
}
