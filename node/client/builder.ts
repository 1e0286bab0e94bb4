import { keyPairFromSeed } from '../crypto/ed25519.js';
import { LedgerError } from '../errors.js';
import { addressBytesFromPublicKey, parseAddress } from '../protocol/address.js';
import { bytesEqual, fromHex, toHex, U64_MAX } from '../protocol/bytes.js';
import { stringifyJson } from '../protocol/json.js';
import { payloadFromJson, payloadToJson, type Payload, type ServiceEndpoint } from '../protocol/payloads.js';
import { signRecovery } from '../protocol/recovery.js';
import { signTransaction, transactionHash, transactionToJson, type Transaction, type UnsignedTransaction } from '../protocol/transaction.js';
import { proofOfPossession } from '../protocol/proof-of-possession.js';
import { parseCredentialId } from '../protocol/credential-id.js';
import { issuanceFee, type CredentialType } from '../protocol/credential-types.js';
import type { RpcClient } from './rpc-client.js';
import type { Receipt } from './types.js';

/**
 * Transaction building for dApps: build an unsigned transaction, sign it locally with the
 * sender's 32-byte Ed25519 seed, send the JSON text with RpcClient.sendTransaction. The node
 * never signs for anyone.
 */

export interface TxBase {
  /** the sender's 32-byte Ed25519 public key */
  senderPubkey: Uint8Array;
  /** the sender's next nonce (RpcClient.getNonce) */
  nonce: bigint | number;
}

function build(base: TxBase, payload: Payload): UnsignedTransaction {
  if (base.senderPubkey.length !== 32) throw new LedgerError('BAD_PUBLIC_KEY', `senderPubkey must be 32 bytes, got ${base.senderPubkey.length}`);
  const nonce = BigInt(base.nonce);
  if (nonce < 0n || nonce > U64_MAX) throw new LedgerError('BAD_NONCE', 'nonce must be an integer from 0 to 2^64 - 1');
  // Through the protocol's JSON codec and back: the same rules the node applies on admission.
  return { senderPubkey: Uint8Array.from(base.senderPubkey), nonce, payload: payloadFromJson(payloadToJson(payload)) };
}

function addressBytes(to: string | Uint8Array): Uint8Array {
  return typeof to === 'string' ? parseAddress(to) : Uint8Array.from(to);
}

/** `to` is a base58 address (or its 20 bytes); `amount` in smallest units (parseTokens('1.5')). */
export function buildTransfer(args: TxBase & { to: string | Uint8Array; amount: bigint }): UnsignedTransaction {
  return build(args, { kind: 'Transfer', to: addressBytes(args.to), amount: args.amount });
}

export function buildStake(args: TxBase & { amount: bigint }): UnsignedTransaction {
  return build(args, { kind: 'Stake', amount: args.amount });
}

export function buildUnstake(args: TxBase & { amount: bigint }): UnsignedTransaction {
  return build(args, { kind: 'Unstake', amount: args.amount });
}

/** Creates the sender's DID (did:ledger:<network>:<sender address>) with these services. */
export function buildDidCreate(args: TxBase & { service?: ServiceEndpoint[] }): UnsignedTransaction {
  return build(args, { kind: 'DidCreate', service: (args.service ?? []).map((s) => ({ ...s })) });
}

export function buildDidDeactivate(args: TxBase & { did: string }): UnsignedTransaction {
  return build(args, { kind: 'DidDeactivate', did: args.did });
}

/**
 * Registers the sender's BLS vote key, with its proof of possession signed here by the BLS secret
 * key; with a tier-1 Stake the sender joins the validator set at the next epoch boundary.
 */
export function buildValidatorRegister(args: TxBase & { chainId: string; blsSecretKey: Uint8Array }): UnsignedTransaction {
  const p = proofOfPossession(args.chainId, addressBytesFromPublicKey(args.senderPubkey), args.blsSecretKey);
  return build(args, { kind: 'ValidatorRegister', blsPublicKey: p.blsPublicKey, proofOfPossession: p.proofOfPossession });
}

export interface CredentialRequestArgs extends TxBase {
  /** urn:ledger:credential:<uuid> or the bare UUID */
  credentialId: string;
  credentialType: CredentialType;
  /** 1 to 3, for a KYCCredential only */
  kycLevel?: number;
  subjectDid: string;
  /** the sender's own DID: the issuer signs its requests */
  issuerDid: string;
  /** SHA-256 of the credential (credentialHash); the credential itself never goes on chain */
  hash: Uint8Array;
  evidenceDigest: Uint8Array;
  /** the issuer's next position (RpcClient.nextRevocationIndex) */
  statusList: number;
  statusIndex: number;
  bbs?: { publicKey: Uint8Array; messageCount: number };
}

