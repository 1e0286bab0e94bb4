import { invalid } from '../errors.js';
import { ADDRESS_LENGTH, formatAddress, parseAddress } from './address.js';
import { amountFromJson } from './amount.js';
import { ByteReader, ByteWriter, bytesEqual, fromHex, toHex } from './bytes.js';
import { parseDid } from './did.js';
import { BLS_PUBLIC_KEY_LENGTH, BLS_SIGNATURE_LENGTH } from './params.js';

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
export const EQUIVOCATION_KINDS: readonly EquivocationKind[] = ['double-vote', 'double-proposal'];

export type Payload =
  | { kind: 'Transfer'; to: Uint8Array; amount: bigint }
  | { kind: 'Stake'; amount: bigint }
  | { kind: 'Unstake'; amount: bigint }
  | { kind: 'DidCreate'; service: ServiceEndpoint[] }
  | { kind: 'DidDeactivate'; did: string }
  /** the sender's BLS vote key and its proof of possession (protocol/validator-keys.ts) */
  | { kind: 'ValidatorRegister'; blsPublicKey: Uint8Array; proofOfPossession: Uint8Array }
  /** two vote signatures of `validator` in `round` for different blocks (the shape of ledger_getEvidence) */
  | { kind: 'SubmitEvidence'; evidence: EquivocationKind; epoch: number; round: number; validator: Uint8Array; first: SignedVoteRef; second: SignedVoteRef };

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

export const MAX_SERVICES = 8;
export const MAX_SERVICE_FIELD = 256;

function fields(body: Record<string, unknown>, kind: string, allowed: string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw invalid('MALFORMED_PAYLOAD', `${kind} has no field ${JSON.stringify(key)} (fields: ${allowed.join(', ')})`);
  }
}

/** The binary decoder enforces the same rules as the JSON one: a block can carry nothing JSON could not. */
function nonZero(amount: bigint, kind: string): bigint {
  if (amount === 0n) throw invalid('MALFORMED_PAYLOAD', `${kind}.amount must be greater than zero`);
  return amount;
}

function positiveAmount(value: unknown, kind: string): bigint {
  const amount = amountFromJson(value, `${kind}.amount`);
  if (amount === 0n) throw invalid('MALFORMED_PAYLOAD', `${kind}.amount must be greater than zero`);
  return amount;
}

export function byteArrayFromJson(value: unknown, length: number, what: string): Uint8Array {
  if (!Array.isArray(value) || value.length !== length || !value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw invalid('MALFORMED_TRANSACTION', `${what} must be an array of ${length} bytes (integers 0-255)`);
  }
  return Uint8Array.from(value as number[]);
}

function addressFromJson(value: unknown, what: string): Uint8Array {
  if (Array.isArray(value)) return byteArrayFromJson(value, ADDRESS_LENGTH, what);
  try {
    return parseAddress(value);
  } catch {
    throw invalid('MALFORMED_PAYLOAD', `${what} must be a base58 address of 20 bytes`);
  }
}

function amountCodec<K extends 'Stake' | 'Unstake'>(kind: K, tag: number): PayloadCodec<K> {
  return {
    kind,
    tag,
    encode: (w, p) => void w.u128((p as { amount: bigint }).amount),
    decode: (r) => ({ kind, amount: nonZero(r.u128(), kind) }) as PayloadOf<K>,
    fromJson(body) {
      fields(body, kind, ['amount']);
      return { kind, amount: positiveAmount(body.amount, kind) } as PayloadOf<K>;
    },
    toJson: (p) => ({ amount: (p as { amount: bigint }).amount }),
  };
}

const transfer: PayloadCodec<'Transfer'> = {
  kind: 'Transfer',
  tag: 0,
  encode: (w, p) => void w.bytes(p.to).u128(p.amount),
  decode: (r) => ({ kind: 'Transfer', to: r.bytes(ADDRESS_LENGTH), amount: nonZero(r.u128(), 'Transfer') }),
  fromJson(body) {
    fields(body, 'Transfer', ['to', 'amount']);
    return { kind: 'Transfer', to: addressFromJson(body.to, 'Transfer.to'), amount: positiveAmount(body.amount, 'Transfer') };
  },
  toJson: (p, form) => ({ to: form === 'raw' ? Array.from(p.to) : formatAddress(p.to), amount: p.amount }),
};

