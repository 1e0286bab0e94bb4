/** Who changes a session, and the decision record (timeline.ts records the changes). */

export type Actor =
  /** a member of the organization, signed in with an account */
  | { kind: 'user'; userId: string; email?: string }
  /** the node operator's token */
  | { kind: 'operator' }
  /** the configured verification provider */
  | { kind: 'provider' }
  /** the sandbox's forced outcome */
  | { kind: 'sandbox' }
  /** the organization's API key */
  | { kind: 'api-key'; keyId?: string }
  /** the person verifying, on the hosted page (session token) */
  | { kind: 'subject' }
  /** the service itself: expiry, the issuer */
  | { kind: 'system' };

export type DeciderActor = Extract<Actor, { kind: 'user' | 'operator' | 'provider' | 'sandbox' }>;

/** The decision on a session, with who made it and when; shown in the session's full view. */
export interface ReviewRecord {
  outcome: 'pass' | 'fail';
  reason?: string;
  message?: string;
  decidedBy: DeciderActor;
  decidedAt: string;
}
