import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  jwtSignerFromJwt,
  Oauth2ErrorCodes,
  Oauth2JwtVerificationError,
  Oauth2ServerErrorResponseError,
  verifyJwt,
  zJwtHeader,
  zJwtPayload,
  type VerifyJwtCallback,
} from '@openid4vc/oauth2';
import { isLoopbackHttpUrl } from '../../common/http/loopback.js';
import { quote } from '../../common/http/upstream.js';
import { ProofKeyRefused } from './proof-key.js';

/**
 * The credential request's proof JWT (OpenID4VCI `proof_type: jwt`), checked without the
 * library's process-wide `allowInsecureUrls`: the library's own check refuses an `aud` that is
 * not https unless that switch is on, and a switch shared by the whole process (the wallet plugin
 * raises it around its redeems) cannot say "this issuer, on loopback". So the JWT is decoded here
 * and its `typ`, `iat`, `aud` (this issuer's own URL) and `nonce` checked; the library's
 * verifyJwt then runs the signer check (proof-key.ts) and the time claims. An issuer takes proofs
 * when its URL is https, or plain http on a loopback host (a development node), and nowhere else.
 */

export const PROOF_JWT_TYP = 'openid4vci-proof+jwt';

export interface ProofJwtCheck {
  jwt: string;
  /** this issuer's own URL (`publicUrl`): the audience a proof must name */
  issuerUrl: string;
  expectedNonce: string;
  nonceExpiresAt: number;
  now: number;
  /** the signer check: throws ProofKeyRefused with the reason */
  verifyJwt: VerifyJwtCallback;
}

const invalidProof = (description: string): Oauth2ServerErrorResponseError =>
  new Oauth2ServerErrorResponseError({ error: Oauth2ErrorCodes.InvalidProof, error_description: description }, { status: 400 });

/** Why an issuer at `issuerUrl` takes no proofs, or undefined when it does. */
export function issuerUrlRefusal(issuerUrl: string): string | undefined {
  if (issuerUrl.startsWith('https://') || isLoopbackHttpUrl(issuerUrl)) return undefined;
  return `this issuer (${issuerUrl}) takes no proofs: a proof's aud must be an https URL, or plain http on localhost, 127.0.0.0/8 or ::1, and this issuer's URL is neither`;
}

type Issue = { path: PropertyKey[]; message: string };
const issueText = (part: string, issues: Issue[]): string => {
  const first = issues[0];
  return `the proof's ${part} is malformed${first ? `: ${[...first.path].map(String).join('.') || part}: ${first.message}` : ''}`;
};

function decode(jwt: string) {
  let rawHeader: unknown;
  let rawPayload: unknown;
  try {
    rawHeader = decodeProtectedHeader(jwt);
    rawPayload = decodeJwt(jwt);
  } catch {
    throw invalidProof('the proof is not a compact JWT with a JSON header and payload');
  }
  const header = zJwtHeader.safeParse(rawHeader);
  if (!header.success) throw invalidProof(issueText('header', header.error.issues));
  const payload = zJwtPayload.safeParse(rawPayload);
  if (!payload.success) throw invalidProof(issueText('payload', payload.error.issues));
  return { header: header.data, payload: payload.data };
}

/** Checks the proof; throws the OAuth `invalid_proof` answer with the reason when it fails. */
export async function verifyProofJwt(c: ProofJwtCheck): Promise<void> {
  const refusal = issuerUrlRefusal(c.issuerUrl);
  if (refusal) throw invalidProof(refusal);
  const { header, payload } = decode(c.jwt);
  if (header.typ !== PROOF_JWT_TYP) throw invalidProof(`the proof's typ must be ${PROOF_JWT_TYP}`);
  if (header.kid !== undefined && header.jwk !== undefined) throw invalidProof("name the signing key by 'kid' or by 'jwk', not both");
  if (payload.iat === undefined) throw invalidProof("the proof has no 'iat'");
  const audiences = payload.aud === undefined ? [] : [payload.aud].flat();
  if (!audiences.includes(c.issuerUrl)) {
    throw invalidProof(`the proof's aud must be this issuer, ${c.issuerUrl}${audiences.length > 0 ? `, not ${quote(audiences.join(', '))}` : ''}`);
  }
  if (c.now > c.nonceExpiresAt) throw invalidProof("the proof's c_nonce expired: ask for a new one");
  if (payload.nonce !== c.expectedNonce) throw invalidProof("the proof's nonce is not the current c_nonce");
  let signer: ReturnType<typeof jwtSignerFromJwt>;
  try {
    signer = jwtSignerFromJwt({ header, payload });
  } catch (err) {
    throw invalidProof(`the proof names no usable signing key: ${quote((err as Error).message)}`);
  }
  try {
    await verifyJwt({ compact: c.jwt, header, payload, signer, verifyJwtCallback: c.verifyJwt, errorMessage: 'the proof was refused:', expectedAudience: c.issuerUrl, expectedNonce: c.expectedNonce, now: new Date(c.now) });
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof ProofKeyRefused) throw invalidProof(cause.message);
    // any other failure of the signer check is ours (a chain read), not the holder's
    if (cause !== undefined) throw cause;
    if (err instanceof Oauth2JwtVerificationError) throw invalidProof(err.message);
    throw err;
  }
}
