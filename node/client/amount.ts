import { parseTokens as parseTokenText } from '../protocol/amount.js';

/**
 * Tokens to smallest units: "1.5" or 1.5 -> 150000000n (8 decimals). A number is read through
 * its shortest decimal form, `String(n)`, so 0.1 is exactly 0.1 tokens and 1e-8 is 1 unit (an
 * exponent form is written out, not rounded). NaN, an infinity or a negative number is a
 * RangeError; more than 8 decimals is refused (LedgerError BAD_AMOUNT), never rounded. Amounts
 * beyond 2^53 units lose digits as numbers: pass those as strings.
 */
export function parseTokens(value: string | number): bigint {
  if (typeof value === 'string') return parseTokenText(value);
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`a token amount must be a finite number of at least 0, got ${value}`);
  return parseTokenText(plainDecimal(String(value)));
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
