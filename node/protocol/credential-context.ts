import ed25519Context from 'ed25519-signature-2020-context';
import revocationListContext from 'vc-revocation-list-context';

/**
 * The context URLs of our credentials, apart from the JSON-LD machinery (jsonld-loader.ts): checking
 * a credential's shape needs the names, and only canonicalization needs the `jsonld` library.
 */

export const CREDENTIALS_V1_URL = 'https://www.w3.org/2018/credentials/v1';
export const ED25519_2020_URL = ed25519Context.CONTEXT_URL;
export const REVOCATION_LIST_2020_URL = revocationListContext.constants.VC_REVOCATION_LIST_CONTEXT_V1_URL;
export const LEDGER_CONTEXT_URL = 'https://ledger.network/contexts/credentials/v1';

/** The `@context` of every credential of ours, in this order. */
export const CREDENTIAL_CONTEXT = [CREDENTIALS_V1_URL, ED25519_2020_URL, REVOCATION_LIST_2020_URL, LEDGER_CONTEXT_URL] as const;

/** The proof type of our credentials (ed25519-signature-2020.ts signs and checks it). */
export const ED25519_SIGNATURE_2020 = 'Ed25519Signature2020';
