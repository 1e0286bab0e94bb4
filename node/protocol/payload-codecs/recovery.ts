import { PUBLIC_KEY_LENGTH, SIGNATURE_LENGTH } from '../../crypto/ed25519.js';
import { invalid } from '../../errors.js';
import type { PayloadCodec, PayloadOf } from '../payload-types.js';
import { MAX_GUARDIANS, policyProblem } from '../recovery-records.js';
import { didField, fields, fixedBytesFromJson, fixedBytesToJson } from './fields.js';

/** Social recovery: a DID's guardian policy, and the guardians' recovery of the DID to a new key. */

export const MAX_RECOVERY_SIGNATURES = MAX_GUARDIANS;

function intField(value: unknown, what: string): number {
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw invalid('MALFORMED_PAYLOAD', `${what} must be a non-negative integer`);
  return n;
}

/** The rules of both decoders: counts and ranges, no duplicate guardian, the DID not its own guardian. */
function checkedPolicy(p: PayloadOf<'SetRecoveryPolicy'>): PayloadOf<'SetRecoveryPolicy'> {
  const problem = policyProblem(p.guardians.length, p.threshold, p.delayBlocks);
  if (problem) throw invalid('MALFORMED_PAYLOAD', `SetRecoveryPolicy: ${problem}`);
  if (new Set(p.guardians).size !== p.guardians.length) throw invalid('MALFORMED_PAYLOAD', 'SetRecoveryPolicy: a guardian is listed twice');
  if (p.guardians.includes(p.did)) throw invalid('MALFORMED_PAYLOAD', 'SetRecoveryPolicy: a DID cannot be its own guardian');
  return p;
}

function signatureCount(n: number): number {
  if (n < 1 || n > MAX_RECOVERY_SIGNATURES) throw invalid('MALFORMED_PAYLOAD', `DidRecover carries 1 to ${MAX_RECOVERY_SIGNATURES} guardian signatures, got ${n}`);
  return n;
}

/** str did ‖ u8 n ‖ n × str guardian ‖ u8 threshold ‖ u32 delay_blocks */
export const setRecoveryPolicy: PayloadCodec<'SetRecoveryPolicy'> = {
  kind: 'SetRecoveryPolicy',
  tag: 8,
  encode(w, p) {
    w.str(p.did).u8(p.guardians.length);
    for (const g of p.guardians) w.str(g);
    w.u8(p.threshold).u32(p.delayBlocks);
  },
  decode(r) {
    const did = didField(r.str(), 'SetRecoveryPolicy.did');
    const n = r.u8();
    if (n > MAX_GUARDIANS) throw invalid('MALFORMED_PAYLOAD', `SetRecoveryPolicy: at most ${MAX_GUARDIANS} guardians`);
    const guardians: string[] = [];
    for (let i = 0; i < n; i++) guardians.push(didField(r.str(), `SetRecoveryPolicy.guardians[${i}]`));
    const threshold = r.u8();
    return checkedPolicy({ kind: 'SetRecoveryPolicy', did, guardians, threshold, delayBlocks: r.u32() });
  },
  fromJson(body) {
    fields(body, 'SetRecoveryPolicy', ['did', 'guardians', 'threshold', 'delay_blocks']);
    const raw = body.guardians;
    if (!Array.isArray(raw) || raw.length > MAX_GUARDIANS) throw invalid('MALFORMED_PAYLOAD', `SetRecoveryPolicy.guardians must be an array of at most ${MAX_GUARDIANS} DIDs`);
    return checkedPolicy({
      kind: 'SetRecoveryPolicy',
      did: didField(body.did, 'SetRecoveryPolicy.did'),
      guardians: raw.map((g, i) => didField(g, `SetRecoveryPolicy.guardians[${i}]`)),
      threshold: intField(body.threshold, 'SetRecoveryPolicy.threshold'),
      delayBlocks: intField(body.delay_blocks, 'SetRecoveryPolicy.delay_blocks'),
    });
  },
  toJson: (p) => ({ did: p.did, guardians: [...p.guardians], threshold: p.threshold, delay_blocks: p.delayBlocks }),
};

function guardianSignatureFromJson(value: unknown, i: number): { guardian: string; signature: Uint8Array } {
  const what = `DidRecover.signatures[${i}]`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('MALFORMED_PAYLOAD', `${what} must be an object`);
  const o = value as Record<string, unknown>;
  fields(o, what, ['guardian', 'signature']);
  return { guardian: didField(o.guardian, `${what}.guardian`), signature: fixedBytesFromJson(o.signature, SIGNATURE_LENGTH, `${what}.signature`) };
}

/** str did ‖ new_public_key[32] ‖ u8 n ‖ n × (str guardian ‖ signature[64]) */
export const didRecover: PayloadCodec<'DidRecover'> = {
  kind: 'DidRecover',
  tag: 9,
  encode(w, p) {
    w.str(p.did).bytes(p.newPublicKey).u8(p.signatures.length);
    for (const s of p.signatures) w.str(s.guardian).bytes(s.signature);
  },
  decode(r) {
    const did = didField(r.str(), 'DidRecover.did');
    const newPublicKey = r.bytes(PUBLIC_KEY_LENGTH);
    const signatures: Array<{ guardian: string; signature: Uint8Array }> = [];
    for (let n = signatureCount(r.u8()), i = 0; i < n; i++) {
      signatures.push({ guardian: didField(r.str(), `DidRecover.signatures[${i}].guardian`), signature: r.bytes(SIGNATURE_LENGTH) });
    }
    return { kind: 'DidRecover', did, newPublicKey, signatures };
  },
  fromJson(body) {
    fields(body, 'DidRecover', ['did', 'new_public_key', 'signatures']);
    const raw = body.signatures;
    if (!Array.isArray(raw)) throw invalid('MALFORMED_PAYLOAD', 'DidRecover.signatures must be an array of {guardian, signature}');
    signatureCount(raw.length);
    return {
      kind: 'DidRecover',
      did: didField(body.did, 'DidRecover.did'),
      newPublicKey: fixedBytesFromJson(body.new_public_key, PUBLIC_KEY_LENGTH, 'DidRecover.new_public_key'),
      signatures: raw.map(guardianSignatureFromJson),
    };
  },
  toJson: (p, form) => ({
    did: p.did,
    new_public_key: fixedBytesToJson(p.newPublicKey, form),
    signatures: p.signatures.map((s) => ({ guardian: s.guardian, signature: fixedBytesToJson(s.signature, form) })),
  }),
};
