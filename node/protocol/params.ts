import { UNIT } from './amount.js';

/** Protocol constants (seed 002). Changing one is a hard fork. */
export const MIN_VALIDATOR_STAKE = 10_000n * UNIT; // tier 1
export const TIER_MIN_STAKE = [10_000n * UNIT, 100_000n * UNIT, 1_000_000n * UNIT] as const;
export const UNBONDING_PERIOD_MS = 21 * 24 * 60 * 60 * 1000;
export const MAX_UNBONDING_ENTRIES = 32;
export const MAX_REPUTATION = 1000;
/** reputation of a validator record created by a first Stake */
export const INITIAL_REPUTATION = 0;
