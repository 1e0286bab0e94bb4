import { sign, verify } from '../crypto/ed25519.js';
import { sha256 } from '../crypto/hash.js';
import { MAX_BBS_PROOF_BYTES } from '../crypto/sizes.js';
import { invalid, type LedgerError } from '../errors.js';
import { concatBytes, fromHex, toHex, utf8 } from '../protocol/bytes.js';
import { formatCredentialId, parseCredentialId } from '../protocol/credential-id.js';
import { parseCredential, type Credential } from '../protocol/credential-schema.js';
import { parseDid } from '../protocol/did.js';
import { KYC_BBS_FIELDS, KYC_BBS_STRUCTURAL, kycBbsIndex } from '../protocol/kyc-bbs.js';
import { canonicalJson } from '../protocol/verification.js';
import { deepFreeze } from '../protocol/deep-freeze.js';

/**
 * The subject's answer to a verification request (issue 27): which credential meets which
 * required claim, sent off chain to the committee and signed with the holder DID's authentication
 * key. A claim is met either by the W3C credential itself ("direct") or by a BBS proof of
 * knowledge over the credential's KYC layout (node/protocol/kyc-bbs.ts) that discloses only what
 * the claim's constraints need ("bbs"). Nothing here reaches the chain: only the committee's
 * claim results and presentationHash do.
 *
 *   signature = Ed25519("ledger-presentation-v1" ‖ JCS(presentation without signature))
 *   BBS presentation header = UTF-8 of JCS({chainId, requestId, holder})
 */

export interface DirectEntry {
  /** index into the request's requiredClaims */
  claim: number;
  proofType: 'direct';
  credential: Credential;
}

export interface DisclosedMessage {
  /** position in KYC_BBS_FIELDS */
  index: number;
  /** `name=value`, exactly the signed message */
  message: string;
}

export interface BbsEntry {
  claim: number;
  proofType: 'bbs';
  /** urn:ledger:credential:<uuid>, lowercase */
  credentialId: string;
  /** ascending by index; the structural fields always among them */
  disclosed: DisclosedMessage[];
  /** hex of the BBS proof */
  proof: string;
}

export type PresentationEntry = DirectEntry | BbsEntry;

export interface Presentation {
  version: '1.0';
  requestId: string;
  holder: string;
  credentials: PresentationEntry[];
  /** hex, 64 bytes */
  signature: string;
}

export type UnsignedPresentation = Omit<Presentation, 'signature'>;

export const PRESENTATION_DOMAIN = 'ledger-presentation-v1';
export const MAX_PRESENTATION_BYTES = 64 * 1024;
/** as many as a request has claims (verification.ts) */
export const MAX_PRESENTATION_ENTRIES = 32;
export const MAX_DISCLOSED_MESSAGE = 256;
const MAX_REQUEST_ID = 256;
const TOP_KEYS = ['version', 'requestId', 'holder', 'credentials', 'signature'];
const DIRECT_KEYS = ['claim', 'proofType', 'credential'];
const BBS_KEYS = ['claim', 'proofType', 'credentialId', 'disclosed', 'proof'];

function bad(message: string): LedgerError {
  return invalid('BAD_PRESENTATION', message);
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

/** Every member present and none other: an unknown member could carry data nobody checked. */
function exactKeys(o: Record<string, unknown>, what: string, keys: readonly string[]): void {
  for (const k of keys) if (o[k] === undefined) throw bad(`${what} has no ${k}`);
  const extra = Object.keys(o).find((k) => !keys.includes(k));
  if (extra !== undefined) throw bad(`${what} has an unexpected member ${JSON.stringify(extra.slice(0, 64))}`);
}

function fromJson(json: unknown): unknown {
  let text: string | undefined;
  try {
    text = typeof json === 'string' ? json : JSON.stringify(json);
  } catch (err) {
    throw bad(`a presentation must be JSON: ${(err as Error).message}`);
  }
  if (text === undefined) throw bad('a presentation must be a JSON object');
  // measured before parsing, so an oversized text is refused before it costs a parse
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_PRESENTATION_BYTES) throw bad(`a presentation is at most ${MAX_PRESENTATION_BYTES} bytes of JSON, got ${size}`);
  if (typeof json !== 'string') return json;
  try {
    return JSON.parse(text);
  } catch {
    throw bad('a presentation must be JSON: the text does not parse');
  }
}

