import { LedgerError } from '../errors.js';

/**
 * Lossless JSON (RFC 8259) for the wire. Amounts are bigint and can exceed 2^53, so they must
 * never pass through a JS number:
 * - parseJson: an integer literal (no fraction, no exponent) outside Number.isSafeInteger becomes
 *   a bigint; every other number is a number. `-0` parses to -0.
 * - stringifyJson: a bigint is written as a bare integer literal.
 *
 * Strictness choices (docs/rpc.md, "Transport and errors"):
 * - duplicate keys in one object are rejected: RFC 8259 leaves their meaning open, and two
 *   readers that pick different copies can be made to disagree about a signed transaction;
 * - the key `__proto__` is rejected, so a parsed object can never change a prototype when a
 *   consumer later copies it with Object.assign or a plain assignment;
 * - nesting is limited (default 64 levels);
 * - a number literal whose value overflows to Infinity (`1e400`) is rejected;
 * - a byte order mark and any whitespace other than space, tab, CR and LF are rejected;
 * - strings must be well-formed Unicode: a lone surrogate, escaped (`"\uD800"`) or raw, is
 *   rejected, since it has no UTF-8 form and would be stored as U+FFFD.
 * A number written with a fraction or exponent (`1.0`, `1e3`, `1e-400`) is still a number, but
 * the parser remembers its literal: integer fields refuse it through nonIntegerLiteral or
 * findNonIntegerLiteral rather than read `1e-400` as 0.
 * Errors are LedgerError `JSON_PARSE` with `data.position`, the UTF-8 byte offset of the fault.
 */

export interface ParseJsonOptions {
  /** maximum nesting of arrays and objects; default 64 */
  maxDepth?: number;
}

export const DEFAULT_MAX_JSON_DEPTH = 64;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

// container -> key -> source literal, for numbers written with a fraction or exponent
const decimalLiterals = new WeakMap<object, Map<string, string>>();

function noteDecimal(container: object, key: string, literal: string): void {
  let m = decimalLiterals.get(container);
  if (!m) decimalLiterals.set(container, (m = new Map()));
  m.set(key, literal);
}

/** The literal of `container[key]` when parseJson read it from a number with a fraction or exponent. */
export function nonIntegerLiteral(container: object, key: string | number): string | undefined {
  return decimalLiterals.get(container)?.get(String(key));
}

/**
 * The first number under `value` that parseJson read from a literal with a fraction or exponent,
 * with its path (`payload.Transfer.amount`, `signature[3]`), or undefined when there is none.
 */
export function findNonIntegerLiteral(value: unknown, path = '', seen = new Set<object>()): { path: string; literal: string } | undefined {
  // a caller's own object may be cyclic; parsed ones never are
  if (typeof value !== 'object' || value === null || seen.has(value)) return undefined;
  seen.add(value);
  const isArray = Array.isArray(value);
  const literals = decimalLiterals.get(value);
  for (const key of Object.keys(value)) {
    const at = isArray ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    const literal = literals?.get(key);
    if (literal !== undefined) return { path: at, literal };
    const inner = findNonIntegerLiteral((value as Record<string, unknown>)[key], at, seen);
    if (inner) return inner;
  }
  return undefined;
}

// a high surrogate not followed by a low one, or a low one not preceded by a high one
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The index of the first lone surrogate in `s`, or -1 when `s` is well-formed Unicode. */
export function loneSurrogateIndex(s: string): number {
  const m = LONE_SURROGATE.exec(s);
  return m ? m.index : -1;
}

export function parseJson(text: string, opts: ParseJsonOptions = {}): unknown {
  const parser = new Parser(text, opts.maxDepth ?? DEFAULT_MAX_JSON_DEPTH);
  parser.skipWhitespace();
  const value = parser.parseValue();
  parser.skipWhitespace();
  if (parser.pos < text.length) parser.fail('unexpected data after the JSON value');
  return value;
}

class Parser {
  pos = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  fail(what: string, at = this.pos): never {
    const position = Buffer.byteLength(this.text.slice(0, at), 'utf8');
    throw new LedgerError('JSON_PARSE', `invalid JSON at byte ${position}: ${what}`, 'invalid', { position });
  }

  private unexpected(): never {
    if (this.pos >= this.text.length) this.fail('unexpected end of input');
    const c = this.text.charCodeAt(this.pos);
    const shown = c < 0x20 || c > 0x7e ? `U+${c.toString(16).toUpperCase().padStart(4, '0')}` : `'${this.text[this.pos]}'`;
    this.fail(`unexpected character ${shown}`);
  }

  skipWhitespace(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    this.pos = p;
  }

