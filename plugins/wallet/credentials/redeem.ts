import { createHash, randomBytes } from 'node:crypto';
import type { CredentialOfferObject, IssuerMetadataResult, Openid4vciClient } from '@openid4vc/openid4vci';
import { fromHex, onChainHashMatches, parseCredential, parseCredentialId, parseDid, verifyCredentialProof, type Credential } from '../../../node/client/index.js';
import { ed25519PublicKeyFromMultibase, ed25519PublicKeyMultibase } from '../../../node/crypto/multibase.js';
import { invalid, LedgerError } from '../../../node/errors.js';
import { issuerKeyId, MAX_CREDENTIAL_BYTES } from '../../../node/protocol/credential-document.js';
import { HttpProblem } from '../../common/http/problems.js';
import { KeyedSerial } from '../../common/http/router.js';
import type { WalletCaller } from '../http/router.js';
import type { WalletBase } from '../services.js';
import { checkBbsForm } from './bbs.js';
import { allowingPlainHttp, badGateway, badOffer, issuerStep, openid4vciClient } from './oid4vci.js';
import { checkProof } from './proof.js';
import type { CredentialStatusChecker } from './status.js';
import { MAX_CREDENTIALS_PER_USER, MAX_PENDING_PER_USER, type CachedCredential, type CredentialStore, type PendingRedeem } from './store.js';
import { boundedFetch, ISSUER_TIMEOUT_MS, quote, urlRefusal } from './upstream.js';

/**
 * POST /v1/oid4vci/redeem: the OpenID4VCI pre-authorized code flow, run by the library's own
 * client (@openid4vc/openid4vci) against the verification service, for a non-custodial wallet.
 *
 * The issuer may want a proof of possession: a JWT signed by the holder's key. The backend never
 * holds that key, so when the credential configuration lists `proof_types_supported` (OpenID4VCI:
 * the proof is then required) the flow takes two calls:
 * 1. `{credentialOffer, txCode?}`: the offer is resolved, the token obtained with the
 *    pre-authorized code (and PIN), and the library composes the proof JWT's header
 *    (`alg: EdDSA`, `kid`: the user's DID key, `typ: openid4vci-proof+jwt`) and payload (`aud`:
 *    the credential issuer, `nonce`: the issuer's c_nonce, `iat`). The answer is 200
 *    `{status: "proof_required", redeemId, proofJwtHeader, proofJwtPayload, signingInput}`.
 * 2. `{redeemId, proofSignature}` (the Ed25519 signature of `signingInput`'s ASCII bytes,
 *    base64url) or `{redeemId, proofJwt}` (a compact JWT the phone built with the same header
 *    claims): the proof is checked here against the caller's registered key, then the credential
 *    requested with it, verified and cached: 201 and the record.
 * Without `proof_types_supported` the first call completes with 201.
 *
 * A credential is cached only if it is a ledger W3C credential for the caller's DID whose proof
 * verifies under the issuer DID's key on chain, and whose body is the one registered on chain.
 * The BBS form the KYC issuer sends beside it (`bbs`) is kept with it when it checks out (bbs.ts).
 */

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
export const MAX_OFFER_CHARS = 8 * 1024;
export const MAX_TX_CODE_CHARS = 64;
export const MAX_PROOF_JWT_CHARS = 4 * 1024;
export const REDEEM_ID = /^rdm_[0-9a-f]{32}$/;
/** how long a redeem waits for its proof when the issuer says nothing shorter (its c_nonce's life) */
const MAX_PENDING_SECONDS = 300;

export type RedeemCaller = Pick<WalletCaller, 'userId' | 'did' | 'publicKey'>;

export interface ProofRequired {
  status: 'proof_required';
  redeemId: string;
  alg: 'EdDSA';
  kid: string;
  proofJwtHeader: Record<string, unknown>;
  proofJwtPayload: Record<string, unknown>;
  signingInput: string;
  expiresAt: string;
}

export type RedeemStart = ProofRequired | { status: 'issued'; credential: CachedCredential };

export interface RedeemDeps {
  base: Pick<WalletBase, 'config' | 'chain' | 'now' | 'log'>;
  store: CredentialStore;
  status: CredentialStatusChecker;
}

const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();
const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
const plain = (o: object): Record<string, unknown> => JSON.parse(JSON.stringify(o)) as Record<string, unknown>;

export class CredentialRedeemer {
  private readonly serial = new KeyedSerial();
  private readonly fetch: typeof fetch;

