import type { StateChange } from '../execution/overlay.js';
import { bytesEqual } from '../protocol/bytes.js';
import { decodeValidatorSet, VALIDATOR_SET_KEY, type ValidatorSetRecord } from '../protocol/records.js';
import type { BinarySublevel, StoreOp } from './db.js';
import { u64Key } from './repositories.js';

/**
 * The validator set of every epoch this node committed (namespace `epochs`, docs/storage.md). The
 * state holds only the current set; a verification response, an attestation or a quorum
 * certificate from an earlier epoch is checked against the set that signed it, which this keeps.
 * A set is archived in the batch of the block that writes it to state, genesis included.
 */
export class EpochRepository {
  constructor(private readonly epochs: BinarySublevel) {}

  /** The set of the epoch that `height` is in; undefined when that epoch ended before this node kept sets. */
  async atHeight(height: number): Promise<ValidatorSetRecord | undefined> {
    const latest = await this.latest();
    if (!latest || latest.length <= 0) return undefined;
    if (height >= latest.firstHeight) return latest;
    // an epoch starts at epoch × length, so none after floor(height / length) can hold the height
    for await (const value of this.epochs.values({ lte: u64Key(Math.floor(height / latest.length)), reverse: true, limit: 1 })) {
      const set = decodeValidatorSet(value);
      return set.firstHeight <= height ? set : undefined;
    }
    return undefined;
  }

  /** The earliest epoch kept: what atHeight can answer for starts at its first height. */
  async earliest(): Promise<ValidatorSetRecord | undefined> {
    for await (const value of this.epochs.values({ limit: 1 })) return decodeValidatorSet(value);
    return undefined;
  }

  private async latest(): Promise<ValidatorSetRecord | undefined> {
    for await (const value of this.epochs.values({ reverse: true, limit: 1 })) return decodeValidatorSet(value);
    return undefined;
  }

  /** The archive's writes for one commit's state changes: each new set under its epoch. */
  putOps(changes: readonly StateChange[]): StoreOp[] {
    return changes.flatMap((c) =>
      c.value !== null && bytesEqual(c.key, VALIDATOR_SET_KEY) ? [{ type: 'put' as const, sublevel: this.epochs, key: u64Key(decodeValidatorSet(c.value).epoch), value: c.value }] : [],
    );
  }

  /** For a store written before sets were kept: the current set, so that its epoch at least is answered. */
  async keepCurrent(current: Uint8Array | undefined): Promise<void> {
    if (current === undefined || (await this.latest()) !== undefined) return;
    await this.epochs.put(u64Key(decodeValidatorSet(current).epoch), current);
  }
}
