import { CIPHERSUITES, deriveProof, generateKeyPair, sign as bbsSign } from '@digitalbazaar/bbs-signatures';
import { verifyBbsProof, type BbsProofInput } from '../../node/crypto/bbs.js';
import { keyPairFromSeed, type Ed25519KeyPair } from '../../node/crypto/ed25519.js';
import { addressFromPublicKey } from '../../node/protocol/address.js';
import { fromHex } from '../../node/protocol/bytes.js';
import { buildCredential, signCredential, verifyCredentialProof, withExtensions, type Credential } from '../../node/protocol/credential-document.js';
import { parseCredentialId } from '../../node/protocol/credential-id.js';
import type { CredentialRecord } from '../../node/protocol/credential-records.js';
import { didForPublicKey, parseDid } from '../../node/protocol/did.js';
import { KYC_BBS_FIELDS, KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, kycBbsMessages, type KycBbsAttributes, type KycBbsField } from '../../node/protocol/kyc-bbs.js';
import type { VerificationRecord } from '../../node/protocol/verification-records.js';
import { signVerificationRequest, type RequiredClaim, type VerificationRequest } from '../../node/protocol/verification.js';
import { checkPresentation, type ChainView, type CheckArgs, type CheckOutcome, type DidState } from '../../node/verification/check.js';
import { presentationHeader, signPresentation, type BbsEntry, type DirectEntry, type Presentation, type PresentationEntry } from '../../node/verification/presentation.js';

/**
 * A small world for the committee check, all of it real: Ed25519 DIDs, an issuer's W3C
 * KYCCredential signed with Ed25519Signature2020 and its BBS form signed over the KYC layout,
 * credential records as execution writes them, and in-memory lookups over them.
 */

export const CHAIN_ID = 'ledger-test';
export const NETWORK = 'testnet';
export const ISSUED = '2026-01-01T00:00:00Z';
export const EXPIRES = '2027-01-01T00:00:00Z';
/** the block time that accepted the request */
export const REQUEST_MS = Date.parse('2026-06-01T12:00:00Z');
const ISSUED_MS = Date.parse('2026-01-01T00:05:00Z');

const seed = (b: number) => new Uint8Array(32).fill(b);
export const issuer = keyPairFromSeed(seed(1));
export const issuerDid = didForPublicKey(NETWORK, issuer.publicKey);
export const requester = keyPairFromSeed(seed(9));
const validators = [3, 4, 5].map((b) => keyPairFromSeed(seed(b)));
const bbsKeys = await generateKeyPair({ ciphersuite: CIPHERSUITES.BLS12381_SHA256, seed: seed(7) });

export interface Holder {
  keys: Ed25519KeyPair;
  did: string;
  credentialId: string;
  credential: Credential;
  /** the BBS form's messages and signature, which only the holder keeps */
  messages: Uint8Array[];
  bbsSignature: Uint8Array;
  record: CredentialRecord;
}

/** A holder with a registered KYCCredential (direct and BBS forms under one id), issued by `issuer`. */
export async function makeHolder(opts: { seedByte: number; uuid: string; birthDate: string | null; kycLevel?: 1 | 2 | 3; jurisdiction?: string; bbsSubject?: string }): Promise<Holder> {
  const keys = keyPairFromSeed(seed(opts.seedByte));
  const did = didForPublicKey(NETWORK, keys.publicKey);
  const kycLevel = opts.kycLevel ?? 2;
  const jurisdiction = opts.jurisdiction ?? 'DE';
  const body = buildCredential({
    uuid: opts.uuid,
    type: 'KYCCredential',
    kycLevel,
    issuer: { did: issuerDid, name: 'Acme KYC' },
    subject: { did, verifiedAttributes: ['name', 'dateOfBirth'], jurisdiction },
    issuanceDate: ISSUED,
    expirationDate: EXPIRES,
    status: { listUrl: 'https://issuer.example/revocation/1', index: opts.seedByte },
  });
  const attestation = { validatorSignatures: validators.map((v) => ({ validator: addressFromPublicKey(v.publicKey), signature: 'ab'.repeat(64) })), consensusRound: 7 };
  const extended = await withExtensions(body, attestation);
  const credential = await signCredential(extended, issuer.seed, '2026-01-01T00:05:00Z');
  // bbsSubject: an issuer whose BBS form names someone other than its registered subject
  const attrs: KycBbsAttributes = { id: body.id, issuer: issuerDid, subject: opts.bbsSubject ?? did, issuanceDate: ISSUED, expirationDate: EXPIRES, kycLevel, jurisdiction, birthDate: opts.birthDate, verifiedAttributes: ['name', 'dateOfBirth'] };
  const messages = kycBbsMessages(attrs);
  const bbsSignature = await bbsSign({ ...bbsKeys, header: KYC_BBS_HEADER, messages, ciphersuite: CIPHERSUITES.BLS12381_SHA256 });
  const record: CredentialRecord = {
    id: parseCredentialId(body.id),
    credentialType: 'KYCCredential',
    kycLevel,
    issuer: parseDid(issuerDid).identifier,
    subject: parseDid(did).identifier,
    hash: fromHex(extended.ledgerExtensions.onChainHash, 32),
    evidenceDigest: new Uint8Array(32),
    fee: 500_000_000n,
    statusList: 0,
    statusIndex: opts.seedByte,
    bbs: { publicKey: bbsKeys.publicKey, messageCount: KYC_BBS_MESSAGE_COUNT },
    status: 'registered',
    requestHeight: 10,
    deadlineHeight: 310,
    seed: new Uint8Array(32),
    threshold: 3,
    attestations: [],
    issuedMs: ISSUED_MS,
    consensusRound: 7,
    revokedMs: null,
    txHash: new Uint8Array(32),
  };
  return { keys, did, credentialId: body.id, credential, messages, bbsSignature, record };
}

