import { CREDENTIAL_CONTEXT } from '../../../node/protocol/jsonld-loader.js';

/**
 * The OpenID4VCI issuer's metadata (`/.well-known/openid-credential-issuer`) and its OAuth 2.0
 * authorization server metadata (`/.well-known/oauth-authorization-server`, RFC 8414): the issuer
 * is its own authorization server, the pre-authorized code grant its only grant. One credential
 * configuration, `KYCCredential`, in `ldp_vc` (a W3C JSON-LD credential with an
 * Ed25519Signature2020 proof); a holder proof, when sent, is a `jwt` signed with EdDSA by a key of
 * the credential's subject DID.
 */

export const KYC_CONFIGURATION_ID = 'KYCCredential';
export const TOKEN_PATH = '/v1/oid4vci/token';
export const CREDENTIAL_PATH = '/v1/oid4vci/credential';
export const ISSUER_METADATA_PATH = '/.well-known/openid-credential-issuer';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

export function kycCredentialConfiguration(): Record<string, unknown> {
  return {
    format: 'ldp_vc',
    cryptographic_binding_methods_supported: ['did:ledger'],
    credential_signing_alg_values_supported: ['Ed25519Signature2020'],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['EdDSA'] } },
    credential_definition: { '@context': [...CREDENTIAL_CONTEXT], type: ['VerifiableCredential', 'KYCCredential'] },
    display: [{ name: 'KYC credential', locale: 'en', description: 'Identity verified by a regulated KYC check, registered on the ledger' }],
  };
}

export function credentialIssuerMetadata(publicUrl: string, issuerName: string): Record<string, unknown> {
  return {
    credential_issuer: publicUrl,
    credential_endpoint: `${publicUrl}${CREDENTIAL_PATH}`,
    display: [{ name: issuerName, locale: 'en' }],
    credential_configurations_supported: { [KYC_CONFIGURATION_ID]: kycCredentialConfiguration() },
  };
}

export function authorizationServerMetadata(publicUrl: string): Record<string, unknown> {
  return {
    issuer: publicUrl,
    token_endpoint: `${publicUrl}${TOKEN_PATH}`,
    grant_types_supported: ['urn:ietf:params:oauth:grant-type:pre-authorized_code'],
    token_endpoint_auth_methods_supported: ['none'],
    'pre-authorized_grant_anonymous_access_supported': true,
    response_types_supported: [],
  };
}
