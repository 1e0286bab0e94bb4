import type { Validator, ValidatorSetData } from '../consensus/types.js';
import { ADDRESS_LENGTH } from '../protocol/address.js';
import { toHex } from '../protocol/bytes.js';
import { BLS_PUBLIC_KEY_LENGTH, DEFAULT_EPOCH_LENGTH, INITIAL_REPUTATION, MAX_ACTIVE_VALIDATORS, TIER_MIN_STAKE, TIER_WEIGHTS } from '../protocol/params.js';
import {
  decodeCandidates,
  decodeValidator,
  decodeValidatorSet,
  encodeCandidates,
  encodeValidatorSet,
  STATE_PREFIX,
  VALIDATOR_CANDIDATES_KEY,
  VALIDATOR_SET_KEY,
  type ValidatorRecord,
} from '../protocol/records.js';
import type { StateOverlay, StateReader } from './overlay.js';
import { readValidatorKycLevel } from './chain-params.js';
import { readValidator, writeValidator } from './state-access.js';

/**
 * The validator-set rules (docs/protocol.md, "Validators and epochs"), pure and deterministic:
 *
 * - eligible: staked ≥ the tier-1 minimum, a registered BLS vote key, not slashed;
 * - weight by tier: 1, 2 or 3 for tiers 1 (≥ 10,000 LGR), 2 (≥ 100,000) and 3 (≥ 1,000,000);
 * - at most MAX_ACTIVE_VALIDATORS, chosen by weight, then stake, then address;
 * - canonical order: ascending address bytes (bitmaps and leader rotation index into it);
 * - an epoch is `length` heights (the genesis `epoch_length`); the block at the last height of an epoch computes the next
 *   epoch's set after its own transactions and writes it to state (VALIDATOR_SET_KEY), so the
 *   state root commits to it. Genesis writes epoch 0's set.
 */

/** The set of one epoch as state records it; `validators` is a consensus `ValidatorSetData`. */
export interface EpochValidatorSet extends ValidatorSetData {
  epoch: number;
  /** the first height of the epoch: epoch * length */
  firstHeight: number;
  /** heights per epoch, fixed by genesis */
  length: number;
  validators: Validator[];
}

export interface Candidate {
  address: Uint8Array;
  record: ValidatorRecord;
}

/** 0 below the tier-1 minimum, else the highest tier whose minimum `staked` reaches. */
export function tierOf(staked: bigint): 0 | 1 | 2 | 3 {
  let tier: 0 | 1 | 2 | 3 = 0;
  TIER_MIN_STAKE.forEach((min, i) => {
    if (staked >= min) tier = (i + 1) as 1 | 2 | 3;
  });
  return tier;
}

/** The consensus weight of a stake: its tier's weight, 0 below tier 1. Stake above a tier's minimum buys nothing more. */
export function weightOf(staked: bigint): bigint {
  const tier = tierOf(staked);
  return tier === 0 ? 0n : TIER_WEIGHTS[tier - 1]!;
}

/** May be in the next set: tier 1 or above, a registered BLS key, never slashed, and qualified where the chain has the KYC rule. */
export function isEligible(v: ValidatorRecord, requireKyc = false): boolean {
  return tierOf(v.staked) > 0 && v.blsPublicKey.length === BLS_PUBLIC_KEY_LENGTH && v.slashed !== true && (!requireKyc || v.qualified === true);
}