/** A credential request; its fee is the type's issuance fee, debited with the transaction fee. */
export function buildCredentialRequest(a: CredentialRequestArgs): UnsignedTransaction {
  return build(a, {
    kind: 'CredentialRequest',
    credentialId: parseCredentialId(a.credentialId),
    credentialType: a.credentialType,
    kycLevel: a.kycLevel ?? 0,
    subject: a.subjectDid,
    issuer: a.issuerDid,
    hash: Uint8Array.from(a.hash),
    evidenceDigest: Uint8Array.from(a.evidenceDigest),
    fee: issuanceFee(a.credentialType, a.kycLevel),
    statusList: a.statusList,
    statusIndex: a.statusIndex,
    ...(a.bbs ? { bbs: { publicKey: Uint8Array.from(a.bbs.publicKey), messageCount: a.bbs.messageCount } } : {}),
  });
}

/**
 * Qualifies the sender as a validator on a chain with the KYC rule: names its registered KYC
 * credential (level ≥ the genesis `validator_kyc_level`, subject = the sender's DID).
 */
export function buildValidatorQualify(args: TxBase & { credentialId: string }): UnsignedTransaction {
  return build(args, { kind: 'ValidatorQualify', credentialId: parseCredentialId(args.credentialId) });
}

/** Revokes a registered credential, for good: only its issuer (or the genesis governance key) may. */
export function buildCredentialRevoke(args: TxBase & { credentialId: string }): UnsignedTransaction {
  return build(args, { kind: 'CredentialRevoke', credentialId: parseCredentialId(args.credentialId) });
}

/** Names the DID's guardians; `guardians: []` with threshold 0 (and no delay) removes the policy. Signed by the DID's key. */
export function buildSetRecoveryPolicy(args: TxBase & { did: string; guardians: string[]; threshold: number; delayBlocks?: number }): UnsignedTransaction {
  return build(args, { kind: 'SetRecoveryPolicy', did: args.did, guardians: [...args.guardians], threshold: args.threshold, delayBlocks: args.delayBlocks ?? 0 });
}

/** One guardian's signature as DidRecover carries it: the signature is hex or 64 bytes. */
export interface GuardianSignature {
  guardian: string;
  signature: string | Uint8Array;
}

function hexOrBytes(value: string | Uint8Array, length: number, what: string): Uint8Array {
  return typeof value === 'string' ? fromHex(value, length, what) : Uint8Array.from(value);
}

/** Moves `did` to `newPublicKey` with its guardians' signatures (guardianSignature); any account may send it. */
export function buildDidRecover(args: TxBase & { did: string; newPublicKey: string | Uint8Array; signatures: GuardianSignature[] }): UnsignedTransaction {
  const signatures = args.signatures.map((s) => ({ guardian: s.guardian, signature: hexOrBytes(s.signature, 64, 'guardian signature') }));
  return build(args, { kind: 'DidRecover', did: args.did, newPublicKey: hexOrBytes(args.newPublicKey, 32, 'newPublicKey'), signatures });
}

/**
 * A guardian's hex signature for a DidRecover, made with the seed of its DID's current key.
 * `versionId` is the DID's version_id now (ledger_didResolve): once anything changes the DID, the
 * signature no longer counts.
 */
export function guardianSignature(args: { chainId: string; did: string; newPublicKey: string | Uint8Array; versionId: number; guardianSeed: Uint8Array }): string {
  const newPublicKey = hexOrBytes(args.newPublicKey, 32, 'newPublicKey');
  return toHex(signRecovery(args.guardianSeed, { chainId: args.chainId, did: args.did, newPublicKey, versionId: args.versionId }));
}

export interface SignedTransaction {
  tx: Transaction;
  /** the JSON text ledger_sendTransaction takes, with chain_id */
  json: string;
  /** the hex hash ledger_getReceipt takes */
  hash: string;
}

export function signAndEncode(chainId: string, unsigned: UnsignedTransaction, seed: Uint8Array): SignedTransaction {
  if (!bytesEqual(keyPairFromSeed(seed).publicKey, unsigned.senderPubkey)) {
    throw new LedgerError('KEY_MISMATCH', 'the seed does not belong to the transaction sender (senderPubkey)');
  }
  const tx = signTransaction(chainId, unsigned, seed);
  return { tx, json: stringifyJson(transactionToJson(tx, 'standard', chainId)), hash: transactionHash(chainId, tx) };
}

export interface WaitOptions {
  /** default 30 s */
  timeoutMs?: number;
  /** between polls; default 250 ms */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** Polls ledger_getReceipt until the receipt appears; LedgerError RECEIPT_TIMEOUT after timeoutMs. */
export async function waitForReceipt(client: Pick<RpcClient, 'getReceipt'>, txHash: string, options: WaitOptions = {}): Promise<Receipt> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 250;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const receipt = await client.getReceipt(txHash);
    if (receipt) return receipt;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new LedgerError('RECEIPT_TIMEOUT', `no receipt for ${txHash} within ${timeoutMs} ms; it may still be included later`, 'not_found', { tx_hash: txHash });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}
