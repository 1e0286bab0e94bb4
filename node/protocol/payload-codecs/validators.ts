import { invalid } from '../../errors.js';
import { ADDRESS_LENGTH, formatAddress } from '../address.js';
import { bytesEqual } from '../bytes.js';
import { CREDENTIAL_ID_LENGTH, formatCredentialId } from '../credential-id.js';
import { BLS_PUBLIC_KEY_LENGTH, BLS_SIGNATURE_LENGTH } from '../params.js';
import type { EquivocationKind, PayloadCodec, PayloadOf, SignedVoteRef } from '../payload-types.js';
import { addressFromJson, credentialIdField, fields, fixedBytesFromJson, fixedBytesToJson, heightFromJson, heightFromWire } from './fields.js';

/** Validator registration and equivocation evidence. */

export const EQUIVOCATION_KINDS: readonly EquivocationKind[] = ['double-vote', 'double-proposal'];

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


const validatorQualify: PayloadCodec<'ValidatorQualify'> = {
  kind: 'ValidatorQualify',
  tag: 18,
  encode: (w, p) => void w.bytes(p.credentialId),
  decode: (r) => ({ kind: 'ValidatorQualify', credentialId: r.bytes(CREDENTIAL_ID_LENGTH) }),
  fromJson(body) {
    fields(body, 'ValidatorQualify', ['credential_id']);
    return { kind: 'ValidatorQualify', credentialId: credentialIdField(body.credential_id, 'ValidatorQualify.credential_id') };
  },
  toJson: (p) => ({ credential_id: formatCredentialId(p.credentialId) }),
};

export const VALIDATOR_CODECS = [validatorRegister, submitEvidence, validatorQualify];