function readDirect(o: Record<string, unknown>, what: string, claim: number): DirectEntry {
  exactKeys(o, what, DIRECT_KEYS);
  try {
    return { claim, proofType: 'direct', credential: parseCredential(o.credential) };
  } catch (err) {
    throw bad(`${what}.credential: ${(err as Error).message}`);
  }
}

function readBbs(o: Record<string, unknown>, what: string, claim: number): BbsEntry {
  exactKeys(o, what, BBS_KEYS);
  const id = o.credentialId;
  let canonical: string | undefined;
  try {
    canonical = formatCredentialId(parseCredentialId(id));
  } catch {
    // reported below
  }
  // one spelling only, so that the signed bytes and presentationHash have one form
  if (canonical === undefined || canonical !== id) throw bad(`${what}.credentialId must be urn:ledger:credential:<uuid> in lowercase`);
  const list = o.disclosed;
  if (!Array.isArray(list) || list.length > KYC_BBS_FIELDS.length) throw bad(`${what}.disclosed must be a list of at most ${KYC_BBS_FIELDS.length} messages`);
  const disclosed = list.map((raw, j): DisclosedMessage => {
    const w = `${what}.disclosed[${j}]`;
    const d = object(raw, w);
    exactKeys(d, w, ['index', 'message']);
    const index = d.index;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= KYC_BBS_FIELDS.length) {
      throw bad(`${w}.index must be an integer from 0 to ${KYC_BBS_FIELDS.length - 1} (the KYC layout)`);
    }
    const field = KYC_BBS_FIELDS[index as number]!;
    if (typeof d.message !== 'string' || d.message.length > MAX_DISCLOSED_MESSAGE) throw bad(`${w}.message must be a string of at most ${MAX_DISCLOSED_MESSAGE} characters`);
    if (!d.message.startsWith(`${field}=`)) throw bad(`${w}.message must be ${field}=… (index ${index as number} is ${field})`);
    return { index: index as number, message: d.message };
  });
  // ascending and distinct: one form per disclosure, and a repeated index cannot hide a second value
  for (let j = 1; j < disclosed.length; j++) {
    if (disclosed[j]!.index <= disclosed[j - 1]!.index) throw bad(`${what}.disclosed must be in ascending index order without repeats (at disclosed[${j}])`);
  }
  // the committee finds and matches the credential by these, so they are never hidden
  for (const f of KYC_BBS_STRUCTURAL) {
    if (!disclosed.some((d) => d.index === kycBbsIndex(f))) throw bad(`${what}.disclosed must include ${f} (index ${kycBbsIndex(f)}): structural fields are always disclosed`);
  }
  const proof = o.proof;
  if (typeof proof !== 'string' || proof.length === 0 || proof.length > MAX_BBS_PROOF_BYTES * 2 || !/^(?:[0-9a-f]{2})+$/.test(proof)) {
    throw bad(`${what}.proof must be lowercase hex of 1 to ${MAX_BBS_PROOF_BYTES} bytes`);
  }
  return { claim, proofType: 'bbs', credentialId: id, disclosed, proof };
}

/**
 * A presentation from JSON text or a parsed value, checked strictly; throws BAD_PRESENTATION naming
 * the field. It checks the form only: the request, the chain and the signature are check.ts's.
 */
