import { invalid } from '../errors.js';
import type { ByteReader, ByteWriter } from './bytes.js';
import type { BbsKey } from './credential-records.js';
import type { CredentialType } from './credential-types.js';
import { CREDENTIAL_CODECS } from './payload-codecs/credentials.js';
import { amountCodec, didCreate, didDeactivate, transfer } from './payload-codecs/core.js';
import { didRecover, setRecoveryPolicy } from './payload-codecs/recovery.js';
import { VALIDATOR_CODECS } from './payload-codecs/validators.js';

/**
 * Transaction payloads. The JSON form is externally tagged (`{"Transfer": {...}}`); the binary
 * form is a one-byte tag followed by the fields. New payload kinds (credentials, recovery) are
 * added by registering a codec with a new tag: existing encodings never change.
 */

export interface ServiceEndpoint {
  id: string;
  type: string;
  serviceEndpoint: string;
}

/** One of the two signed votes of equivocation evidence: the block it voted for and its BLS signature. */
export interface SignedVoteRef {
  height: number;
  blockHash: Uint8Array;
  signature: Uint8Array;
}

/** A double proposal is also a double vote: a proposal's signature is its leader's vote on the block. */
export type EquivocationKind = 'double-vote' | 'double-proposal';
export { EQUIVOCATION_KINDS } from './payload-codecs/validators.js';

export type Payload =
  | { kind: 'Transfer'; to: Uint8Array; amount: bigint }
  | { kind: 'Stake'; amount: bigint }
  | { kind: 'Unstake'; amount: bigint }
  | { kind: 'DidCreate'; service: ServiceEndpoint[] }
  | { kind: 'DidDeactivate'; did: string }
  /** the DID's guardians (DIDs); no guardians, threshold 0 and delay 0 remove the policy */
  | { kind: 'SetRecoveryPolicy'; did: string; guardians: string[]; threshold: number; delayBlocks: number }
  /** guardians' signatures of protocol/recovery.ts's message, moving `did` to `newPublicKey` */
  | { kind: 'DidRecover'; did: string; newPublicKey: Uint8Array; signatures: Array<{ guardian: string; signature: Uint8Array }> }
  /** the sender's BLS vote key and its proof of possession (protocol/validator-keys.ts) */
  | { kind: 'ValidatorRegister'; blsPublicKey: Uint8Array; proofOfPossession: Uint8Array }
  /** two vote signatures of `validator` in `round` for different blocks (the shape of ledger_getEvidence) */
  | { kind: 'SubmitEvidence'; evidence: EquivocationKind; epoch: number; round: number; validator: Uint8Array; first: SignedVoteRef; second: SignedVoteRef }
  /** issued by the sender, who must hold the issuer DID's key; `kycLevel` is 0 unless the type is KYCCredential */
  | {
      kind: 'CredentialRequest';
      credentialId: Uint8Array;
      credentialType: CredentialType;
      kycLevel: number;
      subject: string;
      issuer: string;
      hash: Uint8Array;
      evidenceDigest: Uint8Array;
      fee: bigint;
      statusList: number;
      statusIndex: number;
      bbs?: BbsKey;
    }
  /** sent by a committee member: its VRF proof over the request's seed and its signature of the credential hash */
  | { kind: 'CredentialAttest'; credentialId: Uint8Array; vrfProof: Uint8Array; signature: Uint8Array }
  | { kind: 'CredentialRevoke'; credentialId: Uint8Array }
  /** links the sender's KYC credential to its validator record: the KYC rule of eligibility */
  | { kind: 'ValidatorQualify'; credentialId: Uint8Array };

export type PayloadKind = Payload['kind'];
export type PayloadOf<K extends PayloadKind> = Extract<Payload, { kind: K }>;

/** `standard` writes addresses as base58; `raw` (ledger_getTransaction) writes them as byte arrays. */
export type JsonForm = 'standard' | 'raw';

export interface PayloadCodec<K extends PayloadKind = PayloadKind> {
  kind: K;
  tag: number;
  encode(w: ByteWriter, p: PayloadOf<K>): void;
  decode(r: ByteReader): PayloadOf<K>;
  fromJson(body: Record<string, unknown>): PayloadOf<K>;
  toJson(p: PayloadOf<K>, form: JsonForm): Record<string, unknown>;
}

export { MAX_SERVICES, MAX_SERVICE_FIELD } from './payload-codecs/core.js';
export { byteArrayFromJson } from './payload-codecs/fields.js';

/** Tags 5 to 7 are the credential payloads, 8 and 9 recovery, 10 to 15 are free; validator payloads start at 16. */
const codecs: PayloadCodec[] = [
  transfer,
  amountCodec('Stake', 1),
  amountCodec('Unstake', 2),
  didCreate,
  didDeactivate,
  ...CREDENTIAL_CODECS,
  setRecoveryPolicy,
  didRecover,
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
  return p.kind === 'CredentialRequest' ? p.fee : 0n;
}
