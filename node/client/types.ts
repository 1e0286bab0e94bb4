/**
 * Result shapes of the JSON-RPC methods (seed 002). Amounts arrive as JSON integers that the
 * lossless parser turns into number or bigint by size; the client normalizes every amount to
 * bigint so that callers never handle both.
 */

export interface Block {
  height: number;
  round: number;
  hash: string;
  parent_hash: string;
  state_root: string;
  transactions_root: string;
  timestamp_ms: number;
  tx_count: number;
  proposer: string;
  /** hex transaction hashes */
  transactions: string[];
}

export interface CanonHead {
  seq: number;
  hash: string;
}

export interface ChainInfo {
  chain_id: string;
  native_token: { symbol: string; name: string; decimals: number };
  genesis_hash: string;
  latest_block: number;
  version: string;
}

export interface NodeInfo {
  version: string;
  uptime_seconds: number;
  rss_bytes: number;
}

export interface ReceiptEvent {
  type: string;
  /** Transfer events carry from, to and amount (bigint); other kinds carry their own fields */
  [field: string]: unknown;
}

export interface Receipt {
  tx_hash: string;
  /** `success` or `failed: <reason>` */
  status: string;
  block_height: number;
  fee_paid: bigint;
  events: ReceiptEvent[];
}

/** ledger_getTransaction's raw form: keys, signature and Transfer.to are byte arrays. */
export interface RawTransaction {
  sender_pubkey: number[];
  nonce: number | bigint;
  payload: Record<string, unknown>;
  signature: number[];
}

export interface Validator {
  address: string;
  staked: bigint;
  /** the amount in the 21-day unbonding lock */
  unbonding: bigint;
  /** 0 to 1000 */
  reputation: number;
  active: boolean;
}

export interface CredentialRecord {
  id: string;
  issuer_did: string;
  subject_did: string;
  credential_type: string;
  hash: string;
  issued_ms: number;
  revoked: boolean;
  revoked_ms: number | null;
}

export interface CredentialVerification {
  valid: boolean;
  credential: CredentialRecord;
  revoked: boolean;
}

export interface VerificationMethod {
  id: string;
  type: string;
  controller: string;
  publicKeyMultibase: string;
}

export interface DidService {
  id: string;
  type: string;
  serviceEndpoint: string;
}

/** ledger_didResolve: the unwrapped document plus its metadata fields. */
export interface DidDocument {
  '@context': string[];
  id: string;
  controller: string;
  verificationMethod: VerificationMethod[];
  authentication: string[];
  assertionMethod: string[];
  service: DidService[];
  active: boolean;
  created_ms: number;
  updated_ms: number;
  version_id: string | number;
}

export interface DisclosedMessage {
  index: number;
  /** lowercase hex */
  message: string;
}

export interface BbsCredentialProofResult {
  valid: boolean;
  proof_valid: boolean;
  is_bbs: boolean;
  revoked: boolean;
  credential: CredentialRecord | null;
}

export function toBigInt(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new TypeError(`${what}: expected an integer, got ${typeof value === 'string' ? JSON.stringify(value) : typeof value}`);
}

export function normalizeReceipt(r: Receipt | null): Receipt | null {
  if (r === null) return null;
  return {
    ...r,
    fee_paid: toBigInt(r.fee_paid, 'receipt.fee_paid'),
    events: (r.events ?? []).map((e) => ('amount' in e ? { ...e, amount: toBigInt(e.amount, `${e.type}.amount`) } : e)),
  };
}

export function normalizeValidator(v: Validator | null): Validator | null {
  if (v === null) return null;
  return { ...v, staked: toBigInt(v.staked, 'validator.staked'), unbonding: toBigInt(v.unbonding, 'validator.unbonding') };
}
