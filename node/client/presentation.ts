import { bbsDeriveProof } from '../crypto/bbs.js';
import { LedgerError } from '../errors.js';
import { fromHex, toHex, utf8 } from '../protocol/bytes.js';
import type { Credential } from '../protocol/credential-document.js';
import { formatCredentialId, parseCredentialId } from '../protocol/credential-id.js';
import { parseDid } from '../protocol/did.js';
import { KYC_BBS_FIELDS, KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, kycBbsIndex, type KycBbsField, type KycBbsForm } from '../protocol/kyc-bbs.js';

export type { KycBbsForm } from '../protocol/kyc-bbs.js';
import type { RequiredClaim } from '../protocol/verification.js';
import { requiredDisclosure, type Disclosure } from '../verification/constraints.js';
import { parsePresentation, presentationHeader, signPresentation, type BbsEntry, type Presentation, type PresentationEntry } from '../verification/presentation.js';

export { requiredDisclosure, type Disclosure } from '../verification/constraints.js';
export type { BbsEntry, DirectEntry, Presentation, PresentationEntry } from '../verification/presentation.js';

/**
 * The subject's side of a verification request (issue 27): a signed presentation that meets each
 * required claim with a W3C credential ("direct") or a BBS proof over the KYC credential's BBS
 * form that discloses only what the claim's constraints need. It derives BBS proofs and reads
 * credential documents, so it is in the node's client (`ledger-node/client`) and not in the light
 * client package, which ships neither BBS nor JSON-LD.
 */


/** What meets one required claim: its index in the request, and the credential in one form. */
export type PresentedCredential = { claim: number } & ({ direct: Credential } | { bbs: KycBbsForm });

export interface PresentArgs {
  /** the request as ledger_getVerificationRequest returns it (`view.request`), or as the dApp sent it */
  request: { requestId: string; requiredClaims: readonly RequiredClaim[]; subject?: { did: string } };
  /** the 32-byte seed of an authentication key of the holder's DID */
  holderSeed: Uint8Array;
  /** the request's subject */
  holderDid: string;
  /** ledger_chainInfo's chain_id: BBS proofs are bound to it */
  chainId: string;
  credentials: PresentedCredential[];
}

function refuse(code: string, message: string, data: Record<string, unknown> = {}): LedgerError {
  return new LedgerError(code, message, 'invalid', data);
}

/** The form's field values by name, after checking it is the KYC layout. */
function formValues(form: KycBbsForm, what: string): Record<KycBbsField, string> {
  if (form.messageCount !== KYC_BBS_MESSAGE_COUNT || form.messages.length !== KYC_BBS_MESSAGE_COUNT) {
    throw refuse('BAD_BBS_FORM', `${what}: a KYC BBS form has ${KYC_BBS_MESSAGE_COUNT} messages, got ${form.messages.length} (messageCount ${form.messageCount})`);
  }
  // the committee checks proofs under the layout's header: a form signed under another would never verify
  if (form.header !== toHex(KYC_BBS_HEADER)) throw refuse('BAD_BBS_FORM', `${what}: the header is not the KYC layout's (${toHex(KYC_BBS_HEADER)})`);
  const values = {} as Record<KycBbsField, string>;
  KYC_BBS_FIELDS.forEach((field, i) => {
    const m = form.messages[i]!;
    if (!m.startsWith(`${field}=`)) throw refuse('BAD_BBS_FORM', `${what}: message ${i} must be ${field}=…`);
    values[field] = m.slice(field.length + 1);
  });
  return values;
}

/**
 * One field of each `oneOf` group. For the age group: the lowest ageOverN flag that is "true"
 * (it covers the minimum, or requiredDisclosure would not offer it), since it tells the least;
 * else birthDate, from which the committee computes the age at the request's time.
 */
function chooseOneOf(group: readonly KycBbsField[], values: Record<KycBbsField, string>): KycBbsField {
  const flag = group.find((f) => f.startsWith('ageOver') && values[f] === 'true');
  if (flag !== undefined) return flag;
  return group.find((f) => !f.startsWith('ageOver')) ?? group[group.length - 1]!;
}

/** The indexes a BBS proof for `claim` discloses: all required fields and one of each group, ascending. */
export function kycDisclosedIndexes(d: Disclosure, values: Record<KycBbsField, string>): number[] {
  const fields = [...d.required, ...d.oneOf.map((g) => chooseOneOf(g, values))];
  return [...new Set(fields.map(kycBbsIndex))].sort((a, b) => a - b);
}

