import { createHash, randomBytes } from 'node:crypto';
import { Oauth2AuthorizationServer, Oauth2ErrorCodes, Oauth2ServerErrorResponseError, clientAuthenticationAnonymous, type RequestLike, type VerifyJwtCallback } from '@openid4vc/oauth2';
import { Openid4vciIssuer, type IssuerMetadataResult } from '@openid4vc/openid4vci';
import type { KycBase } from '../services.js';
import type { JobStore } from '../issuance/jobs.js';
import { authorizationServerMetadata, credentialIssuerMetadata, KYC_CONFIGURATION_ID } from './metadata.js';
import { ACCESS_TOKEN_TTL_SECONDS, C_NONCE_TTL_SECONDS, MAX_TX_CODE_FAILURES, tokenHash, type AccessToken, type Offer, type OfferStore } from './offers.js';
import { verifyProofJwt } from './proof-jwt.js';
import { subjectProofVerifier } from './proof-key.js';

/**
 * The OpenID4VCI token and credential endpoints (pre-authorized code flow), with the request
 * parsing and checks of the `@openid4vc` server helpers: the token request is parsed and its code
 * and tx_code verified by Oauth2AuthorizationServer, the credential request parsed by Openid4vciIssuer
 * and its proof checked by proof-jwt.ts. Answers are OAuth 2.0 error bodies (`error`, `error_description`),
 * which is what wallets read, not Problem Details.
 */

export interface OauthAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const hash = (data: Uint8Array, alg: string): Uint8Array => createHash(alg.replace('-', '').toLowerCase()).update(data).digest();
const random = (n: number): Uint8Array => randomBytes(n);
const noSigning = (): never => {
  throw new Error('the KYC OpenID4VCI issuer signs no JWTs');
};
// the library's parsers verify no JWT here (no DPoP, no client attestation); the holder's proof is checked by proof-jwt.ts
const noJwts: VerifyJwtCallback = () => ({ verified: false });

const oauthError = (error: string, description: string, status = 400): Oauth2ServerErrorResponseError =>
  new Oauth2ServerErrorResponseError({ error, error_description: description }, { status });

export class Oid4vciServer {
  constructor(
    private readonly base: Pick<KycBase, 'chain' | 'config' | 'publicUrl' | 'now' | 'db' | 'log'>,
    private readonly offers: OfferStore,
    private readonly issued: JobStore,
  ) {}

  issuerMetadata(): Record<string, unknown> {
    return credentialIssuerMetadata(this.base.publicUrl(), this.base.config.issuer.name);
  }

  authorizationServerMetadata(): Record<string, unknown> {
    return authorizationServerMetadata(this.base.publicUrl());
  }

  /** The metadata as the library's parsers take it. */
  private metadataResult(): IssuerMetadataResult {
    const credentialIssuer = this.issuerMetadata() as IssuerMetadataResult['credentialIssuer'];
    return {
      originalDraftVersion: 'Draft14',
      credentialIssuer,
      authorizationServers: [this.authorizationServerMetadata() as IssuerMetadataResult['authorizationServers'][number]],
      knownCredentialConfigurations: credentialIssuer.credential_configurations_supported,
    } as unknown as IssuerMetadataResult;
  }

  private callbacks() {
    return { hash, generateRandom: random, signJwt: noSigning, verifyJwt: noJwts, clientAuthentication: clientAuthenticationAnonymous() };
  }

  /** POST token: a form-encoded pre-authorized code grant, with the tx_code when the offer has one. */
  async token(request: RequestLike, form: Record<string, unknown>): Promise<OauthAnswer> {
    return this.answer(async () => {
      // RFC 8707 `resource` is checked here: the library insists on https, and a development
      // issuer on loopback is plain http
      const { resource, ...rest } = form;
      if (resource !== undefined && resource !== this.base.publicUrl()) throw oauthError('invalid_target', `resource must be this issuer, ${this.base.publicUrl()}`);
      const server = new Oauth2AuthorizationServer({ callbacks: this.callbacks() });
      const parsed = server.parseAccessTokenRequest({ request, accessTokenRequest: rest });
      if (parsed.grant.grantType !== 'urn:ietf:params:oauth:grant-type:pre-authorized_code') {
        throw oauthError(Oauth2ErrorCodes.UnsupportedGrantType, 'only the pre-authorized code grant is supported');
      }
      const grant = parsed.grant;
      const offerId = await this.offers.codes.get(grant.preAuthorizedCode);
      if (!offerId) throw oauthError(Oauth2ErrorCodes.InvalidGrant, "unknown 'pre-authorized_code'");
      return this.offers.serial.run(offerId, async () => {
        const offer = await this.offers.offers.get(offerId);
        if (!offer || offer.redeemedAt !== undefined) throw oauthError(Oauth2ErrorCodes.InvalidGrant, "the 'pre-authorized_code' was already used");
        try {
          await server.verifyPreAuthorizedCodeAccessTokenRequest({
            authorizationServerMetadata: this.authorizationServerMetadata() as never,
            grant,
            accessTokenRequest: parsed.accessTokenRequest,
            request,
            expectedPreAuthorizedCode: offer.preAuthorizedCode,
            ...(offer.txCode ? { expectedTxCode: offer.txCode } : {}),
            preAuthorizedCodeExpiresAt: new Date(offer.expiresAt),
            now: new Date(this.base.now()),
          });
        } catch (err) {
          if (offer.txCode && grant.txCode !== undefined && grant.txCode !== offer.txCode) await this.txCodeFailed(offer);
          throw err;
        }
        return this.issueToken(offer);
      });
    });
  }

