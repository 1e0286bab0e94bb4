import { ByteReader, ByteWriter, fromHex, toHex } from '../protocol/bytes.js';
import type { Receipt, ReceiptEvent, RecoveryEvent } from '../protocol/receipt.js';
import { LedgerError } from '../errors.js';

/**
 * The storage encoding of a receipt. Binary rather than JSON so that amounts round-trip as exact
 * u128 values with no text convention, and so that a new event type fails to compile here (the
 * switch is exhaustive) instead of being stored in a shape nobody decodes. Not consensus-critical:
 * receipts are not committed to by any root.
 *
 *   tx_hash[32] || str status || u64 block_height || u128 fee_paid || block_hash[32]
 *   || u64 block_seq || u64 tx_index || u16 event count || events
 *   event = u8 tag || fields (strings are u16-length UTF-8, amounts u128, times u64)
 */

const TAG = {
  Transfer: 0,
  Stake: 1,
  Unstake: 2,
  UnbondingReleased: 3,
  DidCreated: 4,
  DidDeactivated: 5,
  ValidatorRegistered: 6,
  ValidatorSlashed: 7,
  CredentialRequested: 8,
  CredentialAttested: 9,
  CredentialRegistered: 10,
  CredentialRevoked: 11,
  ValidatorQualified: 12,
  VerificationRequested: 13,
  VerificationAnswered: 14,
  VerificationFinalized: 15,
  VerificationAnswerRefused: 16,
} as const;

export function encodeReceipt(r: Receipt): Uint8Array {
  const w = new ByteWriter()
    .bytes(fromHex(r.tx_hash, 32, 'tx_hash'))
    .str(r.status)
    .u64(BigInt(r.block_height))
    .u128(r.fee_paid)
    .bytes(fromHex(r.block_hash, 32, 'block_hash'))
    .u64(BigInt(r.block_seq))
    .u64(BigInt(r.tx_index))
    .u16(r.events.length);
  for (const e of r.events) writeEvent(w, e);
  return w.finish();
}

export function decodeReceipt(bytes: Uint8Array): Receipt {
  const r = new ByteReader(bytes);
  const receipt: Receipt = {
    tx_hash: toHex(r.bytes(32)),
    status: r.str(),
    block_height: Number(r.u64()),
    fee_paid: r.u128(),
    events: [],
    block_hash: toHex(r.bytes(32)),
    block_seq: Number(r.u64()),
    tx_index: Number(r.u64()),
  };
  for (let n = r.u16(), i = 0; i < n; i++) receipt.events.push(readEvent(r));
  r.end();
  return receipt;
}

function writeEvent(w: ByteWriter, e: ReceiptEvent): void {
  if (isRecoveryEvent(e)) return writeRecoveryEvent(w, e);
  w.u8(TAG[e.type]);
  switch (e.type) {
    case 'Transfer':
      w.str(e.from).str(e.to).u128(e.amount);
      return;
    case 'Stake':
    case 'UnbondingReleased':
      w.str(e.address).u128(e.amount);
      return;
    case 'Unstake':
      w.str(e.address).u128(e.amount).u64(BigInt(e.release_ms));
      return;
    case 'DidCreated':
    case 'DidDeactivated':
      w.str(e.did);
      return;
    case 'ValidatorRegistered':
      w.str(e.address);
      return;
    case 'ValidatorSlashed':
      w.str(e.address).u64(BigInt(e.round));
      return;
    case 'CredentialRequested':
      w.str(e.id).str(e.issuer).str(e.subject).u64(BigInt(e.deadline_height));
      return;
    case 'CredentialAttested':
      w.str(e.id).str(e.validator).u16(e.attestations);
      return;
    case 'CredentialRegistered':
      w.str(e.id).u64(BigInt(e.consensus_round));
      return;
    case 'CredentialRevoked':
      w.str(e.id).u32(e.status_list).u32(e.status_index);
      return;
    case 'ValidatorQualified':
      w.str(e.address).str(e.credential);
      return;
    case 'VerificationRequested':
      w.str(e.request_id).str(e.requester).str(e.subject).u64(BigInt(e.deadline_height));
      return;
    case 'VerificationAnswered':
      w.str(e.request_id).str(e.validator).u16(e.answers);
      return;
    case 'VerificationFinalized':
      w.str(e.request_id).u8(e.verified ? 1 : 0).u64(BigInt(e.consensus_round));
      return;
    case 'VerificationAnswerRefused':
      w.str(e.request_id).str(e.validator).str(e.reason);
      return;
    default:
      throw unknownEvent((e satisfies never as { type: string }).type);
  }
}

