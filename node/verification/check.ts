import type { BbsProofInput } from '../crypto/bbs.js';
import { sha256 } from '../crypto/hash.js';
import { BBS_FIXED_PROOF_BYTES, BBS_SCALAR_BYTES } from '../crypto/sizes.js';
import { bytesEqual, fromHex, toHex, utf8 } from '../protocol/bytes.js';
import type { Credential } from '../protocol/credential-document.js';
import { formatCredentialId, parseCredentialId } from '../protocol/credential-id.js';
import type { CredentialRecord } from '../protocol/credential-records.js';
import { authenticationKeys } from '../protocol/did-document.js';
import { didForIdentifier, parseDid } from '../protocol/did.js';
import { KYC_BBS_FIELDS, KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, type KycBbsField } from '../protocol/kyc-bbs.js';
import type { DidRecord } from '../protocol/records.js';
import type { ClaimResult, RequiredClaim, VerificationRequest } from '../protocol/verification.js';
import { disclosureFor, evaluateConstraints, overDisclosure, readConstraints, type ClaimAttributes } from './constraints.js';
import { presentationHash, presentationHeader, signedByOneOf, type BbsEntry, type DirectEntry, type Presentation, type PresentationEntry } from './presentation.js';

/**
 * The committee check of a presentation (issue 27). Each member runs it on its own and signs the
 * claim results, so it must reach the same answer everywhere: it reads no clock (the "now" is the
 * block time that accepted the request, for expiry and age), no randomness and no I/O beyond the
 * injected lookups. Revocation is judged on the member's committed state, "not revoked now": a
 * revocation racing the answers can split the committee, and then the request expires rather than
 * vouch for a revoked credential.
 *
 * A refusal is no answer at all: the presentation is not the subject's (or is malformed), and the
 * request stays open for the real subject. Otherwise every required claim gets a result, unmet
 * ones with a stable `reason`.
 */

/** What the check needs of a DID: whether it exists, is active, and its authentication keys. */
export interface DidState {
  active: boolean;
  authenticationKeys: Uint8Array[];
}

export function didStateOf(r: DidRecord): DidState {
  return { active: r.active, authenticationKeys: authenticationKeys(r) };
}

export interface ChainView {
  /** undefined only for a DID that never existed (DIDs are never deleted) */
  did(did: string): Promise<DidState | undefined>;
  credential(id: Uint8Array): Promise<CredentialRecord | undefined>;
  /** the issuer's Ed25519 key (#key-1) for a direct credential's proof; undefined once the DID is deactivated */
  issuerKey(issuerDid: string): Promise<Uint8Array | undefined>;
}

export interface CheckArgs {
  chainId: string;
  /** as stored on chain */
  request: VerificationRequest;
  /** block time of the block that accepted the request: the "now" of the check */
  requestMs: number;
  /** from parsePresentation */
  presentation: Presentation;
  chain: ChainView;
  /** injected so that the caller runs it in its worker pool */
  verifyBbs(input: BbsProofInput): Promise<boolean>;
  verifyDirect(credential: Credential, issuerKey: Uint8Array): Promise<boolean>;
  /** the SHA-256 hash registered on chain (JSON-LD canonical form); injected for the same reason, credentialHash by default */
  hashCredential?(credential: Credential): Promise<Uint8Array>;
}

/** A ClaimResult with the ledger's `reason` when unmet (the field verification.ts also carries). */
export type CommitteeClaimResult = ClaimResult & { reason?: string };

export type RefusalCode =
  | 'WRONG_REQUEST'
  | 'WRONG_HOLDER'
  | 'BAD_CLAIM_INDEX'
  | 'DUPLICATE_CLAIM'
  | 'OVER_DISCLOSURE'
  | 'UNKNOWN_HOLDER'
  | 'HOLDER_DEACTIVATED'
  | 'BAD_PRESENTATION_SIGNATURE';

export type CheckOutcome = { refused: { code: RefusalCode; message: string } } | { claims: CommitteeClaimResult[]; presentationHash: Uint8Array };

/** JSON-LD canonicalization, loaded on first use: the node injects its pool's, so its start never loads it */
async function defaultCredentialHash(c: Credential): Promise<Uint8Array> {
  return (await import('../protocol/credential-document.js')).credentialHash(c);
}

export const BBS_PROOF_REFERENCE_PREFIX = 'bbs-bls12381-sha256:';

type Refusal = { code: RefusalCode; message: string };

/**
 * The cheap, pure checks, which any node runs before it relays a presentation and every member
 * before any lookup or proof: the right request and holder, each claim named once, and no BBS
 * entry disclosing more than its claim's constraints need (privacy before proofs).
 */