function serviceFromJson(value: unknown, i: number): ServiceEndpoint {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('MALFORMED_PAYLOAD', `DidCreate.service[${i}] must be an object`);
  const s = value as Record<string, unknown>;
  fields(s, `DidCreate.service[${i}]`, ['id', 'type', 'serviceEndpoint']);
  const out: Record<string, string> = {};
  for (const key of ['id', 'type', 'serviceEndpoint']) {
    const v = s[key];
    if (typeof v !== 'string' || v.length === 0 || Buffer.byteLength(v) > MAX_SERVICE_FIELD) {
      throw invalid('MALFORMED_PAYLOAD', `DidCreate.service[${i}].${key} must be a non-empty string of at most ${MAX_SERVICE_FIELD} bytes`);
    }
    out[key] = v;
  }
  return out as unknown as ServiceEndpoint;
}

const didCreate: PayloadCodec<'DidCreate'> = {
  kind: 'DidCreate',
  tag: 3,
  encode(w, p) {
    w.u8(p.service.length);
    for (const s of p.service) w.str(s.id).str(s.type).str(s.serviceEndpoint);
  },
  decode(r) {
    const n = r.u8();
    if (n > MAX_SERVICES) throw invalid('MALFORMED_PAYLOAD', `at most ${MAX_SERVICES} services`);
    const service: ServiceEndpoint[] = [];
    for (let i = 0; i < n; i++) service.push({ id: r.str(), type: r.str(), serviceEndpoint: r.str() });
    return { kind: 'DidCreate', service };
  },
  fromJson(body) {
    fields(body, 'DidCreate', ['service']);
    const raw = body.service ?? [];
    if (!Array.isArray(raw) || raw.length > MAX_SERVICES) throw invalid('MALFORMED_PAYLOAD', `DidCreate.service must be an array of at most ${MAX_SERVICES} services`);
    return { kind: 'DidCreate', service: raw.map(serviceFromJson) };
  },
  toJson: (p) => ({ service: p.service.map((s) => ({ ...s })) }),
};

const didDeactivate: PayloadCodec<'DidDeactivate'> = {
  kind: 'DidDeactivate',
  tag: 4,
  encode: (w, p) => void w.str(p.did),
  decode: (r) => ({ kind: 'DidDeactivate', did: parseDid(r.str()).did }),
  fromJson(body) {
    fields(body, 'DidDeactivate', ['did']);
    try {
      return { kind: 'DidDeactivate', did: parseDid(body.did).did };
    } catch (err) {
      throw invalid('MALFORMED_PAYLOAD', `DidDeactivate.did: ${(err as Error).message}`);
    }
  },
  toJson: (p) => ({ did: p.did }),
};

/** Fixed-length bytes from JSON: lowercase hex (the standard form) or an array of byte values (the raw form). */
function fixedBytesFromJson(value: unknown, length: number, what: string): Uint8Array {
  try {
    return typeof value === 'string' ? fromHex(value, length, what) : byteArrayFromJson(value, length, what);
  } catch {
    throw invalid('MALFORMED_PAYLOAD', `${what} must be ${length} bytes: lowercase hex or an array of byte values`);
  }
}

function fixedBytesToJson(bytes: Uint8Array, form: JsonForm): string | number[] {
  return form === 'raw' ? Array.from(bytes) : toHex(bytes);
}

/** Rounds and heights: u64 on the wire, but no larger than 2^53 - 1 (JSON numbers, and the engine's). */
function heightFromWire(n: bigint, what: string): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid('MALFORMED_PAYLOAD', `${what} must be at most 2^53 - 1`);
  return Number(n);
}

function heightFromJson(value: unknown, what: string): number {
  const n = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : -1n;
  if (n < 0n) throw invalid('MALFORMED_PAYLOAD', `${what} must be a non-negative integer`);
  return heightFromWire(n, what);
}

const validatorRegister: PayloadCodec<'ValidatorRegister'> = {
  kind: 'ValidatorRegister',
  tag: 16,
  encode: (w, p) => void w.bytes(p.blsPublicKey).bytes(p.proofOfPossession),
  decode: (r) => ({ kind: 'ValidatorRegister', blsPublicKey: r.bytes(BLS_PUBLIC_KEY_LENGTH), proofOfPossession: r.bytes(BLS_SIGNATURE_LENGTH) }),
  fromJson(body) {
    fields(body, 'ValidatorRegister', ['bls_public_key', 'proof_of_possession']);
    return {
      kind: 'ValidatorRegister',
      blsPublicKey: fixedBytesFromJson(body.bls_public_key, BLS_PUBLIC_KEY_LENGTH, 'ValidatorRegister.bls_public_key'),
      proofOfPossession: fixedBytesFromJson(body.proof_of_possession, BLS_SIGNATURE_LENGTH, 'ValidatorRegister.proof_of_possession'),
    };
  },
  toJson: (p, form) => ({ bls_public_key: fixedBytesToJson(p.blsPublicKey, form), proof_of_possession: fixedBytesToJson(p.proofOfPossession, form) }),
};

