import { createHash, randomBytes } from 'node:crypto';
import { clientAuthenticationAnonymous, InvalidFetchResponseError, Oauth2ClientErrorResponseError, Oauth2Error, type SignJwtCallback } from '@openid4vc/oauth2';
import { getGlobalConfig, Openid4vciClient, Openid4vciError, Openid4vciRetrieveCredentialsError, setGlobalConfig } from '@openid4vc/openid4vci';
import { invalid, LedgerError } from '../../../node/errors.js';
import { HttpProblem } from '../../common/http/problems.js';
import { quote, upstreamCause } from './upstream.js';

/**
 * The wallet's use of the OpenID4VCI library (@openid4vc/openid4vci): its client, built on the
 * wallet's bounded `fetch` and signing nothing; its process-wide URL setting, raised only while a
 * redeem with a plain-http issuer runs; and its errors, mapped to the wallet's answers: 400 for a
 * bad offer, PIN or proof, 409 for an offer already redeemed, 502 with the issuer's own error text
 * when the issuer fails or answers nonsense.
 */

export const badGateway = (code: string, detail: string): HttpProblem => new HttpProblem('bad-gateway', detail, { code });
export const badOffer = (detail: string): LedgerError => invalid('BAD_OFFER', detail, { field: 'credentialOffer' });

/** A client of the library; `signJwt` is handed the JWTs it would sign (none, unless given). */
export function openid4vciClient(fetch: typeof globalThis.fetch, signJwt?: SignJwtCallback): Openid4vciClient {
  return new Openid4vciClient({
    callbacks: {
      fetch,
      hash: (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest(),
      generateRandom: (n) => randomBytes(n),
      clientAuthentication: clientAuthenticationAnonymous(),
      signJwt:
        signJwt ??
        (() => {
          throw new Error('the wallet backend signs nothing: the proof is signed on the phone');
        }),
    },
  });
}

// the library's errors that mean "the issuer's answer was wrong", with their common base (ValidationError, FetchError, …)
const OpenId4VcBaseError = Object.getPrototypeOf(InvalidFetchResponseError) as new (...a: never[]) => Error;

/** Runs one exchange with the issuer, mapping its failures to the wallet's answers. */
export async function issuerStep<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw issuerFailure(err, what);
  }
}

function issuerFailure(err: unknown, what: string): unknown {
  const upstream = upstreamCause(err);
  if (upstream) return upstream.failure === 'refused' ? badOffer(`${what}: ${upstream.message}`) : badGateway('ISSUER_UNREACHABLE', `${what}: ${upstream.message}`);
  if (err instanceof Oauth2ClientErrorResponseError) {
    const { error, error_description: description = '' } = err.errorResponse;
    const text = quote(`${error}${description ? `: ${description}` : ''}`);
    if (error === 'invalid_grant' && /already (used|redeemed)/i.test(description)) return new LedgerError('OFFER_ALREADY_REDEEMED', `the issuer says this offer was already redeemed (${text})`, 'conflict');
    if (error === 'invalid_grant' && /tx_code|pin/i.test(description)) return invalid('TX_CODE_INVALID', `the issuer refused the PIN (${text})`, { field: 'txCode' });
    if (error === 'invalid_grant' || error === 'invalid_request') return badOffer(`the issuer refused the offer's code (${text})`);
    return badGateway('ISSUER_ERROR', `${what}: the issuer answered HTTP ${err.response.status}: ${text}`);
  }
  if (err instanceof Openid4vciRetrieveCredentialsError) {
    const data = err.response.credentialErrorResponseResult?.data as { error?: string; error_description?: string } | undefined;
    const text = data?.error ? quote(`${data.error}${data.error_description ? `: ${data.error_description}` : ''}`) : `HTTP ${err.response.response.status}`;
    if (data?.error === 'invalid_proof' || data?.error === 'invalid_nonce') return invalid('PROOF_REJECTED', `the issuer refused the proof (${text})`, { field: 'proofSignature' });
    return badGateway('ISSUER_ERROR', `${what}: the issuer answered ${text}`);
  }
  if (err instanceof InvalidFetchResponseError) return badGateway('ISSUER_ERROR', `${what}: the issuer answered HTTP ${err.response.status}: ${quote(err.textResponse)}`);
  if (err instanceof Oauth2Error || err instanceof Openid4vciError || err instanceof OpenId4VcBaseError) return badGateway('ISSUER_ERROR', `${what}: ${quote((err as Error).message)}`);
  return err;
}

/*
 * The library checks that every URL it parses is https unless its process-wide setting
 * `allowInsecureUrls` is on. An issuer on plain http (the local KYC plugin in development) needs
 * it, so it is on only while such a redeem runs, and back to what it was when none does. The
 * wallet's own rule (upstream.ts: https, plain http on loopback or the configured kycUrl only)
 * still holds meanwhile: every request the library makes goes through `boundedFetch`. Nothing
 * else in the node depends on the switch: the KYC plugin checks its proofs without it.
 */
let httpHolders = 0;
let savedConfig: ReturnType<typeof getGlobalConfig> | undefined;

export async function allowingPlainHttp<T>(needed: boolean, fn: () => Promise<T>): Promise<T> {
  if (!needed) return fn();
  if (httpHolders++ === 0) {
    savedConfig = getGlobalConfig();
    setGlobalConfig({ ...savedConfig, allowInsecureUrls: true });
  }
  try {
    return await fn();
  } finally {
    if (--httpHolders === 0) {
      setGlobalConfig(savedConfig!);
      savedConfig = undefined;
    }
  }
}