  constructor(private readonly deps: RedeemDeps) {
    this.fetch = boundedFetch({ kycUrl: () => deps.base.config.kycUrl, timeoutMs: ISSUER_TIMEOUT_MS });
  }

  /** The first call: the token, then the proof to sign (or, with no proof wanted, the credential). */
  async start(caller: RedeemCaller, input: { credentialOffer: string; txCode?: string }): Promise<RedeemStart> {
    const offerObject = await this.offerObject(input.credentialOffer);
    return allowingPlainHttp(offerObject.credential_issuer.startsWith('http:'), async () => {
      const client = openid4vciClient(this.fetch);
      let offer: CredentialOfferObject;
      try {
        // encoded twice: the library reads the parameter with URLSearchParams, then decodes it again
        offer = await client.resolveCredentialOffer(`openid-credential-offer://?credential_offer=${encodeURIComponent(encodeURIComponent(JSON.stringify(offerObject)))}`);
      } catch (err) {
        throw badOffer(`the credential offer is not valid: ${quote((err as Error).message)}`);
      }
      const grant = offer.grants?.[PRE_AUTHORIZED_GRANT];
      if (!grant) throw badOffer('the offer has no pre-authorized code grant; this wallet redeems pre-authorized code offers');
      if (grant.tx_code && input.txCode === undefined) {
        const shape = grant.tx_code.length ? ` (${grant.tx_code.length} ${grant.tx_code.input_mode === 'text' ? 'characters' : 'digits'})` : '';
        throw invalid('TX_CODE_REQUIRED', `this offer needs its PIN${shape}: send it as txCode`, { field: 'txCode' });
      }
      const offerKey = sha256(`${offer.credential_issuer}\n${grant['pre-authorized_code']}`).toString('hex');
      return this.serial.run(`offer:${offerKey}`, async () => {
        const done = await this.deps.store.offerRedeemed(offerKey);
        if (done) throw new LedgerError('OFFER_ALREADY_REDEEMED', done.userId === caller.userId ? 'you already redeemed this offer: the credential is in GET /v1/credentials' : 'this offer was already redeemed', 'conflict');
        if ((await this.deps.store.count(caller.userId)) >= MAX_CREDENTIALS_PER_USER) {
          throw new LedgerError('CREDENTIALS_FULL', `a wallet caches at most ${MAX_CREDENTIALS_PER_USER} credentials`, 'conflict');
        }
        const metadata = await issuerStep('reading the issuer metadata', () => client.resolveIssuerMetadata(offer.credential_issuer));
        const { configurationId, proof } = chooseConfiguration(offer, metadata);
        // everything that can refuse the caller is checked before the token spends the code
        const kid = proof ? await this.keyId(caller) : undefined;
        if (kid && (await this.deps.store.sweepPending(caller.userId, this.deps.base.now())) >= MAX_PENDING_PER_USER) {
          throw new LedgerError('TOO_MANY_REDEEMS', `at most ${MAX_PENDING_PER_USER} redeems may wait for a proof at once`, 'conflict');
        }
        const { accessTokenResponse: token } = await issuerStep('redeeming the pre-authorized code', () =>
          client.retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer: offer, issuerMetadata: metadata, ...(grant.tx_code ? { txCode: input.txCode! } : {}) }),
        );
        await this.deps.store.markOfferRedeemed(offerKey, { userId: caller.userId, offerIssuer: offer.credential_issuer, at: new Date(this.deps.base.now()).toISOString() });
        if (!kid) {
          const issued = await this.request(client, metadata, configurationId, token.access_token);
          return { status: 'issued', credential: await this.accept(caller, issued.credential, offer.credential_issuer, issued.bbs) };
        }
        const nonce = token.c_nonce ?? (metadata.credentialIssuer.nonce_endpoint ? (await issuerStep('asking for a nonce', () => client.requestNonce({ issuerMetadata: metadata }))).c_nonce : undefined);
        const lifetime = Math.min(MAX_PENDING_SECONDS, token.c_nonce_expires_in ?? MAX_PENDING_SECONDS, token.expires_in ?? MAX_PENDING_SECONDS);
        return this.proofRequired(caller, { kid, metadata, configurationId, accessToken: token.access_token, nonce, lifetime });
      });
    });
  }

  /** The second call: the phone's signature completes the proof; the credential is requested and cached. */
  async complete(caller: RedeemCaller, input: { redeemId: string; proofSignature?: string; proofJwt?: string }): Promise<CachedCredential> {
    return this.serial.run(`redeem:${input.redeemId}`, async () => {
      const p = await this.deps.store.pending(caller.userId, input.redeemId);
      if (!p) throw new LedgerError('REDEEM_NOT_FOUND', `no redeem ${input.redeemId} waits for a proof (it completed, expired or is not yours)`, 'not_found');
      if (p.expiresAt <= this.deps.base.now()) {
        await this.deps.store.deletePending(caller.userId, p.id);
        throw new LedgerError('REDEEM_EXPIRED', "the issuer's nonce for this redeem expired: ask the verification service for a new offer", 'conflict');
      }
      if (p.publicKey !== caller.publicKey) throw new LedgerError('KEY_CHANGED', 'your registered key changed since this redeem started: start again with a new offer', 'conflict');
      const jwt = input.proofSignature !== undefined ? `${p.signingInput}.${input.proofSignature}` : input.proofJwt!;
      checkProof(jwt, p, this.deps.base.now());
      return allowingPlainHttp(p.offerIssuer.startsWith('http:'), async () => {
        const issued = await this.request(openid4vciClient(this.fetch), p.metadata as IssuerMetadataResult, p.configurationId, p.accessToken, jwt);
        const record = await this.accept(caller, issued.credential, p.offerIssuer, issued.bbs);
        await this.deps.store.deletePending(caller.userId, p.id);
        return record;
      });
    });
  }

  /**
   * Checks an issued credential and caches it: a ledger W3C credential (ldp_vc), for the caller's
   * DID, whose proof verifies under the issuer DID's `#key-1` on chain and whose body is the one
   * registered on chain. 403 when it is someone else's, 502 when the issuer's answer fails a check.
   * A BBS form that is not the credential's own is dropped (`bbs: null`, `bbsRefused` says why).
   */
  async accept(caller: RedeemCaller, credential: unknown, offerIssuer: string, bbs?: unknown): Promise<CachedCredential> {
    if (credential === null || typeof credential !== 'object' || Array.isArray(credential)) {
      throw badGateway('ISSUER_BAD_CREDENTIAL', 'the issuer answered a credential that is not a W3C JSON credential (ldp_vc)');
    }
    if (Buffer.byteLength(JSON.stringify(credential)) > MAX_CREDENTIAL_BYTES) throw badGateway('ISSUER_BAD_CREDENTIAL', `the issuer answered a credential larger than ${MAX_CREDENTIAL_BYTES} bytes`);
    let vc: Credential;
    try {
      vc = parseCredential(credential);
    } catch (err) {
      throw badGateway('ISSUER_BAD_CREDENTIAL', `the issuer answered a credential that is not a ledger credential: ${quote((err as Error).message)}`);
    }
    if (vc.credentialSubject.id !== caller.did) {
      throw new HttpProblem('forbidden', `the issued credential is for ${vc.credentialSubject.id}, not for your DID ${caller.did}`, { code: 'CREDENTIAL_NOT_YOURS' });
    }
    const checked = await verifyCredentialProof(vc, await this.issuerKey(vc.issuer.id));
    if (!checked.ok) throw badGateway('CREDENTIAL_PROOF_INVALID', `the credential's proof does not verify under the issuer DID's key on chain: ${quote(checked.reason)}`);
    if (!(await onChainHashMatches(vc))) throw badGateway('CREDENTIAL_HASH_MISMATCH', "the credential's ledgerExtensions.onChainHash is not the hash of its body");
    const onChain = await this.deps.base.chain.verifyCredential(parseCredentialId(vc.id));
    if (onChain && onChain.credential['hash'] !== vc.ledgerExtensions.onChainHash) {
      throw badGateway('CREDENTIAL_HASH_MISMATCH', 'the credential is not the one registered on chain under its id');
    }
    const registered = { publicKey: onChain?.credential['bbs_public_key'] as string | undefined, messageCount: onChain?.credential['bbs_message_count'] as number | undefined };
    const held = bbs === undefined ? undefined : await checkBbsForm(bbs, vc, registered);
    if (held && 'problem' in held) this.deps.base.log.warn({ credential: vc.id, reason: held.problem }, 'the issuer sent a BBS form that is not the credential\'s own: dropped');
    const record: CachedCredential = {
      id: vc.id,
      userId: caller.userId,
      format: 'ldp_vc',
      credential,
      issuer: vc.issuer.id,
      types: [...vc.type],
      subjectDid: vc.credentialSubject.id,
      issuanceDate: vc.issuanceDate,
      expirationDate: vc.expirationDate,
      offerIssuer,
      redeemedAt: new Date(this.deps.base.now()).toISOString(),
      status: await this.deps.status.chainStatus(vc.id, vc.issuer.id, vc.expirationDate),
      bbs: held && 'form' in held ? held.form : null,
      ...(held && 'problem' in held ? { bbsRefused: held.problem } : {}),
    };
    await this.deps.store.put(record);
    return record;
  }

  /** The offer as JSON, from its text, its `credential_offer` or its `credential_offer_uri` (fetched here). */
  private async offerObject(text: string): Promise<{ credential_issuer: string } & Record<string, unknown>> {
    const trimmed = text.trim();
    if (trimmed.startsWith('{')) return this.checkOffer(trimmed);
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw badOffer('credentialOffer must be an offer link (openid-credential-offer://?credential_offer=… or ?credential_offer_uri=…), the offer URI, or the offer JSON');
    }
    const inline = url.searchParams.getAll('credential_offer');
    const byRef = url.searchParams.getAll('credential_offer_uri');
    // a bare https (or loopback http) URL is the offer's URI itself, as the issuer's API hands it out
    const bare = inline.length + byRef.length === 0 && (url.protocol === 'https:' || url.protocol === 'http:');
    if (!bare && inline.length + byRef.length !== 1) throw badOffer('the offer link must carry exactly one credential_offer or credential_offer_uri parameter');
    if (inline.length === 1) return this.checkOffer(inline[0]!);
    const uri = bare ? trimmed : byRef[0]!;
    const refusal = urlRefusal(uri, this.deps.base.config.kycUrl);
    if (refusal) throw badOffer(`${bare ? 'the offer URI' : 'credential_offer_uri'}: ${refusal}`);
    const res = await issuerStep('fetching the credential offer', () => this.fetch(uri, { headers: { accept: 'application/json' } }));
    const body = await res.text();
    if (res.status >= 400 && res.status < 500) throw badOffer(`the issuer does not know this offer (HTTP ${res.status}: ${quote(body)})`);
    if (!res.ok) throw badGateway('ISSUER_ERROR', `fetching the credential offer: the issuer answered HTTP ${res.status}: ${quote(body)}`);
    return this.checkOffer(body);
  }

  private checkOffer(json: string): { credential_issuer: string } & Record<string, unknown> {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      throw badOffer('the credential offer is not JSON');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badOffer('the credential offer must be a JSON object');
    const issuer = (value as { credential_issuer?: unknown }).credential_issuer;
    if (typeof issuer !== 'string') throw badOffer('the credential offer has no credential_issuer');
    const refusal = urlRefusal(issuer, this.deps.base.config.kycUrl);
    if (refusal) throw badOffer(`credential_issuer: ${refusal}`);
    return value as { credential_issuer: string } & Record<string, unknown>;
  }

  /** The caller's DID URL for its registered key, as the DID document on chain lists it (the issuer checks the proof against it). */
  private async keyId(caller: RedeemCaller): Promise<string> {
    const doc = await this.deps.base.chain.resolveDid(parseDid(caller.did).identifier);
    if (!doc?.active) throw new LedgerError('DID_NOT_ON_CHAIN', `your DID ${caller.did} is not active on chain (yet): the issuer checks the proof against its document`, 'conflict');
    const multibase = ed25519PublicKeyMultibase(fromHex(caller.publicKey, 32));
    const method = doc.verificationMethod.find((m) => m.publicKeyMultibase === multibase);
    if (!method) throw new LedgerError('KEY_NOT_IN_DID', `your registered key is not a key of ${caller.did} on chain`, 'conflict');
    return method.id;
  }

  private async issuerKey(issuerDid: string): Promise<Uint8Array> {
    let doc;
    try {
      doc = await this.deps.base.chain.resolveDid(parseDid(issuerDid).identifier);
    } catch {
      throw badGateway('ISSUER_DID_UNKNOWN', `the credential's issuer ${quote(issuerDid)} is not a DID of this ledger`);
    }
    const method = doc?.verificationMethod.find((m) => m.id === issuerKeyId(issuerDid));
    if (!method) throw badGateway('ISSUER_DID_UNKNOWN', `the issuer DID ${issuerDid} has no key ${issuerKeyId(issuerDid)} on chain`);
    return ed25519PublicKeyFromMultibase(method.publicKeyMultibase);
  }

  /** The proof's header and payload, as the library composes them; stored until the phone signs. */
  private async proofRequired(
    caller: RedeemCaller,
    a: { kid: string; metadata: IssuerMetadataResult; configurationId: string; accessToken: string; nonce: string | undefined; lifetime: number },
  ): Promise<ProofRequired> {
    let captured: { header: Record<string, unknown>; payload: Record<string, unknown> } | undefined;
    const publicJwk = { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(fromHex(caller.publicKey, 32)).toString('base64url') };
    // the library hands its "signer" the JWT to sign: it is kept here and signed on the phone
    const composer = openid4vciClient(this.fetch, (_signer, jwt) => {
      captured = { header: plain(jwt.header), payload: plain(jwt.payload) };
      return { jwt: '', signerJwk: publicJwk };
    });
    const now = this.deps.base.now();
    try {
      await composer.createCredentialRequestJwtProof({
        issuerMetadata: a.metadata,
        credentialConfigurationId: a.configurationId,
        signer: { method: 'did', didUrl: a.kid, alg: 'EdDSA' },
        issuedAt: new Date(now),
        ...(a.nonce !== undefined ? { nonce: a.nonce } : {}),
      });
    } catch (err) {
      throw badGateway('ISSUER_ERROR', `composing the proof for this issuer failed: ${quote((err as Error).message)}`);
    }
    const { header, payload } = captured!;
    const pending: PendingRedeem = {
      id: `rdm_${randomBytes(16).toString('hex')}`,
      userId: caller.userId,
      publicKey: caller.publicKey,
      kid: a.kid,
      offerIssuer: a.metadata.credentialIssuer.credential_issuer,
      configurationId: a.configurationId,
      accessToken: a.accessToken,
      metadata: plain(a.metadata),
      header,
      payload,
      signingInput: `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`,
      createdAt: now,
      expiresAt: now + a.lifetime * 1000,
    };
    await this.deps.store.putPending(pending);
    return {
      status: 'proof_required',
      redeemId: pending.id,
      alg: 'EdDSA',
      kid: a.kid,
      proofJwtHeader: header,
      proofJwtPayload: payload,
      signingInput: pending.signingInput,
      expiresAt: new Date(pending.expiresAt).toISOString(),
    };
  }

  /** The credential request; the credential out of a draft 13/14 or a 1.0 answer, and the issuer's `bbs` member when it sent one. */
  private async request(client: Openid4vciClient, metadata: IssuerMetadataResult, configurationId: string, accessToken: string, jwt?: string): Promise<{ credential: unknown; bbs?: unknown }> {
    const res = await issuerStep('requesting the credential', () =>
      client.retrieveCredentials({ issuerMetadata: metadata, accessToken, credentialConfigurationId: configurationId, ...(jwt !== undefined ? { proof: { proof_type: 'jwt', jwt } } : {}) }),
    );
    const body = res.credentialResponse as { credential?: unknown; credentials?: Array<{ credential?: unknown }>; transaction_id?: unknown; bbs?: unknown };
    const credential = body.credential ?? body.credentials?.[0]?.credential;
    if (credential === undefined) {
      throw badGateway('ISSUER_BAD_CREDENTIAL', body.transaction_id !== undefined ? 'the issuer deferred issuance (transaction_id), which this wallet does not support' : 'the issuer answered no credential');
    }
    return body.bbs === undefined ? { credential } : { credential, bbs: body.bbs };
  }
}

