import { ECVRF_PROOF_LENGTH } from '../../crypto/sizes.js';
import { invalid, isLedgerError } from '../../errors.js';
import { formatTokens } from '../amount.js';
import type { ByteReader, ByteWriter } from '../bytes.js';
import type { JsonForm, PayloadCodec, UnsignedVerificationRequest, VerificationAnswerItem } from '../payload-types.js';
import { claimFromJson, normalizeClaims, readClaims, writeClaims } from '../verification-answer.js';
import { canonicalJson, MAX_CLAIMS, MIN_VERIFICATION_FEE, parseVerificationRequest } from '../verification.js';
import { fields, fixedBytesFromJson, fixedBytesToJson } from './fields.js';

/** Verification requests and answers (docs/protocol.md, "Verification requests and responses"). */

const NO_SIGNATURE = '0'.repeat(128);

/** A request as a payload holds it: parsed by the request rules, with chain id and nonce, fee at least the minimum. */
export function unsignedRequest(json: unknown, where = 'VerificationRequest.request'): UnsignedVerificationRequest {
  if (typeof json === 'object' && json !== null && 'signature' in json) {
    throw invalid('MALFORMED_PAYLOAD', `${where} carries no signature: the transaction's signature is the request's`);
  }
  let parsed;
  try {
    const o = typeof json === 'object' && json !== null && !Array.isArray(json) ? { ...(json as Record<string, unknown>), signature: NO_SIGNATURE } : json;
    parsed = parseVerificationRequest(o);
  } catch (err) {
    throw isLedgerError(err) ? invalid('MALFORMED_PAYLOAD', `${where}: ${err.message}`) : err;
  }
  const { signature: _none, ...rest } = parsed;
  if (rest.chainId === undefined || rest.nonce === undefined) throw invalid('MALFORMED_PAYLOAD', `${where} must carry chainId and nonce: they make the request its own transaction`);
  if (BigInt(rest.fee) < MIN_VERIFICATION_FEE) {
    throw invalid('FEE_TOO_LOW', `${where}.fee ${rest.fee} is below the minimum verification fee ${MIN_VERIFICATION_FEE} (${formatTokens(MIN_VERIFICATION_FEE)} LGR)`, { minimum: String(MIN_VERIFICATION_FEE) });
  }
  return rest as UnsignedVerificationRequest;
}

const verificationRequest: PayloadCodec<'VerificationRequest'> = {
  kind: 'VerificationRequest',
  tag: 10,
  encode: (w, p) => void w.str(canonicalJson(p.request)),
  decode(r) {
    const text = r.str();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw invalid('MALFORMED_PAYLOAD', 'VerificationRequest: the request is not JSON');
    }
    const request = unsignedRequest(json);
    // one encoding per request: the bytes are the JCS form, nothing else
    if (canonicalJson(request) !== text) throw invalid('MALFORMED_PAYLOAD', 'VerificationRequest: the request is not in its canonical (JCS) form');
    return { kind: 'VerificationRequest', request };
  },
  fromJson(body) {
    fields(body, 'VerificationRequest', ['request']);
    return { kind: 'VerificationRequest', request: unsignedRequest(body.request) };
  },
  toJson: (p) => ({ request: JSON.parse(canonicalJson(p.request)) as unknown }),
};

const MAX_REQUEST_ID = 256;
/**
 * Answers in one VerificationAnswerBatch at most. A validator gathers the answers it has ready
 * into one transaction; the transaction's size limit (MAX_TX_BYTES) usually binds first.
 */
export const MAX_BATCH_ANSWERS = 32;

/** str request_id ‖ u8 has_vrf ‖ [vrf_proof 80] ‖ presentation_hash 32 ‖ claims ‖ signature 64 */
function writeAnswer(w: ByteWriter, a: VerificationAnswerItem): void {
  w.str(a.requestId).u8(a.vrfProof ? 1 : 0);
  if (a.vrfProof) w.bytes(a.vrfProof);
  writeClaims(w.bytes(a.presentationHash), a.claims).bytes(a.signature);
}

function readAnswer(r: ByteReader, where: string): VerificationAnswerItem {
  const requestId = r.str();
  if (requestId.length === 0 || requestId.length > MAX_REQUEST_ID) throw invalid('MALFORMED_PAYLOAD', `${where}: bad request id`);
  const flag = r.u8();
  if (flag > 1) throw invalid('MALFORMED_PAYLOAD', `${where}: bad VRF proof flag`);
  const vrfProof = flag === 1 ? { vrfProof: r.bytes(ECVRF_PROOF_LENGTH) } : {};
  return { requestId, ...vrfProof, presentationHash: r.bytes(32), claims: readClaims(r, MAX_CLAIMS), signature: r.bytes(64) };
}

