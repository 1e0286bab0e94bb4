import { BBS_PUBLIC_KEY_BYTES, ECVRF_PROOF_LENGTH, MAX_BBS_MESSAGES } from '../../crypto/sizes.js';
import { invalid } from '../../errors.js';
import { formatTokens } from '../amount.js';
import { CREDENTIAL_ID_LENGTH, formatCredentialId } from '../credential-id.js';
import { CREDENTIAL_TYPES, isCredentialType, issuanceFee } from '../credential-types.js';
import { parseDid } from '../did.js';
import type { PayloadCodec, PayloadOf } from '../payload-types.js';
import { REVOCATION_LIST_ENTRIES } from '../revocation-list.js';
import { credentialIdField as idFromJson, didField, fields, fixedBytesFromJson, fixedBytesToJson, intField, positiveAmount } from './fields.js';

/** Credential request, attestation and revocation (docs/protocol.md, "Credential issuance"). */

/** lists are numbered from 0; an issuer reaching 2^32 lists of 131,072 would be far past any use */
const MAX_STATUS_LIST = 0xffffffff;


/** The rules both decoders share: the type and its level, the exact fee, the index bound, the BBS key. */
function checkRequest(p: PayloadOf<'CredentialRequest'>): PayloadOf<'CredentialRequest'> {
  const where = 'CredentialRequest';
  if (p.statusIndex >= REVOCATION_LIST_ENTRIES) {
    throw invalid('MALFORMED_PAYLOAD', `${where}.status_index ${p.statusIndex} is out of range: a revocation list has ${REVOCATION_LIST_ENTRIES} entries (0 to ${REVOCATION_LIST_ENTRIES - 1})`);
  }
  let fee: bigint;
  try {
    fee = issuanceFee(p.credentialType, p.kycLevel === 0 ? undefined : p.kycLevel);
  } catch (err) {
    throw invalid('MALFORMED_PAYLOAD', `${where}: ${(err as Error).message}`);
  }
  if (p.fee !== fee) {
    const level = p.credentialType === 'KYCCredential' ? ` level ${p.kycLevel}` : '';
    throw invalid('MALFORMED_PAYLOAD', `${where}.fee must be the issuance fee of ${p.credentialType}${level}: ${fee} (${formatTokens(fee)} LGR), got ${p.fee}`);
  }
  if (p.bbs && (p.bbs.messageCount < 1 || p.bbs.messageCount > MAX_BBS_MESSAGES)) {
    throw invalid('MALFORMED_PAYLOAD', `${where}.bbs_message_count must be from 1 to ${MAX_BBS_MESSAGES}`);
  }
  if (p.subject === p.issuer) throw invalid('MALFORMED_PAYLOAD', `${where}: the subject and the issuer must be different DIDs`);
  return p;
}

