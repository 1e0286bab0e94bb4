import { createHash, randomBytes, randomInt } from 'node:crypto';
import { KeyedSerial } from '../../common/http/router.js';
import type { KycBase } from '../services.js';
import type { Table } from '../../common/store/tables.js';
import { KYC_CONFIGURATION_ID } from './metadata.js';

/**
 * OpenID4VCI offers of issued credentials (pre-authorized code flow): one per session, served at
 * `<publicUrl>/v1/oid4vci/offers/<id>` and shown as `openid-credential-offer://?credential_offer_uri=…`
 * for QR codes. The pre-authorized code is single-use and lives `oid4vci.offerTtlSeconds`; with
 * `oid4vci.txCode` a 6-digit PIN must come with it, and five wrong PINs burn the code. Access
 * tokens are random and stored only as their SHA-256, each bound to its offer and a c_nonce.
 * Tables: `oid-offers`, `oid-by-session`, `oid-codes`, `oid-tokens`.
 */

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
export const ACCESS_TOKEN_TTL_SECONDS = 600;
export const C_NONCE_TTL_SECONDS = 300;
export const MAX_TX_CODE_FAILURES = 5;
export const TX_CODE_LENGTH = 6;

export interface Offer {
  id: string;
  sessionId: string;
  organizationId: string;
  credentialId: string;
  preAuthorizedCode: string;
  /** the PIN the holder must send with the code, when the operator asks for one */
  txCode?: string;
  createdAt: number;
  expiresAt: number;
  redeemedAt?: number;
  txCodeFailures: number;
}

export interface AccessToken {
  offerId: string;
  cNonce: string;
  cNonceExpiresAt: number;
  expiresAt: number;
}

const b64url = (bytes: Buffer): string => bytes.toString('base64url');
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

export class OfferStore {
  readonly offers: Table<Offer>;
  readonly bySession: Table<string>;
  readonly codes: Table<string>;
  readonly tokens: Table<AccessToken>;
  /** read-modify-writes of one offer, one at a time */
  readonly serial = new KeyedSerial();

  constructor(private readonly base: Pick<KycBase, 'db' | 'config' | 'publicUrl' | 'now'>) {
    this.offers = base.db.json<Offer>('oid-offers');
    this.bySession = base.db.json<string>('oid-by-session');
    this.codes = base.db.json<string>('oid-codes');
    this.tokens = base.db.json<AccessToken>('oid-tokens');
  }

  uri(offerId: string): string {
    return `${this.base.publicUrl()}/v1/oid4vci/offers/${offerId}`;
  }

  /** The `openid-credential-offer://` form of an offer, for a QR code or a wallet link. */
  deepLink(offerId: string): string {
    return `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(this.uri(offerId))}`;
  }

  /** The session's offer, made on first call (CredentialOffers). */
  offerFor(a: { sessionId: string; organizationId: string; credentialId: string }): Promise<{ credentialOfferUri: string }> {
    return this.serial.run(`session:${a.sessionId}`, async () => {
      const existing = await this.bySession.get(a.sessionId);
      if (existing) return { credentialOfferUri: this.uri(existing) };
      const now = this.base.now();
      const offer: Offer = {
        id: `ofr_${b64url(randomBytes(16))}`,
        sessionId: a.sessionId,
        organizationId: a.organizationId,
        credentialId: a.credentialId,
        preAuthorizedCode: b64url(randomBytes(32)),
        ...(this.base.config.oid4vci.txCode ? { txCode: String(randomInt(0, 10 ** TX_CODE_LENGTH)).padStart(TX_CODE_LENGTH, '0') } : {}),
        createdAt: now,
        expiresAt: now + this.base.config.oid4vci.offerTtlSeconds * 1000,
        txCodeFailures: 0,
      };
      await this.base.db.batch().put(this.offers, offer.id, offer).put(this.bySession, a.sessionId, offer.id).put(this.codes, offer.preAuthorizedCode, offer.id).write();
      return { credentialOfferUri: this.uri(offer.id) };
    });
  }

  /** The session's offer with its PIN, for the hosted page and the session's owner. */
  async ofSession(sessionId: string): Promise<{ offer: Offer; credentialOfferUri: string; deepLink: string } | undefined> {
    const id = await this.bySession.get(sessionId);
    const offer = id ? await this.offers.get(id) : undefined;
    return offer ? { offer, credentialOfferUri: this.uri(offer.id), deepLink: this.deepLink(offer.id) } : undefined;
  }

  /** The credential offer object a wallet fetches from the offer URI (OpenID4VCI §4.1.1). */
  offerObject(offer: Offer): Record<string, unknown> {
    const grant: Record<string, unknown> = { 'pre-authorized_code': offer.preAuthorizedCode };
    if (offer.txCode) grant.tx_code = { input_mode: 'numeric', length: offer.txCode.length, description: 'the PIN shown at the end of your verification' };
    return { credential_issuer: this.base.publicUrl(), credential_configuration_ids: [KYC_CONFIGURATION_ID], grants: { [PRE_AUTHORIZED_GRANT]: grant } };
  }
}