  private async txCodeFailed(offer: Offer): Promise<void> {
    const failures = offer.txCodeFailures + 1;
    // too many wrong PINs: the code is spent, so the PIN cannot be guessed
    await this.offers.offers.put(offer.id, { ...offer, txCodeFailures: failures, ...(failures >= MAX_TX_CODE_FAILURES ? { redeemedAt: this.base.now() } : {}) });
  }

  private async issueToken(offer: Offer): Promise<OauthAnswer> {
    const now = this.base.now();
    const accessToken = randomBytes(32).toString('base64url');
    const cNonce = randomBytes(16).toString('base64url');
    const record: AccessToken = { offerId: offer.id, cNonce, cNonceExpiresAt: now + C_NONCE_TTL_SECONDS * 1000, expiresAt: now + ACCESS_TOKEN_TTL_SECONDS * 1000 };
    await this.base.db.batch().put(this.offers.offers, offer.id, { ...offer, redeemedAt: now }).put(this.offers.tokens, tokenHash(accessToken), record).write();
    return {
      status: 200,
      body: { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, c_nonce: cNonce, c_nonce_expires_in: C_NONCE_TTL_SECONDS },
      headers: { 'cache-control': 'no-store' },
    };
  }

  /** POST credential: the stored, signed credential of the token's offer, and its BBS form (`bbs`) when it has one. */
  async credential(request: RequestLike, body: Record<string, unknown>): Promise<OauthAnswer> {
    return this.answer(async () => {
      const token = await this.accessToken(request.headers.get('authorization'));
      const offer = await this.offers.offers.get(token.offerId);
      const stored = offer ? await this.issued.credentials.get(offer.credentialId) : undefined;
      if (!offer || !stored) throw oauthError(Oauth2ErrorCodes.CredentialRequestDenied, 'the offer of this token has no credential');
      if (stored.revoked) throw oauthError(Oauth2ErrorCodes.CredentialRequestDenied, 'this credential was revoked');
      const metadata = this.metadataResult();
      const issuer = new Openid4vciIssuer({ callbacks: this.callbacks() });
      const parsed = issuer.parseCredentialRequest({ issuerMetadata: metadata, credentialRequest: body });
      const byId = parsed.credentialConfigurationId !== undefined;
      if (byId && parsed.credentialConfigurationId !== KYC_CONFIGURATION_ID) throw oauthError(Oauth2ErrorCodes.UnsupportedCredentialType, `unknown credential configuration ${parsed.credentialConfigurationId}`);
      if (!byId) {
        const f = parsed.format as { format?: string; credential_definition?: { type?: string[] } } | undefined;
        if (!f) throw oauthError(Oauth2ErrorCodes.InvalidCredentialRequest, "name the credential by 'credential_configuration_id' or by 'format'");
        if (f.format !== 'ldp_vc') throw oauthError(Oauth2ErrorCodes.UnsupportedCredentialFormat, `this issuer issues ldp_vc, not ${f.format}`);
        if (!f.credential_definition?.type?.includes('KYCCredential')) throw oauthError(Oauth2ErrorCodes.UnsupportedCredentialType, 'this issuer issues KYCCredential');
      }
      if (parsed.proofs) {
        const jwts = (parsed.proofs as { jwt?: string[] }).jwt;
        if (!jwts || jwts.length !== 1 || Object.keys(parsed.proofs).length !== 1) throw oauthError(Oauth2ErrorCodes.InvalidProof, 'send one proof of type jwt');
        await verifyProofJwt({
          jwt: jwts[0]!,
          issuerUrl: this.base.publicUrl(),
          expectedNonce: token.cNonce,
          nonceExpiresAt: token.cNonceExpiresAt,
          now: this.base.now(),
          verifyJwt: subjectProofVerifier(this.base.chain, stored.subjectDid),
        });
      }
      const cNonce = randomBytes(16).toString('base64url');
      await this.offers.tokens.put(token.hash, { ...token.record, cNonce, cNonceExpiresAt: this.base.now() + C_NONCE_TTL_SECONDS * 1000 });
      // the BBS form rides beside the credential, as a parameter of our own: wallets that do not know it ignore it
      const bbs = stored.bbs ? { bbs: stored.bbs } : {};
      const answer = byId
        ? { credentials: [{ credential: stored.credential }], ...bbs }
        : { credential: stored.credential, format: 'ldp_vc', c_nonce: cNonce, c_nonce_expires_in: C_NONCE_TTL_SECONDS, ...bbs };
      return { status: 200, body: answer, headers: { 'cache-control': 'no-store' } };
    });
  }

  private async accessToken(header: string | null): Promise<AccessToken & { hash: string; record: AccessToken }> {
    const m = header ? /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(header) : null;
    if (!m) throw oauthError(Oauth2ErrorCodes.InvalidToken, 'send the access token as Authorization: Bearer <token>', 401);
    const hashed = tokenHash(m[1]!);
    const record = await this.offers.tokens.get(hashed);
    if (!record || record.expiresAt < this.base.now()) throw oauthError(Oauth2ErrorCodes.InvalidToken, 'the access token is unknown or expired', 401);
    return { ...record, hash: hashed, record };
  }

  private async answer(fn: () => Promise<OauthAnswer>): Promise<OauthAnswer> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof Oauth2ServerErrorResponseError) {
        const headers: Record<string, string> = { 'cache-control': 'no-store' };
        if (err.status === 401) headers['www-authenticate'] = `Bearer error="${err.errorResponse.error}"`;
        return { status: err.status, body: { ...err.errorResponse }, headers };
      }
      throw err;
    }
  }
}
