/** Auth helpers the relay, KYC and wallet plugins share. Docs: docs/operator-auth.md. */
export { AUTH_ERRORS, authFailure, type AuthErrorCode, type AuthErrorData } from './errors.js';
export { ASYMMETRIC_ALGS, MAX_ID_TOKEN_LENGTH, OidcVerifier, type IdTokenClaims, type OidcVerifierOptions, type VerifyOptions } from './oidc.js';
export {
  loadOrCreateSecret,
  MAX_SESSION_TOKEN_LENGTH,
  MIN_SECRET_BYTES,
  parseTtl,
  SessionTokens,
  type SessionClaims,
  type SessionClaimsInput,
  type SessionTokensOptions,
} from './session-token.js';
export { displayPrefix, hashApiKey, looksLikeApiKey, newApiKey, sameHash, type NewApiKey } from './api-keys.js';
export { bearerToken, MAX_BEARER_LENGTH } from './bearer.js';