async function kycRule(state: StateReader): Promise<boolean> {
  return (await readValidatorKycLevel(state)) > 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/**
 * The next set from the candidates: the eligible ones, the `max` best by weight (higher first),
 * then stake (higher first), then address (lower first), returned in ascending address order.
 * Ineligible records among the candidates are ignored.
 */
export function selectValidatorSet(candidates: readonly Candidate[], max = MAX_ACTIVE_VALIDATORS, requireKyc = false): Validator[] {
  const ranked = candidates
    .filter((c) => isEligible(c.record, requireKyc))
    .map((c) => ({ address: c.address, staked: c.record.staked, blsPublicKey: c.record.blsPublicKey, weight: weightOf(c.record.staked) }))
    .sort((a, b) => (a.weight !== b.weight ? (a.weight > b.weight ? -1 : 1) : a.staked !== b.staked ? (a.staked > b.staked ? -1 : 1) : compareBytes(a.address, b.address)));
  return ranked
    .slice(0, max)
    .sort((a, b) => compareBytes(a.address, b.address))
    .map((v) => ({ address: Uint8Array.from(v.address), blsPublicKey: Uint8Array.from(v.blsPublicKey), weight: v.weight }));
}

/** The last height of an epoch: the block at this height computes the next epoch's set. */
export function lastHeightOf(set: Pick<EpochValidatorSet, 'firstHeight' | 'length'>): number {
  return set.firstHeight + set.length - 1;
}

/**
 * The validator set recorded in `state`: at a committed head, the set of the epoch that head's
 * height is in, or, right after a boundary block, the set of the epoch that starts at the next
 * height. undefined for a chain whose genesis wrote no set (created before epochs existed): such a
 * chain keeps its genesis validators and computes no epochs.
 *
 * Consensus reads it from the committed state after each commit (`ConsensusApp.currentEpoch`):
 * once a boundary block commits, the engine switches to the set this returns.
 */
export async function readValidatorSet(state: StateReader): Promise<EpochValidatorSet | undefined> {
  const bytes = await state.get(VALIDATOR_SET_KEY);
  return bytes ? decodeValidatorSet(bytes) : undefined;
}

/** The eligible addresses, ascending (the index execution keeps because state cannot be listed). */
export async function readCandidates(state: StateReader): Promise<Uint8Array[]> {
  const bytes = await state.get(VALIDATOR_CANDIDATES_KEY);
  return bytes ? decodeCandidates(bytes) : [];
}

/**
 * Writes a validator record, and keeps the candidate index in step when the record's eligibility
 * changes. Every write of a validator record in execution goes through here. `prev` is the record
 * as it was in `state` (undefined when there was none).
 */
/** The record a first Stake (or a recovery's stake) creates: no keys, not in a set. */
export function newValidatorRecord(): ValidatorRecord {
  return { staked: 0n, unbonding: [], reputation: INITIAL_REPUTATION, active: false, ed25519PublicKey: new Uint8Array(0), blsPublicKey: new Uint8Array(0) };
}

export async function putValidator(state: StateOverlay, address: Uint8Array, next: ValidatorRecord, prev: ValidatorRecord | undefined): Promise<void> {
  writeValidator(state, address, next);
  const rule = await kycRule(state);
  const before = prev !== undefined && isEligible(prev, rule);
  const after = isEligible(next, rule);
  if (before === after) return;
  const list = await readCandidates(state);
  const at = lowerBound(list, address);
  const present = at < list.length && compareBytes(list[at]!, address) === 0;
  if (after && !present) list.splice(at, 0, Uint8Array.from(address));
  else if (!after && present) list.splice(at, 1);
  else return;
  state.put(VALIDATOR_CANDIDATES_KEY, encodeCandidates(list));
}

function lowerBound(sorted: Uint8Array[], key: Uint8Array): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareBytes(sorted[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

async function readCandidateRecords(state: StateReader, addresses: readonly Uint8Array[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const address of addresses) {
    const record = await readValidator(state, address);
    if (!record) throw new Error('the validator candidate index names an address with no validator record');
    out.push({ address, record });
  }
  return out;
}

/** Sets `active` on the records whose membership differs between the two sets. */
async function markMembership(state: StateOverlay, before: readonly Validator[], after: readonly Validator[]): Promise<void> {
  const was = new Set(before.map((v) => toHex(v.address)));
  const is = new Set(after.map((v) => toHex(v.address)));
  const changed = [...before.filter((v) => !is.has(toHex(v.address))), ...after.filter((v) => !was.has(toHex(v.address)))];
  for (const { address } of changed) {
    const record = await readValidator(state, address);
    if (!record) continue;
    const active = is.has(toHex(address));
    if (record.active !== active) writeValidator(state, address, { ...record, active });
  }
}

/**
 * Run by execution after the transactions of the block at `height`. At the last height of an epoch
 * it computes the next epoch's set from the candidates, writes it (epoch + 1, first height
 * height + 1), sets `active` on the records that joined or left, and returns it; at any other
 * height, or on a chain with no recorded set, it writes nothing and returns undefined.
 *
 * If no candidate is eligible, the current set carries over into the new epoch: an empty set could
 * never certify another block, so the chain would halt for good.
 *
 * CONSENSUS SWITCH POINT: the returned set (also in `BlockExecution.validatorSet` and in state)
 * replaces the engine's set when this block commits; blocks from `firstHeight` on belong to it.
 */
export async function applyEpochBoundary(state: StateOverlay, height: number): Promise<EpochValidatorSet | undefined> {
  const current = await readValidatorSet(state);
  if (!current || height !== lastHeightOf(current)) return undefined;
  const selected = selectValidatorSet(await readCandidateRecords(state, await readCandidates(state)), MAX_ACTIVE_VALIDATORS, await kycRule(state));
  const next: EpochValidatorSet = {
    epoch: current.epoch + 1,
    firstHeight: height + 1,
    length: current.length,
    validators: selected.length > 0 ? selected : current.validators,
  };
  state.put(VALIDATOR_SET_KEY, encodeValidatorSet(next));
  await markMembership(state, current.validators, next.validators);
  return next;
}

/**
 * Genesis: given an overlay holding the genesis state (the validator records written by
 * buildGenesisBlock), writes the candidate index and epoch 0's set, sets `active` to membership,
 * and returns the set. Call it after writing the records and before taking `changes()`.
 */
export async function writeGenesisValidatorSet(state: StateOverlay, length = DEFAULT_EPOCH_LENGTH): Promise<EpochValidatorSet> {
  const records: Candidate[] = [];
  for (const c of state.changes()) {
    if (c.value === null || c.key.length !== 1 + ADDRESS_LENGTH || c.key[0] !== STATE_PREFIX.validator) continue;
    records.push({ address: c.key.slice(1), record: decodeValidator(c.value) });
  }
  const rule = await kycRule(state);
  const eligible = records.filter((c) => isEligible(c.record, rule)).map((c) => c.address);
  state.put(VALIDATOR_CANDIDATES_KEY, encodeCandidates(eligible));
  const validators = selectValidatorSet(records, MAX_ACTIVE_VALIDATORS, rule);
  if (validators.length === 0) throw new Error('genesis has no eligible validator (tier-1 stake and a BLS key)');
  const set: EpochValidatorSet = { epoch: 0, firstHeight: 0, length, validators };
  state.put(VALIDATOR_SET_KEY, encodeValidatorSet(set));
  const members = new Set(validators.map((v) => toHex(v.address)));
  for (const { address, record } of records) {
    const active = members.has(toHex(address));
    if (record.active !== active) writeValidator(state, address, { ...record, active });
  }
  return set;
}
