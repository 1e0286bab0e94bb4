import { formatAddress } from '../protocol/address.js';
import { MAX_UNBONDING_ENTRIES } from '../protocol/params.js';
import type { ReceiptEvent } from '../protocol/receipt.js';
import type { UnbondingEntry } from '../protocol/records.js';
import type { StateOverlay } from './overlay.js';
import { credit, readAccount, readValidator, writeAccount } from './state-access.js';
import { newValidatorRecord, putValidator } from './validator-set.js';

/**
 * Protocol version 2 (docs/protocol.md, "Social recovery"): a completed recovery gives the new key
 * what the old key's account held, so whoever keeps the lost key keeps nothing to spend. The
 * balance moves; so do the stake and the unbonding entries, into the new key's validator record.
 * The old record keeps its vote key, its `slashed` flag and, until the next epoch boundary, its
 * place in the set (membership is fixed per epoch); with no stake it leaves the set then. The new
 * key registers its own vote key to validate. The old account keeps its nonce.
 */

/** Entries over the cap are merged, latest release first, into the later release: nothing is lost, some waits longer. */
export function mergeUnbonding(entries: readonly UnbondingEntry[]): UnbondingEntry[] {
  const sorted = [...entries].sort((a, b) => a.releaseMs - b.releaseMs || (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0));
  while (sorted.length > MAX_UNBONDING_ENTRIES) {
    const last = sorted.pop()!;
    const prev = sorted.pop()!;
    sorted.push({ amount: prev.amount + last.amount, releaseMs: last.releaseMs });
  }
  return sorted;
}

export async function moveRecoveredAccount(state: StateOverlay, did: string, from: Uint8Array, to: Uint8Array): Promise<ReceiptEvent | undefined> {
  const account = await readAccount(state, from);
  const balance = account.balance;
  if (balance > 0n) {
    writeAccount(state, from, { ...account, balance: 0n });
    await credit(state, to, balance);
  }
  const v = await readValidator(state, from);
  const staked = v?.staked ?? 0n;
  const unbonding = v?.unbonding.reduce((sum, e) => sum + e.amount, 0n) ?? 0n;
  if (v && (staked > 0n || v.unbonding.length > 0)) {
    const prevTo = await readValidator(state, to);
    const base = prevTo ?? newValidatorRecord();
    await putValidator(state, to, { ...base, staked: base.staked + staked, unbonding: mergeUnbonding([...base.unbonding, ...v.unbonding]) }, prevTo);
    await putValidator(state, from, { ...v, staked: 0n, unbonding: [] }, v);
  }
  if (balance === 0n && staked === 0n && unbonding === 0n) return undefined;
  return { type: 'AccountRecovered', did, from: formatAddress(from), to: formatAddress(to), balance, staked, unbonding };
}