function readEvent(r: ByteReader): ReceiptEvent {
  const tag = r.u8();
  if (RECOVERY_TAGS.has(tag)) return readRecoveryEvent(r, tag);
  switch (tag) {
    case TAG.Transfer:
      return { type: 'Transfer', from: r.str(), to: r.str(), amount: r.u128() };
    case TAG.Stake:
      return { type: 'Stake', address: r.str(), amount: r.u128() };
    case TAG.Unstake:
      return { type: 'Unstake', address: r.str(), amount: r.u128(), release_ms: Number(r.u64()) };
    case TAG.UnbondingReleased:
      return { type: 'UnbondingReleased', address: r.str(), amount: r.u128() };
    case TAG.DidCreated:
      return { type: 'DidCreated', did: r.str() };
    case TAG.DidDeactivated:
      return { type: 'DidDeactivated', did: r.str() };
    case TAG.ValidatorRegistered:
      return { type: 'ValidatorRegistered', address: r.str() };
    case TAG.ValidatorSlashed:
      return { type: 'ValidatorSlashed', address: r.str(), round: Number(r.u64()) };
    case TAG.CredentialRequested:
      return { type: 'CredentialRequested', id: r.str(), issuer: r.str(), subject: r.str(), deadline_height: Number(r.u64()) };
    case TAG.CredentialAttested:
      return { type: 'CredentialAttested', id: r.str(), validator: r.str(), attestations: r.u16() };
    case TAG.CredentialRegistered:
      return { type: 'CredentialRegistered', id: r.str(), consensus_round: Number(r.u64()) };
    case TAG.CredentialRevoked:
      return { type: 'CredentialRevoked', id: r.str(), status_list: r.u32(), status_index: r.u32() };
    case TAG.ValidatorQualified:
      return { type: 'ValidatorQualified', address: r.str(), credential: r.str() };
    case TAG.VerificationRequested:
      return { type: 'VerificationRequested', request_id: r.str(), requester: r.str(), subject: r.str(), deadline_height: Number(r.u64()) };
    case TAG.VerificationAnswered:
      return { type: 'VerificationAnswered', request_id: r.str(), validator: r.str(), answers: r.u16() };
    case TAG.VerificationFinalized:
      return { type: 'VerificationFinalized', request_id: r.str(), verified: r.u8() === 1, consensus_round: Number(r.u64()) };
    case TAG.VerificationAnswerRefused:
      return { type: 'VerificationAnswerRefused', request_id: r.str(), validator: r.str(), reason: r.str() };
    default:
      throw unknownEvent(String(tag));
  }
}

function unknownEvent(what: string): LedgerError {
  return new LedgerError('CORRUPT_RECEIPT', `unknown receipt event ${what}`, 'internal');
}

/** Recovery events are numbered from 32, apart from the others. */
const RECOVERY_TAG = { RecoveryPolicySet: 32, RecoveryPolicyRemoved: 33, RecoveryCancelled: 34, RecoveryStarted: 35, DidRecovered: 36, AccountRecovered: 37 } as const;
const RECOVERY_TAGS = new Set<number>(Object.values(RECOVERY_TAG));

function isRecoveryEvent(e: ReceiptEvent): e is RecoveryEvent {
  return Object.hasOwn(RECOVERY_TAG, e.type);
}

function writeRecoveryEvent(w: ByteWriter, e: RecoveryEvent): void {
  w.u8(RECOVERY_TAG[e.type]).str(e.did);
  switch (e.type) {
    case 'RecoveryPolicySet':
      w.u8(e.guardians.length);
      for (const g of e.guardians) w.str(g);
      w.u64(BigInt(e.threshold)).u64(BigInt(e.delay_blocks));
      return;
    case 'RecoveryStarted':
      w.str(e.new_public_key).u64(BigInt(e.due_height));
      return;
    case 'DidRecovered':
      w.str(e.new_public_key);
      return;
    case 'AccountRecovered':
      w.str(e.from).str(e.to).u128(e.balance).u128(e.staked).u128(e.unbonding);
      return;
    case 'RecoveryPolicyRemoved':
    case 'RecoveryCancelled':
      return;
    default:
      throw unknownEvent((e satisfies never as { type: string }).type);
  }
}

function readRecoveryEvent(r: ByteReader, tag: number): RecoveryEvent {
  const did = r.str();
  switch (tag) {
    case RECOVERY_TAG.RecoveryPolicySet: {
      const guardians: string[] = [];
      for (let n = r.u8(), i = 0; i < n; i++) guardians.push(r.str());
      return { type: 'RecoveryPolicySet', did, guardians, threshold: Number(r.u64()), delay_blocks: Number(r.u64()) };
    }
    case RECOVERY_TAG.RecoveryPolicyRemoved:
      return { type: 'RecoveryPolicyRemoved', did };
    case RECOVERY_TAG.RecoveryCancelled:
      return { type: 'RecoveryCancelled', did };
    case RECOVERY_TAG.RecoveryStarted:
      return { type: 'RecoveryStarted', did, new_public_key: r.str(), due_height: Number(r.u64()) };
    case RECOVERY_TAG.AccountRecovered:
      return { type: 'AccountRecovered', did, from: r.str(), to: r.str(), balance: r.u128(), staked: r.u128(), unbonding: r.u128() };
    default:
      return { type: 'DidRecovered', did, new_public_key: r.str() };
  }
}
