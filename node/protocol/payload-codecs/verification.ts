import { ECVRF_PROOF_LENGTH } from '../../crypto/sizes.js';
import { invalid, isLedgerError } from '../../errors.js';
import { formatTokens } from '../amount.js';
import type { PayloadCodec, PayloadOf, UnsignedVerificationRequest } from '../payload-types.js';
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

const verificationAnswer: PayloadCodec<'VerificationAnswer'> = {
  kind: 'VerificationAnswer',
  tag: 11,
  encode(w, p) {
    w.str(p.requestId).u8(p.vrfProof ? 1 : 0);
    if (p.vrfProof) w.bytes(p.vrfProof);
    writeClaims(w.bytes(p.presentationHash), p.claims).bytes(p.signature);
  },
  decode(r): PayloadOf<'VerificationAnswer'> {
    const requestId = r.str();
    if (requestId.length === 0 || requestId.length > MAX_REQUEST_ID) throw invalid('MALFORMED_PAYLOAD', 'VerificationAnswer: bad request id');
    const flag = r.u8();
    if (flag > 1) throw invalid('MALFORMED_PAYLOAD', 'VerificationAnswer: bad VRF proof flag');
    const vrfProof = flag === 1 ? { vrfProof: r.bytes(ECVRF_PROOF_LENGTH) } : {};
    return { kind: 'VerificationAnswer', requestId, ...vrfProof, presentationHash: r.bytes(32), claims: readClaims(r, MAX_CLAIMS), signature: r.bytes(64) };
  },
  fromJson(body) {
    const where = 'VerificationAnswer';
    fields(body, where, ['request_id', 'vrf_proof', 'presentation_hash', 'claims', 'signature']);
    if (typeof body.request_id !== 'string' || body.request_id.length === 0 || body.request_id.length > MAX_REQUEST_ID) {
      throw invalid('MALFORMED_PAYLOAD', `${where}.request_id must be a string of 1 to ${MAX_REQUEST_ID} characters`);
    }
    if (!Array.isArray(body.claims) || body.claims.length === 0 || body.claims.length > MAX_CLAIMS) throw invalid('MALFORMED_PAYLOAD', `${where}.claims must hold 1 to ${MAX_CLAIMS} results`);
    return {
      kind: 'VerificationAnswer',
      requestId: body.request_id,
      ...(body.vrf_proof === undefined ? {} : { vrfProof: fixedBytesFromJson(body.vrf_proof, ECVRF_PROOF_LENGTH, `${where}.vrf_proof`) }),
      presentationHash: fixedBytesFromJson(body.presentation_hash, 32, `${where}.presentation_hash`),
      claims: body.claims.map((c, i) => claimFromJson(c, `${where}.claims[${i}]`)),
      signature: fixedBytesFromJson(body.signature, 64, `${where}.signature`),
    };
  },
  toJson: (p, form) => ({
    request_id: p.requestId,
    ...(p.vrfProof ? { vrf_proof: fixedBytesToJson(p.vrfProof, form) } : {}),
    presentation_hash: fixedBytesToJson(p.presentationHash, form),
    claims: normalizeClaims(p.claims),
    signature: fixedBytesToJson(p.signature, form),
  }),
};

export const VERIFICATION_CODECS = [verificationRequest, verificationAnswer];
