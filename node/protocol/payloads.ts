import { invalid } from '../errors.js';
import { ADDRESS_LENGTH, formatAddress, parseAddress } from './address.js';
import { amountFromJson } from './amount.js';
import { ByteReader, ByteWriter } from './bytes.js';
import { parseDid } from './did.js';

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

export type Payload =
  | { kind: 'Transfer'; to: Uint8Array; amount: bigint }
  | { kind: 'Stake'; amount: bigint }
  | { kind: 'Unstake'; amount: bigint }
  | { kind: 'DidCreate'; service: ServiceEndpoint[] }
  | { kind: 'DidDeactivate'; did: string };

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

const codecs: PayloadCodec[] = [transfer, amountCodec('Stake', 1), amountCodec('Unstake', 2), didCreate, didDeactivate] as PayloadCodec[];
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