export function shapeRefusal(request: Pick<VerificationRequest, 'requestId' | 'subject' | 'requiredClaims'>, p: Presentation): Refusal | undefined {
  if (p.requestId !== request.requestId) return { code: 'WRONG_REQUEST', message: `the presentation answers request ${p.requestId.slice(0, 64)}, not ${request.requestId}` };
  if (p.holder !== request.subject.did) return { code: 'WRONG_HOLDER', message: `the holder ${p.holder} is not the request's subject ${request.subject.did}` };
  const claims = new Set<number>();
  for (const [i, e] of p.credentials.entries()) {
    if (e.claim >= request.requiredClaims.length) return { code: 'BAD_CLAIM_INDEX', message: `credentials[${i}].claim is ${e.claim}; the request has ${request.requiredClaims.length} required claims` };
    if (claims.has(e.claim)) return { code: 'DUPLICATE_CLAIM', message: `credentials[${i}] names claim ${e.claim} a second time` };
    claims.add(e.claim);
  }
  for (const [i, e] of p.credentials.entries()) {
    if (e.proofType !== 'bbs') continue;
    const claim = request.requiredClaims[e.claim]!;
    const why = overDisclosure(disclosedFields(e), disclosureFor(readConstraints(claim.constraints).constraints));
    if (why !== undefined) return { code: 'OVER_DISCLOSURE', message: `credentials[${i}] (claim ${e.claim}, ${claim.type}): ${why}` };
  }
  return undefined;
}

export async function checkPresentation(args: CheckArgs): Promise<CheckOutcome> {
  const { request, presentation: p, chain } = args;
  const refuse = (code: RefusalCode, message: string): CheckOutcome => ({ refused: { code, message } });
  const shape = shapeRefusal(request, p);
  if (shape) return { refused: shape };
  const byClaim = new Map<number, PresentationEntry>(p.credentials.map((e) => [e.claim, e]));

  const holder = await chain.did(p.holder);
  if (holder === undefined) return refuse('UNKNOWN_HOLDER', `the holder ${p.holder} does not exist`);
  if (!holder.active) return refuse('HOLDER_DEACTIVATED', `the holder ${p.holder} is deactivated`);
  if (!signedByOneOf(p, holder.authenticationKeys)) {
    return refuse('BAD_PRESENTATION_SIGNATURE', `the signature does not verify under an authentication key of ${p.holder}`);
  }

  const network = parseDid(p.holder).network;
  const ctx: ClaimContext = { ...args, network, header: presentationHeader(args.chainId, request.requestId, p.holder) };
  const claims = await Promise.all(request.requiredClaims.map((claim, i) => checkClaim(ctx, claim, byClaim.get(i))));
  return { claims, presentationHash: presentationHash(p) };
}

interface ClaimContext extends CheckArgs {
  /** the DID network of this chain, as the holder's DID names it */
  network: string;
  /** the BBS presentation header every proof must be bound to */
  header: Uint8Array;
}

function disclosedFields(e: BbsEntry): KycBbsField[] {
  return e.disclosed.map((d) => KYC_BBS_FIELDS[d.index]!);
}

/** The disclosed values by field name (parsePresentation checked each message's `name=` prefix). */
function disclosedValues(e: BbsEntry): Partial<Record<KycBbsField, string>> {
  const out: Partial<Record<KycBbsField, string>> = {};
  for (const d of e.disclosed) {
    const field = KYC_BBS_FIELDS[d.index]!;
    out[field] = d.message.slice(field.length + 1);
  }
  return out;
}

async function checkClaim(ctx: ClaimContext, claim: RequiredClaim, entry: PresentationEntry | undefined): Promise<CommitteeClaimResult> {
  const { constraints, problem } = readConstraints(claim.constraints);
  if (entry === undefined) {
    const none: CommitteeClaimResult = { type: claim.type, satisfied: false, issuer: '', issuanceDate: '', expirationDate: '', proofType: 'direct' };
    return { ...none, reason: problem ?? 'not_presented' };
  }
  const judged = entry.proofType === 'direct' ? directClaim(ctx, claim, entry) : bbsClaim(ctx, claim, entry);
  const { result, attributes } = judged;
  // a constraint nobody can judge fails the claim whatever was presented: never ignored
  const reason = problem ?? (await judged.reason()) ?? evaluateConstraints(constraints, attributes, ctx.requestMs);
  return reason === undefined ? { ...result, satisfied: true } : { ...result, satisfied: false, reason };
}

interface Judged {
  /** the result as far as the presentation says, `satisfied` set by checkClaim */
  result: CommitteeClaimResult;
  attributes: ClaimAttributes;
  /** the first failed check's reason, undefined when the credential stands */
  reason(): Promise<string | undefined>;
}

/**
 * The checks both forms share, in order: registered, not revoked, an issuer that existed, in its
 * validity period at the request's time, about the holder, of the claimed type.
 */
async function recordReason(ctx: ClaimContext, claim: RequiredClaim, record: CredentialRecord | undefined, shown: { issuanceDate: string; expirationDate: string; subject: string; type: string }): Promise<string | undefined> {
  if (record === undefined || record.status !== 'registered') return 'not_registered';
  if (record.revokedMs !== null) return 'revoked';
  // "active at issuance": the issuer was active when the request registered, so a later deactivation is fine
  if ((await ctx.chain.did(didForIdentifier(ctx.network, record.issuer))) === undefined) return 'unknown_issuer';
  const expires = Date.parse(shown.expirationDate);
  if (!Number.isFinite(expires) || expires <= ctx.requestMs) return 'expired';
  const issued = Date.parse(shown.issuanceDate);
  if (!Number.isFinite(issued) || issued > ctx.requestMs) return 'not_yet_valid';
  const holder = ctx.presentation.holder;
  if (didForIdentifier(ctx.network, record.subject) !== holder || shown.subject !== holder) return 'wrong_subject';
  if (shown.type !== claim.type || record.credentialType !== claim.type) return 'wrong_type';
  return undefined;
}

