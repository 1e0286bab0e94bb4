import { invalid } from '../errors.js';

/** Canonical binary encoding: big-endian integers, u16-length-prefixed UTF-8 strings. */

export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;
const HEX_RE = /^(?:[0-9a-f]{2})*$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
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

export class ByteWriter {
  private chunks: Uint8Array[] = [];

  bytes(b: Uint8Array): this {
    this.chunks.push(Uint8Array.from(b));
    return this;
  }

  u8(n: number): this {
    return this.bytes(Uint8Array.of(n));
  }

  u16(n: number): this {
    if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new RangeError(`u16 out of range: ${n}`);
    return this.bytes(Uint8Array.of(n >> 8, n & 0xff));
  }

  u32(n: number): this {
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32 out of range: ${n}`);
    return this.uint(BigInt(n), 4);
  }

  u64(n: bigint): this {
    return this.uint(n, 8);
  }

  u128(n: bigint): this {
    return this.uint(n, 16);
  }

  /** A UTF-8 string prefixed by its byte length as u16. */
  str(s: string): this {
    const b = utf8(s);
    return this.u16(b.length).bytes(b);
  }

  private uint(n: bigint, width: number): this {
    if (n < 0n || n >> BigInt(width * 8) !== 0n) throw new RangeError(`u${width * 8} out of range: ${n}`);
    const out = new Uint8Array(width);
    let v = n;
    for (let i = width - 1; i >= 0; i--) {
      out[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    return this.bytes(out);
  }

  finish(): Uint8Array {
    return concatBytes(...this.chunks);
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
    return this.bytes(1)[0]!;
  }

  u16(): number {
    const b = this.bytes(2);
    return (b[0]! << 8) | b[1]!;
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
    let v = 0n;
    for (const byte of this.bytes(width)) v = (v << 8n) | BigInt(byte);
    return v;
  }

  get remaining(): number {
    return this.buf.length - this.at;
  }

  end(): void {
    if (this.remaining !== 0) throw invalid('TRAILING_BYTES', `${this.remaining} unexpected bytes after the end of the encoding`);
  }
}