export function parsePresentation(json: unknown): Presentation {
  const o = object(fromJson(json), 'a presentation');
  exactKeys(o, 'the presentation', TOP_KEYS);
  if (o.version !== '1.0') throw bad('version must be "1.0"');
  const requestId = o.requestId;
  if (typeof requestId !== 'string' || requestId.length === 0 || requestId.length > MAX_REQUEST_ID) throw bad(`requestId must be a string of 1 to ${MAX_REQUEST_ID} characters`);
  try {
    parseDid(o.holder);
  } catch (err) {
    throw bad(`holder: ${(err as Error).message}`);
  }
  if (typeof o.signature !== 'string' || !/^[0-9a-f]{128}$/.test(o.signature)) throw bad('signature must be 64 bytes of lowercase hex');
  const list = o.credentials;
  if (!Array.isArray(list) || list.length > MAX_PRESENTATION_ENTRIES) throw bad(`credentials must be a list of at most ${MAX_PRESENTATION_ENTRIES} entries`);
  const credentials = list.map((raw, i): PresentationEntry => {
    const what = `credentials[${i}]`;
    const e = object(raw, what);
    const claim = e.claim;
    if (!Number.isInteger(claim) || (claim as number) < 0 || (claim as number) >= MAX_PRESENTATION_ENTRIES) {
      throw bad(`${what}.claim must be an integer from 0 to ${MAX_PRESENTATION_ENTRIES - 1}`);
    }
    if (e.proofType === 'direct') return readDirect(e, what, claim as number);
    if (e.proofType === 'bbs') return readBbs(e, what, claim as number);
    throw bad(`${what}.proofType must be "direct" or "bbs"`);
  });
  // frozen: a node hashes the presentation at each step it takes (intake, precheck, check, answer),
  // and presentationHash remembers the hash of a frozen one
  return deepFreeze({ version: '1.0', requestId, holder: o.holder as string, credentials, signature: o.signature });
}

/** "ledger-presentation-v1" ‖ the JCS form of the presentation without `signature`. */
export function presentationSigningBytes(p: UnsignedPresentation & { signature?: string }): Uint8Array {
  const { signature: _ignored, ...unsigned } = p;
  return concatBytes(utf8(PRESENTATION_DOMAIN), utf8(canonicalJson(unsigned)));
}

/** Signed with `seed`, the holder DID's authentication key. */
export function signPresentation(p: UnsignedPresentation, seed: Uint8Array): Presentation {
  return { ...p, signature: toHex(sign(seed, presentationSigningBytes(p))) };
}

/** The BBS presentation header: binds a proof to one chain, request and holder, so it cannot be replayed. */
export function presentationHeader(chainId: string, requestId: string, holder: string): Uint8Array {
  return utf8(canonicalJson({ chainId, requestId, holder }));
}

/** SHA-256 of the JCS form of the whole presentation, signature included: what the answers name. */
export function presentationHash(p: Presentation): Uint8Array {
  const known = hashes.get(p);
  if (known) return known.slice();
  const hash = sha256(utf8(canonicalJson(p)));
  if (Object.isFrozen(p)) hashes.set(p, hash.slice());
  return hash;
}

/** hashes of parsed presentations, which are frozen (parsePresentation): one JCS per presentation */
const hashes = new WeakMap<Presentation, Uint8Array>();

/** holder signatures this process checked, by key and presentation hash (which covers the signature); oldest first out */
const checkedSignatures = new Map<string, boolean>();
const CHECKED_LIMIT = 4096;

/**
 * Whether one of `keys` signed the presentation. A node checks a presentation's signature in its
 * precheck and again in its committee check; the second is a lookup (Ed25519 verification is a
 * pure function of key, message and signature, so the memo answers what verifying would).
 */
export function signedByOneOf(p: Presentation, keys: readonly Uint8Array[]): boolean {
  const signature = fromHex(p.signature, 64, 'signature');
  const hash = toHex(presentationHash(p));
  let bytes: Uint8Array | undefined;
  return keys.some((key) => {
    const id = toHex(key) + hash;
    const known = checkedSignatures.get(id);
    if (known !== undefined) return known;
    bytes ??= presentationSigningBytes(p);
    const ok = verify(key, bytes, signature);
    if (checkedSignatures.size >= CHECKED_LIMIT) checkedSignatures.delete(checkedSignatures.keys().next().value!);
    checkedSignatures.set(id, ok);
    return ok;
  });
}