function directClaim(ctx: ClaimContext, claim: RequiredClaim, e: DirectEntry): Judged {
  const c = e.credential;
  const s = c.credentialSubject;
  return {
    result: { type: claim.type, satisfied: false, issuer: c.issuer.id, issuanceDate: c.issuanceDate, expirationDate: c.expirationDate, proofType: 'direct' },
    // no birthDate and no ageOverN: minimumAge on a direct credential is attribute_missing
    attributes: { jurisdiction: s.jurisdiction, ...(s.kycLevel === undefined ? {} : { kycLevel: String(s.kycLevel) }) },
    async reason() {
      const record = await ctx.chain.credential(parseCredentialId(c.id));
      const shared = await recordReason(ctx, claim, record, { issuanceDate: c.issuanceDate, expirationDate: c.expirationDate, subject: s.id, type: c.type[1] });
      if (shared !== undefined || record === undefined) return shared ?? 'not_registered';
      // the issuer paid and registered for the record's issuer and level: the body must say the same
      if (c.issuer.id !== didForIdentifier(ctx.network, record.issuer) || (s.kycLevel ?? 0) !== record.kycLevel) return 'record_mismatch';
      if (!bytesEqual(await (ctx.hashCredential ?? defaultCredentialHash)(c), record.hash)) return 'hash_mismatch';
      const key = await ctx.chain.issuerKey(c.issuer.id);
      if (key === undefined) {
        // A deactivated issuer's key is gone. The body is still the issuer's: its hash was
        // registered by the issuer's own signed request and attested; the proof adds nothing the
        // claim is judged on. An active issuer without a key is a broken lookup: not met.
        const issuer = await ctx.chain.did(c.issuer.id);
        return issuer !== undefined && !issuer.active ? undefined : 'proof_invalid';
      }
      return (await ctx.verifyDirect(c, key)) ? undefined : 'proof_invalid';
    },
  };
}

function bbsClaim(ctx: ClaimContext, claim: RequiredClaim, e: BbsEntry): Judged {
  const v = disclosedValues(e);
  const proof = fromHex(e.proof);
  const attributes: ClaimAttributes = {};
  for (const f of ['kycLevel', 'jurisdiction', 'birthDate', 'ageOver18', 'ageOver21'] as const) if (v[f] !== undefined) attributes[f] = v[f];
  return {
    result: {
      type: claim.type,
      satisfied: false,
      issuer: v.issuer ?? '',
      issuanceDate: v.issuanceDate ?? '',
      expirationDate: v.expirationDate ?? '',
      // seed 002's only zero-knowledge value; the BBS proof of knowledge is the zero-knowledge proof
      proofType: 'zk-snark',
      zkProofReference: BBS_PROOF_REFERENCE_PREFIX + toHex(sha256(proof)),
    },
    attributes,
    async reason() {
      if (!claim.acceptZKProof) return 'zk_not_accepted';
      const record = await ctx.chain.credential(parseCredentialId(e.credentialId));
      const shown = { issuanceDate: v.issuanceDate ?? '', expirationDate: v.expirationDate ?? '', subject: v.subject ?? '', type: v.type ?? '' };
      const shared = await recordReason(ctx, claim, record, shown);
      if (shared !== undefined || record === undefined) return shared ?? 'not_registered';
      // the disclosed indexes mean KYC fields only under the KYC layout's message count
      if (record.bbs === undefined || record.bbs.messageCount !== KYC_BBS_MESSAGE_COUNT) return 'not_bbs';
      if (v.id !== formatCredentialId(record.id) || v.issuer !== didForIdentifier(ctx.network, record.issuer)) return 'record_mismatch';
      // the registered level is what the issuer paid for; a signed message claiming more is not trusted
      if (v.kycLevel !== undefined && v.kycLevel !== String(record.kycLevel)) return 'record_mismatch';
      // the proof's length fixes how many messages stayed hidden: a wrong shape is refused without the pairing work
      if (proof.length !== BBS_FIXED_PROOF_BYTES + (record.bbs.messageCount - e.disclosed.length) * BBS_SCALAR_BYTES) return 'proof_invalid';
      const ok = await ctx.verifyBbs({
        proof,
        publicKey: record.bbs.publicKey,
        header: KYC_BBS_HEADER,
        presentationHeader: ctx.header,
        disclosed: e.disclosed.map((d) => ({ index: d.index, message: utf8(d.message) })),
        totalMessageCount: record.bbs.messageCount,
      });
      return ok ? undefined : 'proof_invalid';
    },
  };
}
