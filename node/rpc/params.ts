import { base58Decode } from '../crypto/base58.js';
import { ADDRESS_LENGTH } from '../protocol/address.js';
import { parseCredentialId } from '../protocol/credential-id.js';
import { nonIntegerLiteral } from '../protocol/json.js';
import { RPC_INVALID_PARAMS, RpcMethodError } from './errors.js';

/**
 * Validators of positional JSON-RPC params. A Validator checks one JSON value and returns it
 * typed; `param(name, validator)` names it for a method's param list. A failure is a -32602
 * RpcMethodError whose message names the param and its position, e.g.
 * `invalid params: address (param 1) must be a base58 address of 20 bytes`, and whose data is
 * `{ param, position }` (position counts from 1).
 */

export interface Validator<T> {
  /** what a valid value is, completing "must be ..." */
  readonly expected: string;
  /** returns the value typed, or throws ParamIssue */
  check(value: unknown): T;
  /** an integer: a number written with a fraction or exponent (`1.0`, `1e3`) is refused */
  readonly integer?: boolean;
}

/** Refuses `container[key]` for an integer validator when parseJson read it as `1.0` or `1e3`. */
function checkAt<T>(v: Validator<T>, container: object, key: string | number): T {
  if (v.integer && nonIntegerLiteral(container, key) !== undefined) throw new ParamIssue('', v.expected);
  return v.check((container as Record<string, unknown>)[key]);
}

export interface ParamSpec<T = unknown> {
  readonly name: string;
  readonly optional: boolean;
  readonly validator: Validator<T>;
}

/** A failed check below the top level: `path` is appended to the param name (`[2].index`). */
export class ParamIssue extends Error {
  constructor(
    readonly path: string,
    readonly expected: string,
  ) {
    super(`${path} must be ${expected}`);
  }
}

export function param<T>(name: string, validator: Validator<T>): ParamSpec<T> {
  return { name, optional: false, validator };
}

/** May be left out (or given as null); the handler then receives undefined. */
export function optionalParam<T>(name: string, validator: Validator<T>): ParamSpec<T | undefined> {
  return { name, optional: true, validator: validator as Validator<T | undefined> };
}

function invalidParam(spec: ParamSpec, position: number, detail: string): RpcMethodError {
  return new RpcMethodError(RPC_INVALID_PARAMS, `invalid params: ${spec.name} (param ${position}) ${detail}`, { param: spec.name, position });
}

/**
 * Checks `params` (already known to be an array) against `specs`; returns the handler's
 * arguments. Throws -32602 for too many params, a missing required one, or a bad value.
 */
export function checkParams(method: string, specs: readonly ParamSpec[], params: readonly unknown[]): unknown[] {
  if (params.length > specs.length) {
    const takes = specs.length === 0 ? 'takes no params' : `takes at most ${specs.length} param${specs.length === 1 ? '' : 's'} (${specs.map((s) => s.name).join(', ')})`;
    throw new RpcMethodError(RPC_INVALID_PARAMS, `invalid params: ${method} ${takes}, got ${params.length}`);
  }
  return specs.map((spec, i) => {
    const value = params[i];
    if (value === undefined || value === null) {
      if (spec.optional) return undefined;
      throw invalidParam(spec, i + 1, `is required and must be ${spec.validator.expected}`);
    }
    try {
      return checkAt(spec.validator, params, i);
    } catch (err) {
      if (err instanceof ParamIssue) throw invalidParam(spec, i + 1, err.path ? `${err.path} must be ${err.expected}` : `must be ${err.expected}`);
      throw err;
    }
  });
}

function validator<T>(expected: string, ok: (value: unknown) => boolean): Validator<T> {
  return {
    expected,
    check(value) {
      if (!ok(value)) throw new ParamIssue('', expected);
      return value as T;
    },
  };
}

/** A base58 string that decodes to exactly 20 bytes. */
export function address(): Validator<string> {
  return validator(`a base58 address of ${ADDRESS_LENGTH} bytes`, (v) => {
    if (typeof v !== 'string' || v.length === 0 || v.length > 40) return false;
    try {
      return base58Decode(v).length === ADDRESS_LENGTH;
    } catch {
      return false;
    }
  });
}

const HASH = /^[0-9a-f]{64}$/;

/** 64 lowercase hex characters, no 0x. */
export function hash(): Validator<string> {
  return validator('a hash of 64 lowercase hex characters without 0x', (v) => typeof v === 'string' && HASH.test(v));
}

const HEX = /^(?:[0-9a-f]{2})*$/;

