/**
 * The KYC plugin's records (seed 001, part A, "Resources"), shared by its parts. What is stored
 * is what the routes show, plus the fields marked internal, which never leave the server.
 */

export const SESSION_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const DOCUMENT_TYPES = ['passport', 'driving_license', 'national_id', 'residence_permit'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export const DOCUMENT_SIDES = ['front', 'back'] as const;
export type DocumentSide = (typeof DOCUMENT_SIDES)[number];

export const SANDBOX_OUTCOMES = ['pass', 'fail', 'timeout', 'document_rejected'] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

export const API_KEY_MODES = ['live', 'sandbox'] as const;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];

export const KYC_EVENTS = ['verification.completed', 'verification.failed', 'verification.expired', 'credential.issued', 'credential.revoked'] as const;
export type KycEvent = (typeof KYC_EVENTS)[number];

/**
 * A member's role in its organization (docs/kyc.md, "Dashboard"): `owner` and `admin` do
 * everything; `reviewer` reads sessions and decides live ones on the review desk; `developer`
 * reads sessions and manages API keys and webhooks. Accounts made before roles existed are owners.
 */
export const ROLES = ['owner', 'admin', 'reviewer', 'developer'] as const;
export type Role = (typeof ROLES)[number];

export interface User {
  id: string; // usr_…
  email: string;
  name: string;
  organizationId: string;
  /** absent on accounts made before roles existed: read it as `owner` */
  role?: Role;
  createdAt: string;
}

/** How the organization looks on the hosted page, set in the dashboard. */
export interface Branding {
  /** `#rrggbb` */
  color?: string;
  /** a `data:image/png;base64,…` or `data:image/jpeg;base64,…` URI */
  logo?: string;
}

export interface Organization {
  id: string; // org_…
  name: string;
  email: string;
  plan: string;
  totpEnabled: boolean;
  branding?: Branding;
  createdAt: string;
}

export interface ExtractedData {
  firstName?: string;
  lastName?: string;
  dateOfBirth?: string;
  documentNumber?: string;
  expiryDate?: string;
  nationality?: string;
}

export interface SessionDocument {
  id: string; // doc_…
  type: DocumentType;
  side: DocumentSide;
  /** uploaded, verified, or rejected (a check failed; `reason` says which) */
  status: 'uploaded' | 'verified' | 'rejected';
  reason?: string;
  extractedData: ExtractedData;
  /** what the automatic checks found: media type, dimensions, MRZ check digits */
  checks: { mediaType: 'image/jpeg' | 'image/png'; width: number; height: number; bytes: number; sha256: string; mrz?: { valid: boolean; format: string; failures: string[] } };
  createdAt: string;
}

export interface Liveness {
  /** passed, failed, or pending_review (live mode, waiting for the decision) */
  status: 'passed' | 'failed' | 'pending_review';
  /** null until a decision gives one; live mode never invents a score */
  score: number | null;
  completedAt: string;
  frames: number;
}

/** A JSON value as parsed from a request body (integers within 2^53 - 1). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A session's metadata: the organization's own key-value pairs (verification/metadata.ts has the bounds). */
export type Metadata = { [key: string]: JsonValue };

export interface VerificationSession {
  id: string; // ver_…
  organizationId: string;
  status: SessionStatus;
  level: 1 | 2 | 3;
  sandbox: boolean;
  sandboxOutcome?: SandboxOutcome;
  subjectDid?: string;
  redirectUrl?: string;
  metadata: Metadata;
  createdAt: string;
  expiresAt: string;
  completedAt?: string;
  documents: SessionDocument[];
  liveness?: Liveness;
  credentialId?: string;
  /** set on failure: a machine code and a sentence */
  reason?: string;
  message?: string;
  /** the credential offer a wallet redeems (OpenID4VCI), after a pass */
  credentialOfferUri?: string;
  /** internal: which step marks were made (document with final=true, liveness, address proof) */
  steps: { document: boolean; liveness: boolean; address: boolean };
  /** internal: the key that created it (sandbox keys create only sandbox sessions) */
  apiKeyId: string;
  /** internal: SHA-256 of the session token; the token is shown once, at creation */
  tokenHash: string;
}

export interface LivenessChallenge {
  id: string; // chl_…
  type: 'head_turn';
  instructions: string;
  expiresAt: string;
}

export interface ApiKeyRecord {
  id: string; // key_…
  organizationId: string;
  name: string;
  mode: ApiKeyMode;
  prefix: string;
  lastUsedAt: string | null;
  createdAt: string;
  /** internal */
  hash: string;
}

export interface WebhookEndpointRecord {
  id: string; // wh_…
  organizationId: string;
  url: string;
  events: KycEvent[];
  description: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** internal: shown once, at creation and on rotation */
  secret: string;
}
