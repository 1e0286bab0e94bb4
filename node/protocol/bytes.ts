import { invalid } from '../errors.js';

/** Canonical binary encoding: big-endian integers, u16-length-prefixed UTF-8 strings. */

export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;
const HEX_RE = /^(?:[0-9a-f]{2})*$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

// Buffer's own hex encoder, called on the array as it is: wrapping it in a Buffer first costs an
// allocation per call, and state keys are hexed several times for every read.
const hexSlice = (Buffer.prototype as unknown as { hexSlice(this: Uint8Array, start: number, end: number): string }).hexSlice;

export function toHex(bytes: Uint8Array): string {
  return hexSlice.call(bytes, 0, bytes.length);
}

/** Lowercase hex with no 0x prefix, as every hash on this chain is written. */
export function fromHex(hex: string, expectedLength?: number, what = 'hex'): Uint8Array {
  if (typeof hex !== 'string' || !HEX_RE.test(hex)) throw invalid('BAD_HEX', `${what} must be lowercase hex with no 0x prefix`);
  const bytes = new Uint8Array(Buffer.from(hex, 'hex'));
  if (expectedLength !== undefined && bytes.length !== expectedLength) {
    throw invalid('BAD_HEX', `${what} must be ${expectedLength} bytes (${expectedLength * 2} hex characters), got ${bytes.length}`);
  }
  return bytes;
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

// Big-endian integers by hand, and 64-bit ones through one shared view: a DataView per writer or
// reader costs more than the encoding of a state key or an account.
const scratch = new Uint8Array(8);
const scratchView = new DataView(scratch.buffer);

function putU32(buf: Uint8Array, at: number, n: number): void {
  buf[at] = n >>> 24;
  buf[at + 1] = (n >>> 16) & 0xff;
  buf[at + 2] = (n >>> 8) & 0xff;
  buf[at + 3] = n & 0xff;
}

function getU32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

function putU64(buf: Uint8Array, at: number, n: bigint): void {
  scratchView.setBigUint64(0, n);
  for (let i = 0; i < 8; i++) buf[at + i] = scratch[i]!;
}

function getU64(buf: Uint8Array, at: number): bigint {
  for (let i = 0; i < 8; i++) scratch[i] = buf[at + i]!;
  return scratchView.getBigUint64(0);
}

/**
 * Appends into one growing buffer: encoding is on every hot path (hashing, signing bytes, wire
 * messages), so values are written in place rather than as a chunk each and a final join.
 */
export class ByteWriter {
  // Most encodings (state keys, accounts, digests) fit in 64 bytes.
  private buf = new Uint8Array(64);
  private at = 0;

  private room(n: number): number {
    const at = this.at;
    if (at + n > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, at + n));
      next.set(this.buf.subarray(0, at));
      this.buf = next;
    }
    this.at = at + n;
    return at;
  }

  bytes(b: Uint8Array): this {
    const at = this.room(b.length); // first: it may replace this.buf
    this.buf.set(b, at);
    return this;
  }

  u8(n: number): this {
    if (!Number.isInteger(n) || n < 0 || n > 0xff) throw new RangeError(`u8 out of range: ${n}`);
    const at = this.room(1);
    this.buf[at] = n;
    return this;
  }

  u16(n: number): this {
    if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new RangeError(`u16 out of range: ${n}`);
    const at = this.room(2);
    this.buf[at] = n >>> 8;
    this.buf[at + 1] = n & 0xff;
    return this;
  }

  u32(n: number): this {
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32 out of range: ${n}`);
    const at = this.room(4);
    putU32(this.buf, at, n);
    return this;
  }

  u64(n: bigint): this {
    if (n < 0n || n > U64_MAX) throw new RangeError(`u64 out of range: ${n}`);
    const at = this.room(8);
    putU64(this.buf, at, n);
    return this;
  }

  u128(n: bigint): this {
    if (n < 0n || n > U128_MAX) throw new RangeError(`u128 out of range: ${n}`);
    const at = this.room(16);
    putU64(this.buf, at, n >> 64n);
    putU64(this.buf, at + 8, n & U64_MAX);
    return this;
  }

  /** A UTF-8 string prefixed by its byte length as u16. */
  str(s: string): this {
    const b = utf8(s);
    return this.u16(b.length).bytes(b);
  }

  /** The bytes written, as a new array of their exact length. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.at);
  }
}

export class ByteReader {
  private at = 0;
  constructor(private readonly buf: Uint8Array) {}

  private need(n: number): void {
    if (this.at + n > this.buf.length) throw invalid('TRUNCATED', `encoding ends early: needed ${n} more bytes at offset ${this.at}`);
  }

  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.slice(this.at, this.at + n);
    this.at += n;
    return out;
  }

  u8(): number {
    this.need(1);
    return this.buf[this.at++]!;
  }

  u16(): number {
    this.need(2);
    const v = (this.buf[this.at]! << 8) | this.buf[this.at + 1]!;
    this.at += 2;
    return v;
  }

  u32(): number {
    return Number(this.uint(4));
  }

  u64(): bigint {
    return this.uint(8);
  }

  u128(): bigint {
    return this.uint(16);
  }

  str(): string {
    const b = this.bytes(this.u16());
    try {
      return decoder.decode(b);
    } catch {
      throw invalid('BAD_UTF8', 'string is not valid UTF-8');
    }
  }

  private uint(width: number): bigint {
    this.need(width);
    const at = this.at;
    this.at += width;
    if (width === 4) return BigInt(getU32(this.buf, at));
    if (width === 8) return getU64(this.buf, at);
    return (getU64(this.buf, at) << 64n) | getU64(this.buf, at + 8);
  }

  get remaining(): number {
    return this.buf.length - this.at;
  }

  end(): void {
    if (this.remaining !== 0) throw invalid('TRAILING_BYTES', `${this.remaining} unexpected bytes after the end of the encoding`);
  }
}
