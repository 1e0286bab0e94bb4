import { invalid } from '../errors.js';
import { ADDRESS_LENGTH } from '../protocol/address.js';
import { toHex } from '../protocol/bytes.js';
import type { Validator, ValidatorSetData } from './types.js';

export const MAX_VALIDATORS = 1024;

/**
 * A fixed validator set in canonical order, with the quorum arithmetic. Quorum means strictly
 * more than 2/3 of the total weight; "more than 1/3" is the weight that must contain an honest
 * validator (used to join a timeout early).
 */
export class ValidatorSet {
  readonly validators: readonly Validator[];
  readonly totalWeight: bigint;
  private readonly index = new Map<string, number>();

  constructor(data: ValidatorSetData) {
    const vs = data.validators;
    if (vs.length === 0 || vs.length > MAX_VALIDATORS) throw invalid('BAD_VALIDATOR_SET', `a validator set has 1 to ${MAX_VALIDATORS} validators`);
    let total = 0n;
    vs.forEach((v, i) => {
      if (v.address.length !== ADDRESS_LENGTH) throw invalid('BAD_VALIDATOR_SET', `validator ${i} has a bad address`);
      if (v.weight <= 0n) throw invalid('BAD_VALIDATOR_SET', `validator ${i} has no weight`);
      const key = toHex(v.address);
      if (this.index.has(key)) throw invalid('BAD_VALIDATOR_SET', `validator ${key} appears twice`);
      this.index.set(key, i);
      total += v.weight;
    });
    this.validators = vs.map((v) => ({ ...v }));
    this.totalWeight = total;
  }

  get size(): number {
    return this.validators.length;
  }

  indexOf(address: Uint8Array): number | undefined {
    return this.index.get(toHex(address));
  }

  at(i: number): Validator | undefined {
    return this.validators[i];
  }

  isQuorum(weight: bigint): boolean {
    return weight * 3n > this.totalWeight * 2n;
  }

  /** More than 1/3 of the weight: at least one honest validator is among them. */
  isValidity(weight: bigint): boolean {
    return weight * 3n > this.totalWeight;
  }

  /** The signer indices of a bitmap; undefined when it has bits past the set or trailing bytes. */
  signersOf(bitmap: Uint8Array): number[] | undefined {
    if (bitmap.length !== bitmapLength(this.size)) return undefined;
    const out: number[] = [];
    for (let i = 0; i < bitmap.length * 8; i++) {
      if ((bitmap[i >> 3]! & (1 << (i & 7))) === 0) continue;
      if (i >= this.size) return undefined;
      out.push(i);
    }
    return out;
  }

  weightOf(indices: Iterable<number>): bigint {
    let w = 0n;
    for (const i of indices) w += this.validators[i]!.weight;
    return w;
  }

  bitmap(indices: Iterable<number>): Uint8Array {
    const out = new Uint8Array(bitmapLength(this.size));
    for (const i of indices) out[i >> 3] = (out[i >> 3] ?? 0) | (1 << (i & 7));
    return out;
  }
}

export function bitmapLength(n: number): number {
  return (n + 7) >> 3;
}