/** The same rule in both decoders: the two votes must be for different blocks. */
function evidencePair(p: PayloadOf<'SubmitEvidence'>): PayloadOf<'SubmitEvidence'> {
  if (p.first.height === p.second.height && bytesEqual(p.first.blockHash, p.second.blockHash)) {
    throw invalid('MALFORMED_PAYLOAD', 'SubmitEvidence: first and second must be votes for different blocks');
  }
  return p;
}

function signedVoteFromJson(value: unknown, what: string): SignedVoteRef {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('MALFORMED_PAYLOAD', `${what} must be an object`);
  const o = value as Record<string, unknown>;
  fields(o, what, ['height', 'block_hash', 'signature']);
  return {
    height: heightFromJson(o.height, `${what}.height`),
    blockHash: fixedBytesFromJson(o.block_hash, 32, `${what}.block_hash`),
    signature: fixedBytesFromJson(o.signature, BLS_SIGNATURE_LENGTH, `${what}.signature`),
  };
}

const submitEvidence: PayloadCodec<'SubmitEvidence'> = {
  kind: 'SubmitEvidence',
  tag: 17,
  encode(w, p) {
    w.u8(EQUIVOCATION_KINDS.indexOf(p.evidence)).u64(BigInt(p.epoch)).u64(BigInt(p.round)).bytes(p.validator);
    for (const v of [p.first, p.second]) w.u64(BigInt(v.height)).bytes(v.blockHash).bytes(v.signature);
  },
  decode(r) {
    const evidence = EQUIVOCATION_KINDS[r.u8()];
    if (!evidence) throw invalid('MALFORMED_PAYLOAD', 'SubmitEvidence: unknown evidence kind');
    const epoch = heightFromWire(r.u64(), 'SubmitEvidence.epoch');
    const round = heightFromWire(r.u64(), 'SubmitEvidence.round');
    const validator = r.bytes(ADDRESS_LENGTH);
    const vote = (what: string): SignedVoteRef => ({ height: heightFromWire(r.u64(), what), blockHash: r.bytes(32), signature: r.bytes(BLS_SIGNATURE_LENGTH) });
    const first = vote('SubmitEvidence.first.height');
    return evidencePair({ kind: 'SubmitEvidence', evidence, epoch, round, validator, first, second: vote('SubmitEvidence.second.height') });
  },
  fromJson(body) {
    fields(body, 'SubmitEvidence', ['kind', 'epoch', 'round', 'validator', 'first', 'second']);
    const evidence = body.kind as EquivocationKind;
    if (!EQUIVOCATION_KINDS.includes(evidence)) throw invalid('MALFORMED_PAYLOAD', `SubmitEvidence.kind must be one of ${EQUIVOCATION_KINDS.join(', ')}`);
    return evidencePair({
      kind: 'SubmitEvidence',
      evidence,
      epoch: heightFromJson(body.epoch, 'SubmitEvidence.epoch'),
      round: heightFromJson(body.round, 'SubmitEvidence.round'),
      validator: addressFromJson(body.validator, 'SubmitEvidence.validator'),
      first: signedVoteFromJson(body.first, 'SubmitEvidence.first'),
      second: signedVoteFromJson(body.second, 'SubmitEvidence.second'),
    });
  },
  toJson: (p, form) => ({
    kind: p.evidence,
    epoch: p.epoch,
    round: p.round,
    validator: form === 'raw' ? Array.from(p.validator) : formatAddress(p.validator),
    first: { height: p.first.height, block_hash: fixedBytesToJson(p.first.blockHash, form), signature: fixedBytesToJson(p.first.signature, form) },
    second: { height: p.second.height, block_hash: fixedBytesToJson(p.second.blockHash, form), signature: fixedBytesToJson(p.second.signature, form) },
  }),
};

/** Tags 5 to 15 are left to the credential and recovery payloads; validator payloads start at 16. */
const codecs: PayloadCodec[] = [
  transfer,
  amountCodec('Stake', 1),
  amountCodec('Unstake', 2),
  didCreate,
  didDeactivate,
  validatorRegister,
  submitEvidence,
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
  return p.kind === 'Transfer' || p.kind === 'Stake' ? p.amount : 0n;
}
