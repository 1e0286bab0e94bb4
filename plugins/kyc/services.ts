import type { ChainView } from '../../node/plugins/chain-view.js';
import type { Logger } from '../../node/logging.js';
import type { KycConfig } from './config.js';
import type { PluginDb } from '../common/store/tables.js';
import type { KycEvent, Organization, VerificationSession } from './types.js';

/**
 * The contracts between the KYC plugin's parts, so each part is built and tested on its own and
 * the composition root (index.ts) wires them:
 *
 *   accounts/      users, organizations, TOTP, password reset, provider logins, API keys
 *   verification/  sessions, their states, documents, liveness, sandbox outcomes, review, sweeper
 *   issuance/      the issuer DID, credentials on chain, revocation
 *   oid4vci/       the OpenID4VCI issuer (offers, token, credential)
 *   webhooks/      endpoints and the events sent to them
 *   http/          the /v1 routes and the hosted page
 */

/** What every part gets from the plugin's context. */
export interface KycBase {
  readonly config: KycConfig;
  readonly db: PluginDb;
  readonly log: Logger;
  readonly chain: ChainView;
  readonly network: string;
  readonly chainId: string;
  /** admits a signed transaction (JSON text) to the node's mempool; returns its hash */
  submit(txJson: string): Promise<string>;
  /** the service's public base URL, without a trailing slash (sessionUrl, offers, metadata) */
  publicUrl(): string;
  now(): number;
}

/** An event's identity, when the caller fixed it in advance: the same event queued again keeps its id. */
export interface EventIdentity {
  /** `evt_…` */
  id: string;
  /** ISO 8601 */
  createdAt: string;
}

/** Sends an event to the organization's enabled endpoints that subscribe to it (webhooks/). */
export interface EventSink {
  /** `event`: the id and time to send it with (default: a new id, now) */
  emit(organizationId: string, type: KycEvent, data: Record<string, unknown>, event?: EventIdentity): Promise<void>;
}

/** Reads organizations (accounts/), `branding` included: the hosted page colours itself with it. */
export interface OrganizationDirectory {
  organization(id: string): Promise<Organization | undefined>;
}

/** What the issuer reports once a credential is registered on chain. */
export interface IssuedCredential {
  credentialId: string;
  type: string[];
  issuer: string;
  subjectDid: string;
  issuanceDate: string;
  expirationDate: string;
  txHash: string;
  /** the OpenID4VCI offer that redeems it */
  credentialOfferUri: string;
}

/** Credentials on chain (issuance/). */
export interface CredentialIssuance {
  /**
   * Durably records that `session` passed and needs a credential, and returns: the request is
   * built, signed, submitted and waited for in the background, across restarts. When the
   * credential is registered, `SessionOutcomes.credentialIssued` is called.
   */
  requestCredential(session: VerificationSession): Promise<void>;
}

/** How the issuer hands results back to the sessions (verification/). */
export interface SessionOutcomes {
  /** sets `completed`, `credentialId` and the offer, then emits verification.completed and credential.issued */
  credentialIssued(sessionId: string, credential: IssuedCredential): Promise<void>;
}
