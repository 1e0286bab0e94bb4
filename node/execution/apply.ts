import { addressBytesFromPublicKey, formatAddress } from '../protocol/address.js';
import { bytesEqual } from '../protocol/bytes.js';
import { authenticationKeys } from '../protocol/did-document.js';
import { didForIdentifier, parseDid } from '../protocol/did.js';
import { feeFor } from '../protocol/fees.js';
import { MAX_UNBONDING_ENTRIES, UNBONDING_PERIOD_MS } from '../protocol/params.js';
import type { Payload, PayloadOf, ServiceEndpoint } from '../protocol/payloads.js';
import { failed, SUCCESS, type ReceiptEvent } from '../protocol/receipt.js';
import type { ValidatorRecord } from '../protocol/records.js';
import type { Transaction } from '../protocol/transaction.js';
import { checkEquivocation, checkProofOfPossession } from '../protocol/validator-keys.js';
import type { BlockContext, PayloadResult, TxContext } from './context.js';
import type { StateOverlay } from './overlay.js';
import { credit, debit, readAccount, readDid, readValidator, writeAccount, writeDid } from './state-access.js';
import { credentialAttest, credentialRequest, credentialRevoke } from './credentials.js';
import { didRecover, setRecoveryPolicy } from './recovery.js';
import { validatorQualify } from './eligibility.js';
import { verificationAnswer, verificationAnswerBatch, verificationRequest } from './verification.js';
import { newValidatorRecord, putValidator } from './validator-set.js';

/**
 * The state transition of one transaction. Pure: it reads and writes only through the overlay, and
 * time comes from the block. Signatures are checked before execution (mempool admission and block
 * validation), not here.
 */

export interface TxOutcome {
  status: string;
  feePaid: bigint;
  events: ReceiptEvent[];
}

/** A transaction that may not be in a block at all: the whole block is invalid if it is. */
export class InclusionError extends Error {
  constructor(
    readonly code: 'NONCE_MISMATCH' | 'CANNOT_PAY_FEE' | 'BLOCK_BLS_LIMIT',
    message: string,
  ) {
    super(message);
  }
}

export async function applyTransaction(state: StateOverlay, ctx: TxContext, tx: Transaction, txHash: Uint8Array): Promise<TxOutcome> {
  const sender = addressBytesFromPublicKey(tx.senderPubkey);
  const events = await releaseUnbonding(state, ctx, sender);
  const account = await readAccount(state, sender);
  if (tx.nonce !== account.nonce) {
    throw new InclusionError('NONCE_MISMATCH', `nonce ${tx.nonce} is not the next nonce ${account.nonce} of ${formatAddress(sender)}`);
  }
  const fee = feeFor(tx.payload.kind);
  if (account.balance < fee) throw new InclusionError('CANNOT_PAY_FEE', `balance ${account.balance} cannot pay the fee ${fee}`);
  writeAccount(state, sender, { balance: account.balance - fee, nonce: account.nonce + 1n });

  const result = await applyPayload(state, ctx, tx, sender, txHash);
  await credit(state, ctx.proposer, fee);
  if ('failure' in result) return { status: failed(result.failure), feePaid: fee, events };
  return { status: SUCCESS, feePaid: fee, events: [...events, ...result.events] };
}


/** Matured unbonding returns to the balance when its owner next sends a transaction. */
async function releaseUnbonding(state: StateOverlay, ctx: BlockContext, address: Uint8Array): Promise<ReceiptEvent[]> {
  const v = await readValidator(state, address);
  if (!v) return [];
  const matured = v.unbonding.filter((u) => u.releaseMs <= ctx.timestampMs);
  if (matured.length === 0) return [];
  const amount = matured.reduce((n, u) => n + u.amount, 0n);
  await putValidator(state, address, { ...v, unbonding: v.unbonding.filter((u) => u.releaseMs > ctx.timestampMs) }, v);
  await credit(state, address, amount);
  return [{ type: 'UnbondingReleased', address: formatAddress(address), amount }];
}

async function applyPayload(
  state: StateOverlay,
  ctx: TxContext,
  tx: Transaction,
  sender: Uint8Array,
  txHash: Uint8Array,
): Promise<PayloadResult> {
  const p = tx.payload;
  const senderPubkey = tx.senderPubkey;
  switch (p.kind) {
    case 'Transfer':
      return transfer(state, sender, p.to, p.amount);
    case 'Stake':
      return stake(state, sender, p.amount);
    case 'Unstake':
      return unstake(state, ctx, sender, p.amount);
    case 'DidCreate':
      return didCreate(state, ctx, sender, senderPubkey, p.service, txHash);
    case 'DidDeactivate':
      return didDeactivate(state, ctx, p.did, senderPubkey, txHash);
    case 'SetRecoveryPolicy':
      return setRecoveryPolicy(state, ctx, p, senderPubkey, txHash);
    case 'DidRecover':
      return didRecover(state, ctx, p, txHash);
    case 'ValidatorRegister':
      return validatorRegister(state, ctx, sender, senderPubkey, p);
    case 'SubmitEvidence':
      return submitEvidence(state, ctx, p);
    case 'CredentialRequest':
      return credentialRequest(state, ctx, senderPubkey, p, txHash);
    case 'CredentialAttest':
      return credentialAttest(state, ctx, senderPubkey, p);
    case 'CredentialRevoke':
      return credentialRevoke(state, ctx, senderPubkey, p);
    case 'ValidatorQualify':
      return validatorQualify(state, sender, p);
    case 'VerificationRequest':
      return verificationRequest(state, ctx, tx, p, txHash);
    case 'VerificationAnswer':
      return verificationAnswer(state, ctx, senderPubkey, p);
    case 'VerificationAnswerBatch':
      return verificationAnswerBatch(state, ctx, senderPubkey, p);
  }
}