function answerFromJson(body: Record<string, unknown>, where: string): VerificationAnswerItem {
  fields(body, where, ['request_id', 'vrf_proof', 'presentation_hash', 'claims', 'signature']);
  if (typeof body.request_id !== 'string' || body.request_id.length === 0 || body.request_id.length > MAX_REQUEST_ID) {
    throw invalid('MALFORMED_PAYLOAD', `${where}.request_id must be a string of 1 to ${MAX_REQUEST_ID} characters`);
  }
  if (!Array.isArray(body.claims) || body.claims.length === 0 || body.claims.length > MAX_CLAIMS) throw invalid('MALFORMED_PAYLOAD', `${where}.claims must hold 1 to ${MAX_CLAIMS} results`);
  return {
    requestId: body.request_id,
    ...(body.vrf_proof === undefined ? {} : { vrfProof: fixedBytesFromJson(body.vrf_proof, ECVRF_PROOF_LENGTH, `${where}.vrf_proof`) }),
    presentationHash: fixedBytesFromJson(body.presentation_hash, 32, `${where}.presentation_hash`),
    claims: body.claims.map((c, i) => claimFromJson(c, `${where}.claims[${i}]`)),
    signature: fixedBytesFromJson(body.signature, 64, `${where}.signature`),
  };
}

function answerToJson(a: VerificationAnswerItem, form: JsonForm): Record<string, unknown> {
  return {
    request_id: a.requestId,
    ...(a.vrfProof ? { vrf_proof: fixedBytesToJson(a.vrfProof, form) } : {}),
    presentation_hash: fixedBytesToJson(a.presentationHash, form),
    claims: normalizeClaims(a.claims),
    signature: fixedBytesToJson(a.signature, form),
  };
}

const verificationAnswer: PayloadCodec<'VerificationAnswer'> = {
  kind: 'VerificationAnswer',
  tag: 11,
  encode: (w, { kind: _, ...a }) => writeAnswer(w, a),
  decode: (r) => ({ kind: 'VerificationAnswer', ...readAnswer(r, 'VerificationAnswer') }),
  fromJson: (body) => ({ kind: 'VerificationAnswer', ...answerFromJson(body, 'VerificationAnswer') }),
  toJson: ({ kind: _, ...a }, form) => answerToJson(a, form),
};

/** One answer per request: a second answer of one member to one request could only be refused. */
function distinctRequests(answers: VerificationAnswerItem[]): VerificationAnswerItem[] {
  const seen = new Set<string>();
  for (const a of answers) {
    if (seen.has(a.requestId)) throw invalid('MALFORMED_PAYLOAD', `VerificationAnswerBatch answers request ${JSON.stringify(a.requestId)} twice`);
    seen.add(a.requestId);
  }
  return answers;
}

/** u8 n (1 to MAX_BATCH_ANSWERS) ‖ n × answer, each as in VerificationAnswer */
const verificationAnswerBatch: PayloadCodec<'VerificationAnswerBatch'> = {
  kind: 'VerificationAnswerBatch',
  tag: 12,
  encode(w, p) {
    w.u8(p.answers.length);
    for (const a of p.answers) writeAnswer(w, a);
  },
  decode(r) {
    const n = r.u8();
    if (n === 0 || n > MAX_BATCH_ANSWERS) throw invalid('MALFORMED_PAYLOAD', `VerificationAnswerBatch holds 1 to ${MAX_BATCH_ANSWERS} answers, got ${n}`);
    const answers = Array.from({ length: n }, (_, i) => readAnswer(r, `VerificationAnswerBatch.answers[${i}]`));
    return { kind: 'VerificationAnswerBatch', answers: distinctRequests(answers) };
  },
  fromJson(body) {
    fields(body, 'VerificationAnswerBatch', ['answers']);
    const list = body.answers;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH_ANSWERS) throw invalid('MALFORMED_PAYLOAD', `VerificationAnswerBatch.answers must hold 1 to ${MAX_BATCH_ANSWERS} answers`);
    const answers = list.map((a: unknown, i) => {
      const where = `VerificationAnswerBatch.answers[${i}]`;
      if (typeof a !== 'object' || a === null || Array.isArray(a)) throw invalid('MALFORMED_PAYLOAD', `${where} must be an object`);
      return answerFromJson(a as Record<string, unknown>, where);
    });
    return { kind: 'VerificationAnswerBatch', answers: distinctRequests(answers) };
  },
  toJson: (p, form) => ({ answers: p.answers.map((a) => answerToJson(a, form)) }),
};

export const VERIFICATION_CODECS = [verificationRequest, verificationAnswer, verificationAnswerBatch];