/** A relying party's request to `subject`, signed by the requester. */
export function makeRequest(subject: string, requiredClaims: RequiredClaim[], requestId = 'req-1'): VerificationRequest {
  return signVerificationRequest(
    {
      version: '1.0',
      requestId,
      timestamp: REQUEST_MS - 5_000,
      requester: { did: didForPublicKey(NETWORK, requester.publicKey), purpose: 'account opening' },
      subject: { did: subject },
      requiredClaims,
      fee: '100000',
    },
    requester.seed,
  );
}

export const index = (f: KycBbsField) => KYC_BBS_FIELDS.indexOf(f);
export const STRUCTURAL = ['id', 'type', 'issuer', 'subject', 'issuanceDate', 'expirationDate'] as const;

/** A BBS entry disclosing the structural fields and `extra`, its proof bound to `ph` (by default this chain, request and holder). */
export async function bbsEntry(h: Holder, claim: number, extra: KycBbsField[], ph: { chainId?: string; requestId?: string } = {}): Promise<BbsEntry> {
  const indexes = [...STRUCTURAL, ...extra].map(index).sort((a, b) => a - b);
  const header = presentationHeader(ph.chainId ?? CHAIN_ID, ph.requestId ?? 'req-1', h.did);
  const proof = await deriveProof({
    publicKey: bbsKeys.publicKey,
    signature: h.bbsSignature,
    header: KYC_BBS_HEADER,
    messages: h.messages,
    presentationHeader: header,
    disclosedMessageIndexes: indexes,
    ciphersuite: CIPHERSUITES.BLS12381_SHA256,
  });
  const values = kycBbsValuesOf(h);
  return {
    claim,
    proofType: 'bbs',
    credentialId: h.credentialId,
    disclosed: indexes.map((i) => ({ index: i, message: `${KYC_BBS_FIELDS[i]!}=${values[KYC_BBS_FIELDS[i]!]}` })),
    proof: Buffer.from(proof).toString('hex'),
  };
}

function kycBbsValuesOf(h: Holder): Record<KycBbsField, string> {
  const text = h.messages.map((m) => new TextDecoder().decode(m));
  return Object.fromEntries(text.map((t, i) => [KYC_BBS_FIELDS[i]!, t.slice(KYC_BBS_FIELDS[i]!.length + 1)])) as Record<KycBbsField, string>;
}

export function directEntry(h: Holder, claim: number): DirectEntry {
  return { claim, proofType: 'direct', credential: structuredClone(h.credential) };
}

export function present(h: Holder, credentials: PresentationEntry[], requestId = 'req-1', signer: Ed25519KeyPair = h.keys): Presentation {
  return signPresentation({ version: '1.0', requestId, holder: h.did, credentials }, signer.seed);
}

/** The chain as maps of real records; counters show which expensive verifications ran. */
export class World {
  dids = new Map<string, DidState>();
  credentials = new Map<string, CredentialRecord>();
  issuerKeys = new Map<string, Uint8Array>();
  bbsCalls = 0;
  directCalls = 0;

  constructor(holders: Holder[]) {
    this.dids.set(issuerDid, { active: true, authenticationKeys: [issuer.publicKey] });
    this.issuerKeys.set(issuerDid, issuer.publicKey);
    for (const h of holders) {
      this.dids.set(h.did, { active: true, authenticationKeys: [h.keys.publicKey] });
      this.credentials.set(Buffer.from(h.record.id).toString('hex'), structuredClone(h.record));
    }
  }

  record(h: Holder): CredentialRecord {
    return this.credentials.get(Buffer.from(h.record.id).toString('hex'))!;
  }

  chain(): ChainView {
    return {
      did: async (did) => this.dids.get(did),
      credential: async (id) => this.credentials.get(Buffer.from(id).toString('hex')),
      issuerKey: async (did) => this.issuerKeys.get(did),
    };
  }

  check(request: VerificationRequest, presentation: Presentation, over: Partial<CheckArgs> = {}): Promise<CheckOutcome> {
    return checkPresentation({
      chainId: CHAIN_ID,
      request,
      requestMs: REQUEST_MS,
      presentation,
      chain: this.chain(),
      verifyBbs: async (input: BbsProofInput) => {
        this.bbsCalls++;
        return verifyBbsProof(input);
      },
      verifyDirect: async (credential, key) => {
        this.directCalls++;
        return (await verifyCredentialProof(credential, key)).ok;
      },
      ...over,
    });
  }
}

/** The claim results of an answered check; throws (failing the test) on a refusal. */
export function claimsOf(outcome: CheckOutcome) {
  if ('refused' in outcome) throw new Error(`refused: ${outcome.refused.code}: ${outcome.refused.message}`);
  return outcome.claims;
}

/** A pending request's record on chain, as the answerer and the intake read it. */
export function pendingRecord(subject: string, requestId: string, requiredClaims: RequiredClaim[], o: Partial<VerificationRecord> = {}): VerificationRecord {
  const { signature: _s, ...request } = makeRequest(subject, requiredClaims, requestId);
  return {
    request: { ...request, chainId: CHAIN_ID, nonce: 0 },
    signature: new Uint8Array(64),
    requester: new Uint8Array(20),
    subject: new Uint8Array(20),
    fee: 100_000n,
    status: 'pending',
    requestHeight: 5,
    requestMs: REQUEST_MS,
    deadlineHeight: 305,
    seed: new Uint8Array(32),
    threshold: 2,
    committeeSize: 2,
    answers: [],
    txHash: new Uint8Array(32),
    ...o,
  };
}