/** The first configuration of the offer that this wallet can verify (ldp_vc), and whether it wants a proof. */
function chooseConfiguration(offer: CredentialOfferObject, metadata: IssuerMetadataResult): { configurationId: string; proof: boolean } {
  const known = metadata.credentialIssuer.credential_configurations_supported;
  const id = offer.credential_configuration_ids.find((c) => (known[c] as { format?: string } | undefined)?.format === 'ldp_vc');
  if (!id) {
    throw invalid('UNSUPPORTED_CREDENTIAL', `the offer's credentials (${quote(offer.credential_configuration_ids.join(', '))}) are not ldp_vc credentials of the issuer's metadata; this wallet keeps ledger W3C credentials`, { field: 'credentialOffer' });
  }
  const types = (known[id] as { proof_types_supported?: Record<string, { proof_signing_alg_values_supported?: string[] }> }).proof_types_supported;
  if (!types || Object.keys(types).length === 0) return { configurationId: id, proof: false };
  if (!types['jwt']?.proof_signing_alg_values_supported?.includes('EdDSA')) {
    throw invalid('UNSUPPORTED_PROOF', `the issuer wants proofs (${quote(Object.keys(types).join(', '))}) this wallet cannot give: wallet keys sign jwt proofs with EdDSA (Ed25519)`, { field: 'credentialOffer' });
  }
  return { configurationId: id, proof: true };
}
