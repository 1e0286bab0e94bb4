import { key, prefix, type PluginDb, type Table } from '../../common/store/tables.js';
import type { BbsForm } from './bbs.js';

/**
 * The credentials a user redeemed (table `credentials`, keyed by user and credential id), the
 * offers already redeemed through this wallet (`credential-offers`, by a hash of issuer and
 * pre-authorized code, so a second redeem is refused before the issuer is asked), and the
 * redeems waiting for the phone's proof signature (`credential-redeems`, by user and redeem id;
 * each lives as long as the issuer's c_nonce and is deleted when it completes).
 */

/** a user's cache holds at most this many credentials */
export const MAX_CREDENTIALS_PER_USER = 100;
/** and at most this many redeems waiting for a proof at once */
export const MAX_PENDING_PER_USER = 10;

/** The credential's standing on chain (ledger_credentialVerify), as of `checkedAt`. */
export interface ChainCredentialStatus {
  /** registered, not revoked, its issuer DID active and not past `expirationDate` */
  valid: boolean;
  revoked: boolean;
  issuerActive: boolean;
  /** whether the chain knows it as a registered credential at all */
  registered: boolean;
  expired: boolean;
  checkedAt: string;
  source: 'chain';
}

/** What the verification service says, best effort: its revocation list when the credential names one, else its health. */
export interface KycStatus {
  reachable: boolean;
  via: 'status-list' | 'health';
  url: string;
  /** the bit of the credential in the issuer's served revocation list (status-list only) */
  revoked?: boolean;
  error?: string;
  checkedAt: string;
}

export interface CachedCredential {
  /** the credential id, `urn:ledger:credential:<uuid>` */
  id: string;
  userId: string;
  /** the OpenID4VCI format it was issued in: `ldp_vc` */
  format: string;
  /** the W3C JSON credential exactly as the issuer returned it */
  credential: unknown;
  /** the issuer DID */
  issuer: string;
  types: string[];
  subjectDid: string;
  issuanceDate: string | null;
  expirationDate: string | null;
  /** the OpenID4VCI credential issuer URL the offer named */
  offerIssuer: string;
  redeemedAt: string;
  status: ChainCredentialStatus;
  kycStatus?: KycStatus;
  /**
   * The BBS form the issuer sent with a KYC credential, for the holder's device to derive
   * selective-disclosure proofs from; it holds the date of birth, so it is served to this user
   * only. null when the issuer sent none (or one that was not the credential's own, see bbsRefused).
   * Optional: records cached before forms existed have none.
   */
  bbs?: BbsForm | null;
  /** why a BBS form the issuer sent was not kept */
  bbsRefused?: string;
}

export interface RedeemedOffer {
  userId: string;
  offerIssuer: string;
  at: string;
}

/** A redeem between its two calls: what the credential request needs once the phone signed the proof. */
export interface PendingRedeem {
  /** `rdm_` + 32 hex */
  id: string;
  userId: string;
  /** the caller's key (hex) the proof must be signed with, and its DID URL (the JWT `kid`) */
  publicKey: string;
  kid: string;
  offerIssuer: string;
  configurationId: string;
  /** the issuer's access token: a bearer for its credential endpoint, valid minutes */
  accessToken: string;
  /** the issuer metadata as the OpenID4VCI library resolved it */
  metadata: unknown;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** base64url(header) . base64url(payload): the bytes the phone signs */
  signingInput: string;
  createdAt: number;
  expiresAt: number;
}

export class CredentialStore {
  private readonly credentials: Table<CachedCredential>;
  private readonly offers: Table<RedeemedOffer>;
  private readonly pendings: Table<PendingRedeem>;

  constructor(private readonly db: PluginDb) {
    this.credentials = db.json<CachedCredential>('credentials');
    this.offers = db.json<RedeemedOffer>('credential-offers');
    this.pendings = db.json<PendingRedeem>('credential-redeems');
  }

  /** the user's credentials, the latest redeemed first */
  async list(userId: string): Promise<CachedCredential[]> {
    const out: CachedCredential[] = [];
    for await (const [, v] of this.credentials.entries(prefix(userId))) out.push(v);
    return out.sort((a, b) => b.redeemedAt.localeCompare(a.redeemedAt) || a.id.localeCompare(b.id));
  }

  get(userId: string, id: string): Promise<CachedCredential | undefined> {
    return this.credentials.get(key(userId, id));
  }

  async count(userId: string): Promise<number> {
    let n = 0;
    for await (const _ of this.credentials.keys(prefix(userId))) n++;
    return n;
  }

  /** stores (or replaces) the user's credentials, in one batch */
  async put(...records: CachedCredential[]): Promise<void> {
    const batch = this.db.batch();
    for (const r of records) batch.put(this.credentials, key(r.userId, r.id), r);
    await batch.write();
  }

  offerRedeemed(offerKey: string): Promise<RedeemedOffer | undefined> {
    return this.offers.get(offerKey);
  }

  markOfferRedeemed(offerKey: string, offer: RedeemedOffer): Promise<void> {
    return this.offers.put(offerKey, offer);
  }

  pending(userId: string, id: string): Promise<PendingRedeem | undefined> {
    return this.pendings.get(key(userId, id));
  }

  putPending(p: PendingRedeem): Promise<void> {
    return this.pendings.put(key(p.userId, p.id), p);
  }

  deletePending(userId: string, id: string): Promise<void> {
    return this.pendings.del(key(userId, id));
  }

  /** Deletes the user's expired redeems; how many are still open. */
  async sweepPending(userId: string, now: number): Promise<number> {
    const batch = this.db.batch();
    let open = 0;
    for await (const [k, p] of this.pendings.entries(prefix(userId))) {
      if (p.expiresAt <= now) batch.del(this.pendings, k);
      else open++;
    }
    await batch.write();
    return open;
  }
}
