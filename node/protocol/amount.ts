import { invalid } from '../errors.js';
import { U128_MAX } from './bytes.js';

/** The native token has 8 decimals; every amount is an integer number of smallest units. */
export const DECIMALS = 8;
export const UNIT = 10n ** BigInt(DECIMALS);
export const NATIVE_TOKEN = { symbol: 'LGR', name: 'Ledger', decimals: DECIMALS } as const;

const DECIMAL_RE = /^(\d{1,30})(?:\.(\d{1,8}))?$/;

/**
 * Tokens to smallest units: "1.5" or 1.5 -> 150000000n. For humans (CLI, config, dApps); the wire
 * always carries integers. A number is read through its shortest decimal form, `String(n)`, so 0.1
 * is exactly 0.1 tokens and 1e-8 is 1 unit (an exponent form is written out, not rounded). NaN, an
 * infinity or a negative number is a RangeError; more than 8 decimals is refused (BAD_AMOUNT),
 * never rounded. Amounts beyond 2^53 units lose digits as numbers: pass those as strings.
 */
export function parseTokens(value: string | number): bigint {
  if (typeof value === 'number' && (!Number.isFinite(value) || value < 0)) throw new RangeError(`a token amount must be a finite number of at least 0, got ${value}`);
  const text = typeof value === 'number' ? plainDecimal(String(value)) : value;
  const m = DECIMAL_RE.exec(text.trim());
  if (!m) throw invalid('BAD_AMOUNT', `not a token amount with at most ${DECIMALS} decimals: ${JSON.stringify(text)}`);
  const units = BigInt(m[1]!) * UNIT + BigInt((m[2] ?? '').padEnd(DECIMALS, '0'));
  if (units > U128_MAX) throw invalid('BAD_AMOUNT', 'amount is too large');
  return units;
}

/** "1.5e-7" -> "0.00000015", "1e+21" -> "1000000000000000000000": the same digits, the point moved. */
function plainDecimal(text: string): string {
  const m = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const digits = m[1]! + (m[2] ?? '');
  const point = m[1]!.length + Number(m[3]);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** 150000000n -> "1.5" */
export function formatTokens(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const whole = abs / UNIT;
  const frac = (abs % UNIT).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return sign + whole.toString() + (frac ? '.' + frac : '');
}

/**
 * An integer amount from JSON: a safe-integer number, a bigint (the lossless parser yields one
 * beyond 2^53) or a string of decimal digits (for clients whose JSON cannot carry big integers).
 */
export function amountFromJson(value: unknown, what: string, max = U128_MAX): bigint {
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^\d{1,39}$/.test(value)) n = BigInt(value);
  else throw invalid('BAD_AMOUNT', `${what} must be a non-negative integer in smallest units`);
  if (n < 0n || n > max) throw invalid('BAD_AMOUNT', `${what} is out of range (0 to ${max})`);
  return n;
}
