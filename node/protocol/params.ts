import { UNIT } from './amount.js';

/** Protocol constants (seed 002). Changing one is a hard fork. */
export const MIN_VALIDATOR_STAKE = 10_000n * UNIT; // tier 1
export const TIER_MIN_STAKE = [10_000n * UNIT, 100_000n * UNIT, 1_000_000n * UNIT] as const;
export const UNBONDING_PERIOD_MS = 21 * 24 * 60 * 60 * 1000;
export const MAX_UNBONDING_ENTRIES = 32;
export const MAX_REPUTATION = 1000;
/**
 * The newest protocol version (genesis `protocol_version`; docs/protocol.md, "Protocol versions").
 * 2: a completed social recovery also moves the old key's balance and stake to the new key.
 */
export const LATEST_PROTOCOL_VERSION = 2;
/** reputation of a validator record created by a first Stake */
export const INITIAL_REPUTATION = 0;

/**
 * Validators and epochs (docs/protocol.md, "Validators and epochs"). Epoch e covers the heights
 * [e * L, (e + 1) * L), L being the genesis `epoch_length`; the block at the last height of an
 * epoch computes the next epoch's validator set after its transactions.
 */
export const DEFAULT_EPOCH_LENGTH = 100;
/** shorter epochs would spend a large share of blocks on handovers (each costs two empty blocks) */
export const MIN_EPOCH_LENGTH = 10;
export const MAX_EPOCH_LENGTH = 1_000_000;
/** the consensus weight of tiers 1, 2 and 3 (index 0 is tier 1); below tier 1 there is no weight */
export const TIER_WEIGHTS = [1n, 2n, 3n] as const;
/** at most this many validators in one epoch's set: by weight, then stake, then address */
export const MAX_ACTIVE_VALIDATORS = 100;
/** BLS public keys are 48-byte compressed G1 points (min-pk), signatures 96-byte compressed G2 points */
export const BLS_PUBLIC_KEY_LENGTH = 48;
export const BLS_SIGNATURE_LENGTH = 96;
/**
 * At most this many ValidatorRegister and SubmitEvidence transactions in one block: each costs every
 * validator one or two pairing checks (about 40 ms each), so a block full of them would stall rounds.
 */
export const MAX_BLS_PAYLOADS_PER_BLOCK = 4;

/**
 * A credential request collects attestations up to `request height + ATTESTATION_WINDOW` inclusive
 * (docs/protocol.md, "Credential issuance"); then it expires and the issuance fee goes back.
 */
export const ATTESTATION_WINDOW = 300;
