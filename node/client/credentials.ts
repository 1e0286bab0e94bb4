import { LedgerError } from '../errors.js';

/**
 * The light client's `credentials` entry: the W3C credential documents of the protocol (build,
 * hash, sign, verify), which need JSON-LD canonicalization. Its packages (jsonld and three context
 * packages) are optional peer dependencies of the light client, so that a dApp that never touches
 * a credential document does not install them; this entry loads them on import and, when one is
 * missing, fails with MISSING_PEER_DEPENDENCY naming what to install.
 */

export const CREDENTIAL_PEER_DEPENDENCIES = ['jsonld', '@digitalbazaar/credentials-context', 'ed25519-signature-2020-context', 'vc-revocation-list-context'] as const;

function missingPeer(err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  const message = String((err as Error).message);
  const missing = CREDENTIAL_PEER_DEPENDENCIES.find((name) => message.includes(`'${name}'`));
  if (code !== 'ERR_MODULE_NOT_FOUND' || missing === undefined) return err;
  return new LedgerError(
    'MISSING_PEER_DEPENDENCY',
    `the credentials entry needs the package ${missing}, which is not installed: npm install ${CREDENTIAL_PEER_DEPENDENCIES.join(' ')}`,
    'internal',
    { package: missing },
  );
}

const documents = await import('../protocol/credential-document.js').catch((err: unknown) => {
  throw missingPeer(err);
});

export const { buildCredential, credentialHash, onChainHashMatches, parseCredential, signCredential, verifyCredentialProof, withExtensions } = documents;
export type { Credential, CredentialBody, CredentialParts, ExtendedCredential, ProofCheck } from '../protocol/credential-document.js';