const credentialRequest: PayloadCodec<'CredentialRequest'> = {
  kind: 'CredentialRequest',
  tag: 5,
  encode(w, p) {
    w.bytes(p.credentialId).u8(CREDENTIAL_TYPES.indexOf(p.credentialType)).u8(p.kycLevel).str(p.subject).str(p.issuer);
    w.bytes(p.hash).bytes(p.evidenceDigest).u128(p.fee).u32(p.statusList).u32(p.statusIndex).u8(p.bbs ? 1 : 0);
    if (p.bbs) w.bytes(p.bbs.publicKey).u16(p.bbs.messageCount);
  },
  decode(r) {
    const credentialId = r.bytes(CREDENTIAL_ID_LENGTH);
    const credentialType = CREDENTIAL_TYPES[r.u8()];
    if (!credentialType) throw invalid('MALFORMED_PAYLOAD', 'CredentialRequest: unknown credential type');
    const kycLevel = r.u8();
    const subject = parseDid(r.str()).did;
    const issuer = parseDid(r.str()).did;
    const p: PayloadOf<'CredentialRequest'> = {
      kind: 'CredentialRequest',
      credentialId,
      credentialType,
      kycLevel,
      subject,
      issuer,
      hash: r.bytes(32),
      evidenceDigest: r.bytes(32),
      fee: r.u128(),
      statusList: r.u32(),
      statusIndex: r.u32(),
    };
    const flag = r.u8();
    if (flag > 1) throw invalid('MALFORMED_PAYLOAD', 'CredentialRequest: bad BBS flag');
    if (flag === 1) p.bbs = { publicKey: r.bytes(BBS_PUBLIC_KEY_BYTES), messageCount: r.u16() };
    return checkRequest(p);
  },
  fromJson(body) {
    const where = 'CredentialRequest';
    fields(body, where, ['credential_id', 'credential_type', 'kyc_level', 'subject_did', 'issuer_did', 'hash', 'evidence_digest', 'fee', 'status_list', 'status_index', 'bbs_public_key', 'bbs_message_count']);
    if (!isCredentialType(body.credential_type)) throw invalid('MALFORMED_PAYLOAD', `${where}.credential_type must be one of ${CREDENTIAL_TYPES.join(', ')}`);
    const p: PayloadOf<'CredentialRequest'> = {
      kind: 'CredentialRequest',
      credentialId: idFromJson(body.credential_id, `${where}.credential_id`),
      credentialType: body.credential_type,
      kycLevel: body.kyc_level === undefined ? 0 : intField(body.kyc_level, 1, 3, `${where}.kyc_level`),
      subject: didField(body.subject_did, `${where}.subject_did`),
      issuer: didField(body.issuer_did, `${where}.issuer_did`),
      hash: fixedBytesFromJson(body.hash, 32, `${where}.hash`),
      evidenceDigest: fixedBytesFromJson(body.evidence_digest, 32, `${where}.evidence_digest`),
      fee: positiveAmount(body.fee, where),
      statusList: intField(body.status_list, 0, MAX_STATUS_LIST, `${where}.status_list`),
      statusIndex: intField(body.status_index, 0, Number.MAX_SAFE_INTEGER, `${where}.status_index`),
    };
    if ((body.bbs_public_key === undefined) !== (body.bbs_message_count === undefined)) {
      throw invalid('MALFORMED_PAYLOAD', `${where}: bbs_public_key and bbs_message_count come together`);
    }
    if (body.bbs_public_key !== undefined) {
      p.bbs = {
        publicKey: fixedBytesFromJson(body.bbs_public_key, BBS_PUBLIC_KEY_BYTES, `${where}.bbs_public_key`),
        messageCount: intField(body.bbs_message_count, 1, MAX_BBS_MESSAGES, `${where}.bbs_message_count`),
      };
    }
    return checkRequest(p);
  },
  toJson(p, form) {
    return {
      credential_id: formatCredentialId(p.credentialId),
      credential_type: p.credentialType,
      ...(p.credentialType === 'KYCCredential' ? { kyc_level: p.kycLevel } : {}),
      subject_did: p.subject,
      issuer_did: p.issuer,
      hash: fixedBytesToJson(p.hash, form),
      evidence_digest: fixedBytesToJson(p.evidenceDigest, form),
      fee: p.fee,
      status_list: p.statusList,
      status_index: p.statusIndex,
      ...(p.bbs ? { bbs_public_key: fixedBytesToJson(p.bbs.publicKey, form), bbs_message_count: p.bbs.messageCount } : {}),
    };
  },
};

const credentialAttest: PayloadCodec<'CredentialAttest'> = {
  kind: 'CredentialAttest',
  tag: 6,
  encode: (w, p) => void w.bytes(p.credentialId).bytes(p.vrfProof).bytes(p.signature),
  decode: (r) => ({ kind: 'CredentialAttest', credentialId: r.bytes(CREDENTIAL_ID_LENGTH), vrfProof: r.bytes(ECVRF_PROOF_LENGTH), signature: r.bytes(64) }),
  fromJson(body) {
    fields(body, 'CredentialAttest', ['credential_id', 'vrf_proof', 'signature']);
    return {
      kind: 'CredentialAttest',
      credentialId: idFromJson(body.credential_id, 'CredentialAttest.credential_id'),
      vrfProof: fixedBytesFromJson(body.vrf_proof, ECVRF_PROOF_LENGTH, 'CredentialAttest.vrf_proof'),
      signature: fixedBytesFromJson(body.signature, 64, 'CredentialAttest.signature'),
    };
  },
  toJson: (p, form) => ({ credential_id: formatCredentialId(p.credentialId), vrf_proof: fixedBytesToJson(p.vrfProof, form), signature: fixedBytesToJson(p.signature, form) }),
};

const credentialRevoke: PayloadCodec<'CredentialRevoke'> = {
  kind: 'CredentialRevoke',
  tag: 7,
  encode: (w, p) => void w.bytes(p.credentialId),
  decode: (r) => ({ kind: 'CredentialRevoke', credentialId: r.bytes(CREDENTIAL_ID_LENGTH) }),
  fromJson(body) {
    fields(body, 'CredentialRevoke', ['credential_id']);
    return { kind: 'CredentialRevoke', credentialId: idFromJson(body.credential_id, 'CredentialRevoke.credential_id') };
  },
  toJson: (p) => ({ credential_id: formatCredentialId(p.credentialId) }),
};

export const CREDENTIAL_CODECS = [credentialRequest, credentialAttest, credentialRevoke];
