import { verify } from '../../../node/crypto/ed25519.js';
import { ed25519PublicKeyFromMultibase } from '../../../node/crypto/multibase.js';
import { invalid, isLedgerError, LedgerError } from '../../../node/errors.js';
import { addressFromPublicKey, formatAddress, parseAddress } from '../../../node/protocol/address.js';
import { toHex, utf8 } from '../../../node/protocol/bytes.js';
import type { DidDocumentRpc } from '../../../node/protocol/did-document.js';
import { didForPublicKey, parseDid } from '../../../node/protocol/did.js';
import { parseJson } from '../../../node/protocol/json.js';
import { transactionFromJson, transactionHash, verifyTransactionSignature, type Transaction } from '../../../node/protocol/transaction.js';
import { HttpProblem } from '../../common/http/problems.js';
import type { Batch } from '../../common/store/tables.js';
import type { WalletBase } from '../services.js';
import type { AddressEntry, User } from '../types.js';
import type { ChallengeStore, IssuedChallenge } from './challenges.js';
import { keyReplaced, type KeyRevocations } from './key-revocations.js';
import type { Onboarding, OnboardingRecord, OnboardingStatus } from './onboarding.js';
import { newUserId, type UserStore } from './store.js';

/**
 * `POST /v1/users/register`, the service behind it. Two ways in:
 *   - create: the client's signed DidCreate (the JSON text ledger_sendTransaction takes) for a
 *     new key. It must be a DidCreate, signed by its sender for this chain, at the account's live
 *     nonce, for a DID that is neither on chain nor registered here. The user is stored at once
 *     and the onboarding worker takes the DidCreate to the chain (the sponsor pays the fee).
 *   - import: an existing, active DID, with a proof of control: a challenge from
 *     GET /v1/users/challenge signed by a key in the DID document's `authentication` list. A DID
 *     already registered here is signed in by such a proof (and its registered key becomes the
 *     proving key: after a guardian recovery moved the DID to a new key, this is how the user
 *     gets back in), else a user is created. A proof by a key that a recovery took from the DID
 *     is 403 KEY_REPLACED_BY_RECOVERY (the chain no longer lists it: this only says why).
 * The backend verifies signatures; it never holds a key that can sign for a user.
 */

export const ADDRESS_CHAINS = ['ledger', 'eth', 'btc'] as const;
export const MAX_ADDRESSES = 20;

export interface Profile {
  /** the client's address entries; the server adds (or keeps) the ledger entry of the user's own account */
  addresses?: AddressEntry[];
  displayName?: string;
  handle?: string;
}

export interface Proof {
  challenge: string;
  /** 64 bytes */
  signature: Uint8Array;
}

export type RegisterInput = ({ signedDidCreate: string } | { did: string; proof: Proof | undefined }) & Profile;

/** the OIDC account of an onboarding session (POST /v1/auth/session), linked to the wallet */
export interface OidcLink {
  sub: string;
  email: string | null;
}

/** `missing`: not on chain and no onboarding under way (the DID was never submitted here) */
export type DidStatus = OnboardingStatus | 'deactivated' | 'missing';

export interface RegisterResult {
  user: User;
  /** false when an import signed an already registered user in */
  created: boolean;
  /** the user's signing key changed (a sign-in by proof after a recovery): its older sessions end */
  keyChanged: boolean;
  didStatus: DidStatus;
  didStatusReason: string | null;
}