/** Lowercase hex of an even length (no 0x), at most maxBytes bytes; empty is allowed. */
export function hex(opts: { maxBytes: number; minBytes?: number }): Validator<string> {
  const min = opts.minBytes ?? 0;
  const size = min > 0 ? `${min} to ${opts.maxBytes} bytes` : `at most ${opts.maxBytes} bytes`;
  return validator(
    `lowercase hex without 0x of ${size}`,
    (v) => typeof v === 'string' && v.length <= opts.maxBytes * 2 && v.length >= min * 2 && HEX.test(v),
  );
}

/** A non-negative safe integer given as a JSON integer literal (not `1.0` or `1e3`), up to `max` when given. */
export function uint(opts: { min?: number; max?: number } = {}): Validator<number> {
  const min = opts.min ?? 0;
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  const expected = min === 0 && opts.max === undefined ? `a non-negative integer no larger than ${max}` : `an integer from ${min} to ${max}`;
  return {
    expected,
    integer: true,
    check(value) {
      // -0 is a valid 0; a bigint is an integer literal beyond the safe range (see parseJson)
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) throw new ParamIssue('', expected);
      return value === 0 ? 0 : value;
    },
  };
}

/** A string; without maxLength the method itself bounds it (with its own, documented error). */
export function string(opts: { maxLength?: number; minLength?: number } = {}): Validator<string> {
  const min = opts.minLength ?? 0;
  const max = opts.maxLength ?? Infinity;
  const bound = max === Infinity ? (min > 0 ? `of at least ${min} characters` : '') : min > 0 ? `of ${min} to ${max} characters` : `of at most ${max} characters`;
  const expected = bound ? `a string ${bound}` : 'a string';
  return validator(expected, (v) => typeof v === 'string' && v.length <= max && v.length >= min);
}

/** A string that starts with `did:`; the DID rules themselves belong to protocol/did.ts. */
export function did(opts: { maxLength?: number } = {}): Validator<string> {
  const max = opts.maxLength ?? 256;
  return validator(`a DID string (did:...) of at most ${max} characters`, (v) => typeof v === 'string' && v.startsWith('did:') && v.length > 4 && v.length <= max);
}

/** `urn:ledger:credential:<uuid>` or the bare UUID. */
export function credentialId(): Validator<string> {
  return validator('a credential id: urn:ledger:credential:<uuid> or a UUID', (v) => {
    try {
      parseCredentialId(v);
      return true;
    } catch {
      return false;
    }
  });
}

/** One of the given strings; `expected` says what each means, e.g. '"latest" (the committed nonce) or "pending" (...)'. */
export function oneOf<const T extends string>(values: readonly T[], expected: string): Validator<T> {
  return validator(expected, (v) => typeof v === 'string' && (values as readonly string[]).includes(v));
}

export function boolean(): Validator<boolean> {
  return validator('a boolean', (v) => typeof v === 'boolean');
}

export function array<T>(of: Validator<T>, opts: { max: number }): Validator<T[]> {
  const expected = `an array of at most ${opts.max} items, each ${of.expected}`;
  return {
    expected,
    check(value) {
      if (!Array.isArray(value) || value.length > opts.max) throw new ParamIssue('', expected);
      return value.map((_item, i) => {
        try {
          return checkAt(of, value, i);
        } catch (err) {
          if (err instanceof ParamIssue) throw new ParamIssue(`[${i}]${err.path}`, err.expected);
          throw err;
        }
      });
    },
  };
}

type Shape = Record<string, Validator<unknown>>;
type ShapeValue<S extends Shape> = { [K in keyof S]: S[K] extends Validator<infer T> ? T : never };

/** An object with exactly these members, each required; unknown members are refused. */
export function object<S extends Shape>(shape: S): Validator<ShapeValue<S>> {
  const keys = Object.keys(shape);
  const expected = `an object with members ${keys.join(', ')}`;
  return {
    expected,
    check(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ParamIssue('', expected);
      const record = value as Record<string, unknown>;
      const extra = Object.keys(record).find((k) => !Object.hasOwn(shape, k));
      if (extra !== undefined) throw new ParamIssue('', `${expected} (unknown member ${JSON.stringify(extra.slice(0, 40))})`);
      const out: Record<string, unknown> = {};
      for (const k of keys) {
        const member = Object.hasOwn(record, k) ? record[k] : undefined;
        const v = shape[k]!;
        if (member === undefined) throw new ParamIssue(`.${k}`, `present and ${v.expected}`);
        try {
          out[k] = checkAt(v, record, k);
        } catch (err) {
          if (err instanceof ParamIssue) throw new ParamIssue(`.${k}${err.path}`, err.expected);
          throw err;
        }
      }
      return out as ShapeValue<S>;
    },
  };
}

/** Any JSON object, checked by the method itself (the request body limit bounds its size). */
export function jsonObject(): Validator<Record<string, unknown>> {
  const expected = 'a JSON object';
  return {
    expected,
    check(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ParamIssue('', expected);
      return value as Record<string, unknown>;
    },
  };
}
