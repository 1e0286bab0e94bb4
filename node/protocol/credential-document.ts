import { sha256 } from '../crypto/hash.js';
import { bytesEqual, fromHex, toHex, utf8 } from './bytes.js';
import {
  badCredential,
  BODY_KEYS,
  CREDENTIAL_ID_PREFIX,
  exactKeys,
  issuerKeyId,
  parseCredential,
  readBody,
  readDate,
  readExtensions,
  type Credential,
  type CredentialBody,
  type CredentialParts,
  type ExtendedCredential,
  type ValidatorSignature,
} from './credential-schema.js';
import { addProof, ED25519_SIGNATURE_2020, verifyProof, type ProofCheck } from './ed25519-signature-2020.js';
import { canonicalNQuads, CREDENTIAL_CONTEXT } from './jsonld-loader.js';

export {
  CREDENTIAL_ID_PREFIX,
  issuerKeyId,
  MAX_CREDENTIAL_BYTES,
  parseCredential,
  type Credential,
  type CredentialBody,
  type CredentialParts,
  type CredentialStatus,
  type CredentialSubject,
  type ExtendedCredential,
  type LedgerExtensions,
  type ValidatorSignature,
} from './credential-schema.js';
export type { ProofCheck } from './ed25519-signature-2020.js';

/**
 * The W3C credential of our protocol (docs/protocol.md, "W3C credential document"). Its life:
 * the issuer builds the body, registers SHA-256 of its canonical form on chain (onChainHash),
 * the validators attest, the issuer adds `ledgerExtensions` and signs last, so the
 * Ed25519Signature2020 proof covers everything but itself while onChainHash covers the body only
 * (it exists before the validators' signatures do).
 */

/** The unsigned body; throws BAD_CREDENTIAL naming the first bad part. */
export function buildCredential(parts: CredentialParts): CredentialBody {
  const subject: Record<string, unknown> = { id: parts.subject.did };
  if (parts.kycLevel !== undefined) subject.kycLevel = parts.kycLevel;
  subject.verifiedAttributes = [...parts.subject.verifiedAttributes];
  subject.jurisdiction = parts.subject.jurisdiction;
  const index = String(parts.status.index);
  return readBody({
    '@context': [...CREDENTIAL_CONTEXT],
    id: `${CREDENTIAL_ID_PREFIX}${parts.uuid}`,
    type: ['VerifiableCredential', parts.type],
    issuer: { id: parts.issuer.did, name: parts.issuer.name },
    issuanceDate: parts.issuanceDate,
    expirationDate: parts.expirationDate,
    credentialSubject: subject,
    credentialStatus: {
      id: `${parts.status.listUrl}#${index}`,
      type: 'RevocationList2020Status',
      revocationListIndex: index,
      revocationListCredential: parts.status.listUrl,
    },
  });
}

/**
 * SHA-256 of the canonical N-Quads (RDFC-1.0) of the body: the credential without `proof` and
 * `ledgerExtensions`, which are dropped if present. This is `onChainHash`.
 */
export async function credentialHash(credential: CredentialBody): Promise<Uint8Array> {
  const { proof: _proof, ledgerExtensions: _extensions, ...body } = credential as Partial<Credential>;
  exactKeys(body, 'the credential body', BODY_KEYS);
  return sha256(utf8(await canonicalNQuads(readBody(body))));
}

/** The body with `ledgerExtensions`, its onChainHash computed here. */
export async function withExtensions(
  body: CredentialBody,
  attestation: { validatorSignatures: ValidatorSignature[]; consensusRound: number },
): Promise<ExtendedCredential> {
  const onChainHash = toHex(await credentialHash(body));
  const ledgerExtensions = readExtensions({ onChainHash, ...attestation });
  return { ...readBody(body), ledgerExtensions };
}

/** Whether `ledgerExtensions.onChainHash` is the hash of the credential's body. */
export async function onChainHashMatches(credential: ExtendedCredential): Promise<boolean> {
  try {
    const hash = fromHex(credential.ledgerExtensions.onChainHash, 32, 'onChainHash');
    return bytesEqual(hash, await credentialHash(credential));
  } catch {
    return false;
  }
}

/**
 * The issuer's proof over the whole credential but `proof`, ledgerExtensions included; `created`
 * is an ISO 8601 UTC time to the second. Refuses a credential whose onChainHash is not its own.
 */
export async function signCredential(credential: ExtendedCredential, issuerSeed: Uint8Array, created: string): Promise<Credential> {
  const { proof: _proof, ...unsigned } = credential as Partial<Credential> & ExtendedCredential;
  exactKeys(unsigned, 'the credential', [...BODY_KEYS, 'ledgerExtensions']);
  const doc: ExtendedCredential = { ...readBody(unsigned), ledgerExtensions: readExtensions(unsigned.ledgerExtensions) };
  if (!(await onChainHashMatches(doc))) throw badCredential('ledgerExtensions.onChainHash is not the hash of this credential');
  const options = { type: ED25519_SIGNATURE_2020, created: readDate(created, 'created'), verificationMethod: issuerKeyId(doc.issuer.id), proofPurpose: 'assertionMethod' } as const;
  return (await addProof({ ...doc }, issuerSeed, options)) as Credential;
}

/**
 * Whether `credential` is a well-formed credential of ours whose proof verifies under
 * `issuerPublicKey` (the key of the issuer DID's `#key-1`). Never throws: any fault is a reason.
 * It does not check onChainHash (onChainHashMatches), expiry or revocation.
 */
export async function verifyCredentialProof(credential: unknown, issuerPublicKey: Uint8Array): Promise<ProofCheck> {
  let parsed: Credential;
  try {
    parsed = parseCredential(credential);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  return verifyProof(parsed, issuerPublicKey);
}