const ETH_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BTC_ADDRESS = /^(?:[13mn2][1-9A-HJ-NP-Za-km-z]{25,34}|(?:bc|tb|bcrt)1[02-9ac-hj-np-z]{8,87})$/;
const DERIVATION = /^m(?:\/\d{1,10}'?){0,10}$/;

export class Registration {
  constructor(private readonly d: { base: WalletBase; users: UserStore; challenges: ChallengeStore; onboarding: Onboarding; revocations: Pick<KeyRevocations, 'of'> }) {}

  register(input: RegisterInput, link?: OidcLink): Promise<RegisterResult> {
    return 'signedDidCreate' in input ? this.create(input.signedDidCreate, input, link) : this.import(input.did, input.proof, input, link);
  }

  /** A sign-in challenge for an active DID of this network (`GET /v1/users/challenge`). */
  async issueChallenge(did: string): Promise<IssuedChallenge> {
    const parsed = parseDid(did);
    if (parsed.network !== this.d.base.network) throw invalid('WRONG_NETWORK', `${did} belongs to network ${parsed.network}; this wallet serves did:ledger:${this.d.base.network}:…`, { field: 'did' });
    const record = await this.d.base.chain.did(parsed.identifier);
    if (!record) throw new LedgerError('DID_NOT_FOUND', `${did} is not on chain`, 'not_found');
    if (!record.active) throw new LedgerError('DID_DEACTIVATED', `${did} is deactivated; it has no key that could sign in`, 'conflict');
    return this.d.challenges.issue(did);
  }

  /** Where the user's DID stands: the chain's word first, else its onboarding's. */
  async didStatus(user: Pick<User, 'did'>): Promise<{ status: DidStatus; reason: string | null }> {
    const { identifier } = parseDid(user.did);
    const record = await this.d.base.chain.did(identifier);
    if (record) return { status: record.active ? 'active' : 'deactivated', reason: null };
    const onboarding = await this.d.onboarding.get(formatAddress(identifier));
    return onboarding ? { status: onboarding.status, reason: onboarding.reason } : { status: 'missing', reason: null };
  }

  private async create(text: string, profile: Profile, link: OidcLink | undefined): Promise<RegisterResult> {
    const { base, users, onboarding } = this.d;
    const tx = this.parseDidCreate(text);
    const did = didForPublicKey(base.network, tx.senderPubkey);
    const address = addressFromPublicKey(tx.senderPubkey);
    const identifier = parseAddress(address);
    if (await base.chain.did(identifier)) throw new LedgerError('DID_EXISTS', `${did} is already on chain; register it with {did, proof} instead`, 'conflict');
    const existing = await users.byDid(did);
    // a registration whose DidCreate failed may start again with a new one for the same key
    // (or whose onboarding a crash left unwritten: the app sends the same DidCreate again)
    const prior = existing?.origin === 'created' ? await onboarding.get(address) : undefined;
    const retry = existing?.origin === 'created' && (prior === undefined || prior.status === 'failed');
    if (existing && !retry) throw new LedgerError('DID_TAKEN', `${did} is already registered with this wallet service`, 'conflict');
    const { nonce } = await base.chain.account(identifier);
    if (tx.nonce !== nonce) throw invalid('BAD_NONCE', `signedDidCreate has nonce ${tx.nonce}; the account's next nonce is ${nonce}`, { field: 'signedDidCreate' });
    const hash = transactionHash(base.chainId, tx);
    const publicKey = toHex(tx.senderPubkey);
    const addresses = withOwnLedger(address, profile.addresses, existing?.addresses);
    const fresh = existing ? undefined : applyProfile(newUser(base.now(), { did, publicKey, address, origin: 'created', didTx: hash, addresses }), profile, link);
    let started!: OnboardingRecord;
    // the user and its onboarding in one write: a crash keeps both or neither
    const stage = (batch: Batch) => {
      started = onboarding.stage(batch, { userId: existing?.id ?? fresh!.id, did, address, txJson: text, txHash: hash, nonce: tx.nonce });
    };
    const user = existing ? await users.update(existing.id, (u) => applyProfile({ ...u, publicKey, address, didTx: hash, addresses }, profile, link), stage) : await users.create(fresh!, stage);
    onboarding.wake(address);
    return { user, created: true, keyChanged: false, didStatus: started.status, didStatusReason: started.reason };
  }

  private async import(did: string, proof: Proof | undefined, profile: Profile, link: OidcLink | undefined): Promise<RegisterResult> {
    const { base, users, challenges } = this.d;
    const parsed = parseDid(did);
    if (parsed.network !== base.network) throw invalid('WRONG_NETWORK', `${did} belongs to network ${parsed.network}; this wallet serves did:ledger:${base.network}:…`, { field: 'did' });
    if (!proof) throw invalid('PROOF_REQUIRED', 'importing a DID needs proof: {challenge, signature}: a challenge from GET /v1/users/challenge signed by the DID\'s key', { field: 'proof' });
    const doc = await base.chain.resolveDid(parsed.identifier);
    if (!doc) throw new LedgerError('DID_NOT_FOUND', `${did} is not on chain`, 'not_found');
    if (!doc.active) throw new LedgerError('DID_DEACTIVATED', `${did} is deactivated; it has no key that could sign in`, 'conflict');
    await challenges.take(proof.challenge, did);
    const key = authenticationKeys(doc).find((k) => verify(k, utf8(proof.challenge), proof.signature));
    const replaced = key ? undefined : (await this.d.revocations.of(did)).find((r) => verify(Buffer.from(r.publicKey, 'hex'), utf8(proof.challenge), proof.signature));
    if (replaced) throw keyReplaced(replaced);
    if (!key) throw new HttpProblem('forbidden', `the signature does not verify against any authentication key of ${did}`, { code: 'PROOF_INVALID', field: 'proof' });
    const publicKey = toHex(key);
    const address = addressFromPublicKey(key);
    const existing = await users.byDid(did);
    if (existing) {
      const user = await users.update(existing.id, (u) => applyProfile({ ...u, publicKey, address, addresses: withOwnLedger(address, profile.addresses, u.addresses) }, profile, link));
      return { user, created: false, keyChanged: existing.publicKey !== publicKey, didStatus: 'active', didStatusReason: null };
    }
    const user = await users.create(applyProfile(newUser(base.now(), { did, publicKey, address, origin: 'imported', didTx: null, addresses: withOwnLedger(address, profile.addresses, undefined) }), profile, link));
    return { user, created: true, keyChanged: false, didStatus: 'active', didStatusReason: null };
  }

  /** The DidCreate in `text`, or a 400 saying exactly what is wrong with it. */
  private parseDidCreate(text: string): Transaction {
    const bad = (code: string, message: string): LedgerError => invalid(code, `signedDidCreate: ${message}`, { field: 'signedDidCreate' });
    let parsed: { tx: Transaction; chainId?: string };
    try {
      parsed = transactionFromJson(parseJson(text));
    } catch (err) {
      if (isLedgerError(err)) throw bad(err.code, err.message);
      throw err;
    }
    const { tx, chainId } = parsed;
    if (chainId !== undefined && chainId !== this.d.base.chainId) throw bad('WRONG_CHAIN', `signed for chain ${chainId}, not ${this.d.base.chainId}`);
    if (tx.payload.kind !== 'DidCreate') throw bad('NOT_DID_CREATE', `the payload is ${tx.payload.kind}, not DidCreate`);
    if (!verifyTransactionSignature(this.d.base.chainId, tx)) throw bad('BAD_SIGNATURE', `the signature does not verify for sender_pubkey ${toHex(tx.senderPubkey)} on chain ${this.d.base.chainId}`);
    return tx;
  }
}

/** The Ed25519 keys the DID document lists under `authentication`. */
export function authenticationKeys(doc: DidDocumentRpc): Uint8Array[] {
  const keys: Uint8Array[] = [];
  for (const ref of doc.authentication) {
    const method = doc.verificationMethod.find((m) => m.id === ref);
    if (method?.type === 'Ed25519VerificationKey2020') keys.push(ed25519PublicKeyFromMultibase(method.publicKeyMultibase));
  }
  return keys;
}

/** Checks the client's address entries: a 400 naming the entry at fault. */
export function checkAddresses(value: unknown): AddressEntry[] {
  const bad = (message: string): LedgerError => invalid('BAD_ADDRESSES', message, { field: 'addresses' });
  if (!Array.isArray(value)) throw bad('addresses must be an array of {chain, address, derivation}');
  if (value.length > MAX_ADDRESSES) throw bad(`addresses holds at most ${MAX_ADDRESSES} entries (got ${value.length})`);
  const out: AddressEntry[] = [];
  const seen = new Set<string>();
  value.forEach((entry, i) => {
    const at = `addresses[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw bad(`${at} must be an object {chain, address, derivation}`);
    const e = entry as Record<string, unknown>;
    for (const k of Object.keys(e)) if (!['chain', 'address', 'derivation'].includes(k)) throw bad(`${at} has an unknown field ${k}; allowed: chain, address, derivation`);
    if (!(ADDRESS_CHAINS as readonly unknown[]).includes(e.chain)) throw bad(`${at}.chain must be one of ${ADDRESS_CHAINS.join(', ')}`);
    const chain = e.chain as string;
    if (typeof e.address !== 'string') throw bad(`${at}.address must be a string`);
    const address = e.address;
    const ok = chain === 'ledger' ? isLedgerAddress(address) : chain === 'eth' ? ETH_ADDRESS.test(address) : BTC_ADDRESS.test(address);
    if (!ok) throw bad(`${at}.address is not a ${chain} address`);
    const derivation = e.derivation ?? '';
    if (typeof derivation !== 'string' || (derivation !== '' && !DERIVATION.test(derivation))) throw bad(`${at}.derivation must be a BIP32-style path like m/44'/60'/0'/0/0`);
    const id = `${chain}:${chain === 'eth' ? address.toLowerCase() : address}`;
    if (seen.has(id)) throw bad(`${at} repeats ${chain} address ${address}`);
    seen.add(id);
    out.push({ chain, address, derivation });
  });
  return out;
}

function isLedgerAddress(text: string): boolean {
  try {
    parseAddress(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The user's entries: the ledger entry of its own account first, always (with the client's
 * derivation when it sent one, else the one kept from before, else empty: the backend derives
 * nothing), then the other chains' entries, the given ones or else those kept from before.
 */
function withOwnLedger(own: string, given: AddressEntry[] | undefined, before: AddressEntry[] | undefined): AddressEntry[] {
  const stray = given?.find((e) => e.chain === 'ledger' && e.address !== own);
  if (stray) throw invalid('BAD_ADDRESSES', `a ledger entry must be the wallet's own account ${own}, not ${stray.address}`, { field: 'addresses' });
  const derivation = given?.find((e) => e.chain === 'ledger')?.derivation ?? before?.find((e) => e.chain === 'ledger' && e.address === own)?.derivation ?? '';
  const others = (given ?? before ?? []).filter((e) => e.chain !== 'ledger');
  return [{ chain: 'ledger', address: own, derivation }, ...others];
}

function applyProfile(user: User, profile: Profile, link: OidcLink | undefined): User {
  const out = { ...user };
  if (profile.displayName !== undefined) out.displayName = profile.displayName;
  if (profile.handle !== undefined) out.handle = profile.handle.toLowerCase();
  if (link) {
    out.oidcSub = link.sub;
    out.email = link.email ?? out.email;
  }
  return out;
}

function newUser(at: number, o: Pick<User, 'did' | 'publicKey' | 'address' | 'origin' | 'didTx' | 'addresses'>): User {
  const now = new Date(at).toISOString();
  return { id: newUserId(), ...o, displayName: null, handle: null, hideBalances: false, email: null, oidcSub: null, createdAt: now, updatedAt: now };
}
