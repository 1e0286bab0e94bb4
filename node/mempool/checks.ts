import { LedgerError } from '../errors.js';
import { formatAddress } from '../protocol/address.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import { authenticationKeys } from '../protocol/did-document.js';
import { didForIdentifier, parseDid } from '../protocol/did.js';
import type { Account, DidRecord, ValidatorRecord } from '../protocol/records.js';
import type { Transaction } from '../protocol/transaction.js';
import type { PendingTx } from './sender-queue.js';

/**
 * The state checks of admission, as pure functions over what was read from committed state plus the
 * sender's pending transactions. They mirror execution/apply.ts: a transaction that passes would
 * execute with status success if its sender's pending transactions ahead of it execute first. They
 * are stricter where apply.ts would include the transaction as failed (the sender would pay a fee for
 * nothing), never looser where apply.ts would refuse to include it.
 */

/** Committed state read for one sender; `undefined` means "not read", so the check is skipped. */
export interface StateView {
  account: Account;
  /** null: no validator record */
  validator?: ValidatorRecord | null;
  /** by identifier hex; null: no such DID */
  dids: Map<string, DidRecord | null>;
}

export function conflict(code: string, message: string, data: Record<string, unknown>): LedgerError {
  return new LedgerError(code, message, 'conflict', data);
}

/** The sender's other pending transactions, as the checks of one transaction see them. */
export interface PendingContext {
  /** those with lower nonces, in nonce order; only read for Unstake and the payloads that need a DID's authority */
  ahead: readonly PendingTx[];
  /** total cost of those with lower nonces */
  aheadCost: bigint;
  /** total cost of those with higher nonces (a transaction that fills a gap runs before them) */
  behindCost: bigint;
  /** all of them; a DidCreate conflicts with any other */
  all: readonly PendingTx[];
}

/** Checks `tx` against the view, counting the pending transactions ahead as executed first. */
export function checkState(network: string, tx: Transaction, sender: Uint8Array, cost: bigint, view: StateView, pending: PendingContext): LedgerError | undefined {
  const { ahead, aheadCost, behindCost } = pending;
  const required = aheadCost + cost + behindCost;
  if (view.account.balance < required) {
    return conflict(
      'INSUFFICIENT_BALANCE',
      `balance ${view.account.balance} of ${formatAddress(sender)} cannot cover this transaction (amount + fee = ${cost}) ` +
        `and its pending transactions (${aheadCost} before it, ${behindCost} after it): ${required} is needed`,
      { balance: view.account.balance, required, cost, pendingBefore: aheadCost, pendingAfter: behindCost },
    );
  }
  const p = tx.payload;
  switch (p.kind) {
    case 'Unstake':
      return checkUnstake(p.amount, view, ahead);
    case 'DidCreate':
      return checkDidCreate(network, sender, view, pending.all);
    case 'DidDeactivate':
      return checkDidAuthority(network, p.did, 'be deactivated', tx.senderPubkey, sender, view, ahead);
    // apply.ts would include these and fail them: the sender would pay for nothing
    case 'CredentialRequest':
      return checkDidAuthority(network, p.issuer, 'issue credentials', tx.senderPubkey, sender, view, ahead);
    case 'SetRecoveryPolicy':
      return checkDidAuthority(network, p.did, 'set a recovery policy', tx.senderPubkey, sender, view, ahead);
    case 'VerificationRequest':
      return checkDidAuthority(network, p.request.requester.did, 'request verifications', tx.senderPubkey, sender, view, ahead);
    default:
      return undefined;
  }
}

function checkUnstake(amount: bigint, view: StateView, ahead: readonly PendingTx[]): LedgerError | undefined {
  if (view.validator === undefined) return undefined;
  const staked = view.validator?.staked ?? 0n;
  let pendingStake = 0n;
  let pendingUnstake = 0n;
  for (const e of ahead) {
    if (e.tx.payload.kind === 'Stake') pendingStake += e.tx.payload.amount;
    if (e.tx.payload.kind === 'Unstake') pendingUnstake += e.tx.payload.amount;
  }
  const available = staked + pendingStake - pendingUnstake;
  if (amount <= available) return undefined;
  return conflict('UNSTAKE_EXCEEDS_STAKE', `cannot unstake ${amount}: ${available} would be staked by then (staked ${staked}, pending stake ${pendingStake}, pending unstake ${pendingUnstake})`, {
    requested: amount,
    available,
    staked,
    pendingStake,
    pendingUnstake,
  });
}

/** A DID's identifier is its creator's address, so only the sender's own DidCreate can make it. */
function checkDidCreate(network: string, sender: Uint8Array, view: StateView, pending: readonly PendingTx[]): LedgerError | undefined {
  const did = didForIdentifier(network, sender);
  const record = view.dids.get(toHex(sender));
  if (record) return conflict('DID_EXISTS', `DID already exists: ${did}`, { did, pending: false });
  const other = pending.find((e) => e.tx.payload.kind === 'DidCreate');
  if (other) return conflict('DID_EXISTS', `DID ${did} is already being created by pending transaction ${other.hash}`, { did, pending: true, pendingHash: other.hash });
  return undefined;
}

/** The DID exists (or the sender's pending DidCreate makes it), is active, and the signer holds its key. */
function checkDidAuthority(
  network: string,
  did: string,
  action: string,
  signer: Uint8Array,
  sender: Uint8Array,
  view: StateView,
  ahead: readonly PendingTx[],
): LedgerError | undefined {
  const parsed = parseDid(did);
  if (parsed.network !== network) {
    return conflict('DID_NOT_FOUND', `DID ${did} belongs to network ${parsed.network}; this chain's DIDs are did:ledger:${network}:…`, { did, network });
  }
  const id = toHex(parsed.identifier);
  if (!view.dids.has(id)) return undefined;
  let record: Pick<DidRecord, 'active' | 'publicKey'> | null = view.dids.get(id) ?? null;
  let pendingChange = false;
  for (const e of ahead) {
    const q = e.tx.payload;
    if (q.kind === 'DidCreate' && !record && bytesEqual(parsed.identifier, sender)) {
      record = { active: true, publicKey: e.tx.senderPubkey };
      pendingChange = true;
    }
    if (q.kind === 'DidDeactivate' && q.did === did && record?.active) {
      record = { active: false, publicKey: null };
      pendingChange = true;
    }
  }
  if (!record) return conflict('DID_NOT_FOUND', `DID not found: ${did}`, { did });
  if (!record.active) {
    const why = pendingChange ? 'a pending transaction already deactivates it' : 'it is deactivated';
    return conflict('DID_DEACTIVATED', `DID ${did} cannot ${action}: ${why}`, { did, pending: pendingChange });
  }
  if (!authenticationKeys(record as DidRecord).some((k) => bytesEqual(k, signer))) {
    return conflict('NOT_AUTHENTICATION_KEY', `the sender's key is not an authentication key of ${did}`, { did, signer: toHex(signer) });
  }
  return undefined;
}
