/**
 * The reasons a session fails or expires with when the service decides by itself: `reason` on
 * the session and in verification.failed and verification.expired. Operators and verification
 * providers may give other lowercase codes. The hosted page has a sentence for each of these
 * (plugins/kyc/hosted/static/messages.js) and a general one for any other.
 */
export const SESSION_REASONS = [
  // a document's automatic checks (sessions.ts)
  'mrz_check_digit',
  'document_expired',
  // sandbox outcomes (sandbox.ts), and a rejected document without its own reason (states.ts)
  'document_rejected',
  'face_mismatch',
  // a verification provider's fail without a reason (sessions.ts)
  'provider_rejected',
  // expiry (states.ts)
  'session_ttl',
  'review_ttl',
  'timeout',
] as const;

export type SessionReason = (typeof SESSION_REASONS)[number];
