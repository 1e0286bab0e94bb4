import { invalid } from '../../errors.js';
import { ADDRESS_LENGTH, formatAddress } from '../address.js';
import { parseDid } from '../did.js';
import type { PayloadCodec, PayloadOf, ServiceEndpoint } from '../payload-types.js';
import { addressFromJson, didField, fields, nonZero, positiveAmount } from './fields.js';

/** Transfers, stake, and DID documents. */

export const MAX_SERVICES = 8;
export const MAX_SERVICE_FIELD = 256;

export function amountCodec<K extends 'Stake' | 'Unstake'>(kind: K, tag: number): PayloadCodec<K> {
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

export const transfer: PayloadCodec<'Transfer'> = {
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

export const didCreate: PayloadCodec<'DidCreate'> = {
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

export const didDeactivate: PayloadCodec<'DidDeactivate'> = {
  kind: 'DidDeactivate',
  tag: 4,
  encode: (w, p) => void w.str(p.did),
  decode: (r) => ({ kind: 'DidDeactivate', did: parseDid(r.str()).did }),
  fromJson(body) {
    fields(body, 'DidDeactivate', ['did']);
    return { kind: 'DidDeactivate', did: didField(body.did, 'DidDeactivate.did') };
  },
  toJson: (p) => ({ did: p.did }),
};