async function transfer(state: StateOverlay, from: Uint8Array, to: Uint8Array, amount: bigint): Promise<PayloadResult> {
  if (!(await debit(state, from, amount))) return { failure: 'insufficient balance' };
  await credit(state, to, amount);
  return { events: [{ type: 'Transfer', from: formatAddress(from), to: formatAddress(to), amount }] };
}

/** Stake and Unstake change `staked` only: membership (`active`) changes at the next epoch boundary. */
async function stake(state: StateOverlay, address: Uint8Array, amount: bigint): Promise<PayloadResult> {
  if (!(await debit(state, address, amount))) return { failure: 'insufficient balance' };
  const prev = await readValidator(state, address);
  const v = prev ?? newValidatorRecord();
  await putValidator(state, address, { ...v, staked: v.staked + amount }, prev);
  return { events: [{ type: 'Stake', address: formatAddress(address), amount }] };
}

async function unstake(state: StateOverlay, ctx: BlockContext, address: Uint8Array, amount: bigint): Promise<PayloadResult> {
  const v = await readValidator(state, address);
  if (!v || v.staked < amount) return { failure: 'amount exceeds staked balance' };
  if (v.unbonding.length >= MAX_UNBONDING_ENTRIES) return { failure: `more than ${MAX_UNBONDING_ENTRIES} unbonding entries` };
  const releaseMs = ctx.timestampMs + UNBONDING_PERIOD_MS;
  await putValidator(state, address, { ...v, staked: v.staked - amount, unbonding: [...v.unbonding, { amount, releaseMs }] }, v);
  return { events: [{ type: 'Unstake', address: formatAddress(address), amount, release_ms: releaseMs }] };
}

/** Registers the sender's BLS vote key, once: a registered key can never be replaced. */
async function validatorRegister(
  state: StateOverlay,
  ctx: TxContext,
  address: Uint8Array,
  senderPubkey: Uint8Array,
  p: PayloadOf<'ValidatorRegister'>,
): Promise<PayloadResult> {
  const prev = await readValidator(state, address);
  if (prev && prev.blsPublicKey.length > 0) return { failure: 'a vote key is already registered for this validator' };
  const bad = checkProofOfPossession(ctx.chainId, address, p.blsPublicKey, p.proofOfPossession);
  if (bad) return { failure: bad };
  const v = prev ?? newValidatorRecord();
  await putValidator(state, address, { ...v, ed25519PublicKey: Uint8Array.from(senderPubkey), blsPublicKey: Uint8Array.from(p.blsPublicKey) }, prev);
  return { events: [{ type: 'ValidatorRegistered', address: formatAddress(address) }] };
}

/** Proven equivocation: the validator is slashed for good and leaves the set at the next boundary. Anyone may submit it. */
async function submitEvidence(state: StateOverlay, ctx: TxContext, p: PayloadOf<'SubmitEvidence'>): Promise<PayloadResult> {
  const v = await readValidator(state, p.validator);
  if (!v || v.blsPublicKey.length === 0) return { failure: 'the validator has no registered vote key' };
  if (v.slashed) return { failure: 'the validator is already slashed' };
  const bad = checkEquivocation(ctx.chainId, v.blsPublicKey, p);
  if (bad) return { failure: bad };
  await putValidator(state, p.validator, { ...v, slashed: true }, v);
  return { events: [{ type: 'ValidatorSlashed', address: formatAddress(p.validator), round: p.round }] };
}

async function didCreate(
  state: StateOverlay,
  ctx: BlockContext,
  identifier: Uint8Array,
  publicKey: Uint8Array,
  service: ServiceEndpoint[],
  txHash: Uint8Array,
): Promise<PayloadResult> {
  const did = didForIdentifier(ctx.network, identifier);
  if (await readDid(state, identifier)) return { failure: `DID already exists: ${did}` };
  writeDid(state, identifier, {
    did,
    publicKey,
    service,
    active: true,
    createdMs: ctx.timestampMs,
    updatedMs: ctx.timestampMs,
    versionId: 1,
    txHash,
  });
  return { events: [{ type: 'DidCreated', did }] };
}

async function didDeactivate(state: StateOverlay, ctx: BlockContext, did: string, signer: Uint8Array, txHash: Uint8Array): Promise<PayloadResult> {
  const parsed = parseDid(did);
  if (parsed.network !== ctx.network) return { failure: `DID ${did} belongs to network ${parsed.network}, not ${ctx.network}` };
  const record = await readDid(state, parsed.identifier);
  if (!record) return { failure: `DID not found: ${did}` };
  if (!record.active) return { failure: `DID already deactivated: ${did}` };
  if (!authenticationKeys(record).some((k) => bytesEqual(k, signer))) return { failure: 'not signed by an authentication key of the DID' };
  writeDid(state, parsed.identifier, {
    ...record,
    publicKey: null,
    active: false,
    updatedMs: ctx.timestampMs,
    versionId: record.versionId + 1,
    txHash,
  });
  return { events: [{ type: 'DidDeactivated', did }] };
}