  parseValue(): unknown {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b: // {
        return this.parseObject();
      case 0x5b: // [
        return this.parseArray();
      case 0x22: // "
        return this.parseString();
      case 0x74: // t
        return this.literal('true', true);
      case 0x66: // f
        return this.literal('false', false);
      case 0x6e: // n
        return this.literal('null', null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
        return this.unexpected();
    }
  }

  /** Stores the next value at `container[key]`, noting a number written with a fraction or exponent. */
  private pushValue(container: Record<string, unknown> | unknown[], key: string): void {
    const start = this.pos;
    const value = this.parseValue();
    (container as Record<string, unknown>)[key] = value;
    if (typeof value === 'number') {
      const literal = this.text.slice(start, this.pos);
      if (/[.eE]/.test(literal)) noteDecimal(container, key, literal);
    }
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.unexpected();
    this.pos += word.length;
    return value;
  }

  private enter(): void {
    if (++this.depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth} levels`);
  }

  private parseArray(): unknown[] {
    this.enter();
    this.pos++;
    const out: unknown[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      this.pushValue(out, String(out.length));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
      } else if (c === 0x5d) {
        this.pos++;
        this.depth--;
        return out;
      } else {
        this.unexpected();
      }
    }
  }

  private parseObject(): Record<string, unknown> {
    this.enter();
    this.pos++;
    const out: Record<string, unknown> = {};
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x22) this.unexpected();
      const keyAt = this.pos;
      const key = this.parseString();
      if (key === '__proto__') this.fail('the key "__proto__" is not allowed', keyAt);
      if (Object.hasOwn(out, key)) this.fail(`duplicate key ${JSON.stringify(key.slice(0, 80))}`, keyAt);
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.unexpected();
      this.pos++;
      this.skipWhitespace();
      this.pushValue(out, key);
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
      } else if (c === 0x7d) {
        this.pos++;
        this.depth--;
        return out;
      } else {
        this.unexpected();
      }
    }
  }

  private parseString(): string {
    const t = this.text;
    const start = ++this.pos;
    // Fast path: no escapes, so the value is a slice of the input.
    for (let p = start; p < t.length; p++) {
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return this.wellFormed(t.slice(start, p), start);
      }
      if (c === 0x5c) return this.parseEscapedString(start, p);
      if (c < 0x20) this.fail(`unescaped control character U+${c.toString(16).toUpperCase().padStart(4, '0')} in a string`, p);
    }
    return this.fail('unterminated string', t.length);
  }

  /** `s` is the decoded string that starts at `start`; a lone surrogate is refused there. */
  private wellFormed(s: string, start: number): string {
    const i = loneSurrogateIndex(s);
    if (i >= 0) {
      const unit = s.charCodeAt(i).toString(16).toUpperCase();
      this.fail(`string is not well-formed Unicode (lone surrogate U+${unit})`, start - 1);
    }
    return s;
  }

  private parseEscapedString(start: number, firstEscape: number): string {
    const t = this.text;
    let out = t.slice(start, firstEscape);
    let p = firstEscape;
    for (;;) {
      if (p >= t.length) this.fail('unterminated string', p);
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return this.wellFormed(out, start);
      }
      if (c < 0x20) this.fail(`unescaped control character U+${c.toString(16).toUpperCase().padStart(4, '0')} in a string`, p);
      if (c !== 0x5c) {
        // copy a run of plain characters at once
        let q = p + 1;
        while (q < t.length) {
          const d = t.charCodeAt(q);
          if (d === 0x22 || d === 0x5c || d < 0x20) break;
          q++;
        }
        out += t.slice(p, q);
        p = q;
        continue;
      }
      const e = t.charCodeAt(p + 1);
      switch (e) {
        case 0x22: out += '"'; break;
        case 0x5c: out += '\\'; break;
        case 0x2f: out += '/'; break;
        case 0x62: out += '\b'; break;
        case 0x66: out += '\f'; break;
        case 0x6e: out += '\n'; break;
        case 0x72: out += '\r'; break;
        case 0x74: out += '\t'; break;
        case 0x75: {
          const hex = t.slice(p + 2, p + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('a \\u escape needs four hex digits', p);
          out += String.fromCharCode(parseInt(hex, 16));
          p += 6;
          continue;
        }
        default:
          this.fail(p + 1 >= t.length ? 'unterminated string' : `invalid escape \\${t[p + 1]}`, p);
      }
      p += 2;
    }
  }

  private parseNumber(): number | bigint {
    const t = this.text;
    const start = this.pos;
    let p = start;
    if (t.charCodeAt(p) === 0x2d) p++;
    const intStart = p;
    const first = t.charCodeAt(p);
    if (first === 0x30) {
      p++;
      const d = t.charCodeAt(p);
      if (d >= 0x30 && d <= 0x39) this.fail('leading zeros are not allowed', p);
    } else if (first >= 0x31 && first <= 0x39) {
      while (isDigit(t.charCodeAt(p))) p++;
    } else {
      this.pos = p;
      this.unexpected();
    }
    const intDigits = p - intStart;
    let integer = true;
    if (t.charCodeAt(p) === 0x2e) {
      integer = false;
      p++;
      if (!isDigit(t.charCodeAt(p))) {
        this.pos = p;
        this.fail('a digit must follow the decimal point');
      }
      while (isDigit(t.charCodeAt(p))) p++;
    }
    const e = t.charCodeAt(p);
    if (e === 0x65 || e === 0x45) {
      integer = false;
      p++;
      const s = t.charCodeAt(p);
      if (s === 0x2b || s === 0x2d) p++;
      if (!isDigit(t.charCodeAt(p))) {
        this.pos = p;
        this.fail('a digit must follow the exponent');
      }
      while (isDigit(t.charCodeAt(p))) p++;
    }
    this.pos = p;
    const literal = t.slice(start, p);
    // 15 digits always fit in a safe integer; longer ones go through BigInt to decide.
    if (integer && intDigits > 15) {
      const big = BigInt(literal);
      return big > MAX_SAFE || big < -MAX_SAFE ? big : Number(big);
    }
    const n = Number(literal);
    if (!Number.isFinite(n)) this.fail(`number ${literal.slice(0, 40)} is out of range`, start);
    return n;
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * JSON text with bigint written as bare integer literals. Follows JSON.stringify for the rest
 * (toJSON is honoured, `undefined` members are left out, `undefined` array items become null,
 * -0 is written as 0) but throws LedgerError `JSON_STRINGIFY` where JSON.stringify would silently
 * lose data: non-finite numbers, byte arrays (convert them to hex first), Map, Set, functions,
 * symbols and cycles.
 */
export function stringifyJson(value: unknown): string {
  const out: string[] = [];
  if (!write(value, '', new Set(), out)) throw stringifyError(`cannot encode ${typeof value} as JSON`);
  return out.join('');
}

function stringifyError(message: string): LedgerError {
  return new LedgerError('JSON_STRINGIFY', message, 'internal');
}

function at(key: string): string {
  return key ? ` (at key ${JSON.stringify(key)})` : '';
}

// Strings that need no escaping (the common case) skip the call into JSON.stringify.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

/** Appends the encoding of `value` to `out`; returns false, writing nothing, for `undefined`. */
function write(value: unknown, key: string, ancestors: Set<object>, out: string[]): boolean {
  switch (typeof value) {
    case 'string':
      out.push(quote(value));
      return true;
    case 'number':
      if (!Number.isFinite(value)) throw stringifyError(`cannot encode ${value} as JSON${at(key)}`);
      out.push(String(value));
      return true;
    case 'bigint':
      out.push(value.toString());
      return true;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return true;
    case 'undefined':
      return false;
    case 'function':
    case 'symbol':
      throw stringifyError(`cannot encode a ${typeof value} as JSON${at(key)}`);
  }
  if (value === null) {
    out.push('null');
    return true;
  }
  const obj = value as object;
  if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') {
    return write((obj as { toJSON(k: string): unknown }).toJSON(key), key, ancestors, out);
  }
  if (ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) throw stringifyError(`cannot encode bytes as JSON${at(key)}; convert them to hex or base58 first`);
  if (obj instanceof Map || obj instanceof Set) throw stringifyError(`cannot encode a ${obj.constructor.name} as JSON${at(key)}; convert it to an array or object first`);
  if (ancestors.has(obj)) throw stringifyError(`cannot encode a cyclic structure as JSON${at(key)}`);
  ancestors.add(obj);
  if (Array.isArray(obj)) {
    out.push('[');
    for (let i = 0; i < obj.length; i++) {
      if (i > 0) out.push(',');
      if (!write(obj[i], String(i), ancestors, out)) out.push('null');
    }
    out.push(']');
  } else {
    out.push('{');
    let first = true;
    for (const k of Object.keys(obj)) {
      const v = (obj as Record<string, unknown>)[k];
      if (v === undefined) continue;
      const mark = out.length;
      out.push(first ? quote(k) + ':' : ',' + quote(k) + ':');
      // a toJSON that returns undefined drops the member, as in JSON.stringify
      if (write(v, k, ancestors, out)) first = false;
      else out.length = mark;
    }
    out.push('}');
  }
  ancestors.delete(obj);
  return true;
}