async function bbsEntry(a: PresentArgs, claimIndex: number, claim: RequiredClaim, form: KycBbsForm, what: string): Promise<BbsEntry> {
  const values = formValues(form, what);
  if (values.type !== claim.type) throw refuse('CLAIM_TYPE_MISMATCH', `${what} is a ${values.type}, but claim ${claimIndex} asks for a ${claim.type}`);
  if (!claim.acceptZKProof) throw refuse('ZK_NOT_ACCEPTED', `${what}: claim ${claimIndex} (${claim.type}) does not accept a zero-knowledge proof; present the W3C credential instead`);
  if (values.subject !== a.holderDid) throw refuse('WRONG_SUBJECT', `${what} is about ${values.subject}, not the holder ${a.holderDid}`);
  const indexes = kycDisclosedIndexes(requiredDisclosure(claim), values);
  const proof = await bbsDeriveProof({
    publicKey: fromHex(form.publicKey, undefined, `${what}.publicKey`),
    signature: fromHex(form.signature, undefined, `${what}.signature`),
    header: KYC_BBS_HEADER,
    messages: form.messages.map(utf8),
    presentationHeader: presentationHeader(a.chainId, a.request.requestId, a.holderDid),
    disclosedIndexes: indexes,
  });
  return {
    claim: claimIndex,
    proofType: 'bbs',
    // the one spelling parsePresentation accepts
    credentialId: formatCredentialId(parseCredentialId(values.id)),
    disclosed: indexes.map((index) => ({ index, message: form.messages[index]! })),
    proof: toHex(proof),
  };
}

/**
 * A signed presentation for `request`, ready for `ledger_submitPresentation` (RpcClient
 * submitPresentation). Each credential meets the claim it names; a BBS form gives a proof bound to
 * this chain, request and holder that discloses exactly `requiredDisclosure(claim)`. Throws a
 * LedgerError before any network call when the presentation could not meet its claims:
 * BAD_CLAIM_INDEX, DUPLICATE_CLAIM, CLAIM_TYPE_MISMATCH, ZK_NOT_ACCEPTED, WRONG_SUBJECT,
 * WRONG_HOLDER, BAD_BBS_FORM, BAD_CONSTRAINT, or the BBS library's BAD_BBS_*.
 */
export async function presentForVerification(a: PresentArgs): Promise<Presentation> {
  parseDid(a.holderDid);
  if (a.request.subject !== undefined && a.request.subject.did !== a.holderDid) {
    throw refuse('WRONG_HOLDER', `the request asks about ${a.request.subject.did}, not ${a.holderDid}`);
  }
  if (a.holderSeed.length !== 32) throw refuse('BAD_SEED', `holderSeed must be 32 bytes, got ${a.holderSeed.length}`);
  const seen = new Set<number>();
  const credentials: PresentationEntry[] = [];
  for (const [i, c] of a.credentials.entries()) {
    const what = `credentials[${i}]`;
    const claim = a.request.requiredClaims[c.claim];
    if (!Number.isInteger(c.claim) || claim === undefined) throw refuse('BAD_CLAIM_INDEX', `${what}.claim is ${c.claim}; the request has ${a.request.requiredClaims.length} required claims`);
    if (seen.has(c.claim)) throw refuse('DUPLICATE_CLAIM', `${what} names claim ${c.claim} a second time`);
    seen.add(c.claim);
    if ('bbs' in c) {
      credentials.push(await bbsEntry(a, c.claim, claim, c.bbs, what));
      continue;
    }
    const type = c.direct.type[1];
    if (type !== claim.type) throw refuse('CLAIM_TYPE_MISMATCH', `${what} is a ${type}, but claim ${c.claim} asks for a ${claim.type}`);
    if (c.direct.credentialSubject.id !== a.holderDid) throw refuse('WRONG_SUBJECT', `${what} is about ${c.direct.credentialSubject.id}, not the holder ${a.holderDid}`);
    credentials.push({ claim: c.claim, proofType: 'direct', credential: c.direct });
  }
  // through the node's own parser first, so that the signed bytes are those every node rebuilds
  // from the JSON (a credential document in its parsed form) and a form it would refuse fails here
  const { signature: _placeholder, ...unsigned } = parsePresentation({ version: '1.0', requestId: a.request.requestId, holder: a.holderDid, credentials, signature: '0'.repeat(128) });
  return signPresentation(unsigned, a.holderSeed);
}
