/** Records the wallet plugin stores and answers (docs/wallet.md, "Resources"). */

/** A receive address of the user's wallet: `chain` is `ledger`, `eth` or `btc` (seed: "wallet address entry"). */
export interface AddressEntry {
  chain: string;
  address: string;
  /** the BIP32-style path the client derived it with; informational, the backend derives nothing */
  derivation: string;
}

export interface User {
  /** `usr_` + 24 hex */
  id: string;
  did: string;
  /** the Ed25519 key (hex) the user signs with: the DID's key at registration (or at its last sign-in by proof) */
  publicKey: string;
  /** the ledger account of `publicKey` */
  address: string;
  /** `created`: registered with a signed DidCreate; `imported`: an existing DID, proved by a signed challenge */
  origin: 'created' | 'imported';
  /** the DidCreate's hash, when the user registered with one */
  didTx: string | null;
  addresses: AddressEntry[];
  displayName: string | null;
  /** a unique name for the directory (`directory/resolve?handle=`) */
  handle: string | null;
  hideBalances: boolean;
  /** from the OIDC handoff (POST /auth/session), when one linked this wallet */
  email: string | null;
  oidcSub: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A signed-in browser: the JWT in the cookie names it (`tid`); logout deletes it. */
export interface SessionRecord {
  id: string;
  /** null while onboarding: an OIDC handoff with no wallet yet */
  userId: string | null;
  oidc: { sub: string; email: string | null } | null;
  /** the user's key when the session started: a recovery that replaces it ends the session (absent in older records) */
  publicKey?: string;
  createdAt: number;
  /** the session ends at the first of: idle past the JWT lifetime, or `maxAgeHours` after sign-in */
  expiresAt: number;
}
