import t from 'tap';
import { ByteReader, ByteWriter, concatBytes, toHex, U128_MAX, U64_MAX } from '../../node/protocol/bytes.js';

t.test('ByteWriter: big-endian integers and length-prefixed strings, byte for byte', async (t) => {
  const w = new ByteWriter().u8(0xab).u16(0x0102).u32(0x03040506).u64(0x0708090a0b0c0d0en).u128((1n << 127n) | 5n).str('é');
  t.equal(toHex(w.finish()), 'ab' + '0102' + '03040506' + '0708090a0b0c0d0e' + '80000000000000000000000000000005' + '0002c3a9');
  t.equal(toHex(new ByteWriter().u64(U64_MAX).u128(U128_MAX).finish()), 'ff'.repeat(24));
});

t.test('ByteWriter grows past its first buffer without losing what it wrote', async (t) => {
  const parts: Uint8Array[] = [];
  const w = new ByteWriter();
  for (let i = 0; i < 300; i++) {
    const chunk = Uint8Array.from({ length: i % 7 }, (_, j) => (i + j) & 0xff);
    w.u16(i).bytes(chunk);
    parts.push(Uint8Array.of(i >> 8, i & 0xff), chunk);
  }
  const big = new Uint8Array(5000).fill(9);
  w.bytes(big).u64(42n);
  parts.push(big, Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 42));
  t.same(w.finish(), concatBytes(...parts));
});

t.test('ByteWriter refuses values out of range', async (t) => {
  t.throws(() => new ByteWriter().u8(256), RangeError);
  t.throws(() => new ByteWriter().u16(-1), RangeError);
  t.throws(() => new ByteWriter().u32(2 ** 32), RangeError);
  t.throws(() => new ByteWriter().u64(U64_MAX + 1n), RangeError);
  t.throws(() => new ByteWriter().u64(-1n), RangeError);
  t.throws(() => new ByteWriter().u128(U128_MAX + 1n), RangeError);
});

t.test('ByteReader reads back what ByteWriter wrote, from an offset into a larger buffer', async (t) => {
  const body = new ByteWriter().u8(7).u16(513).u32(70000).u64(U64_MAX).u128(U128_MAX - 1n).str('ledger').finish();
  const framed = concatBytes(Uint8Array.of(1, 2, 3), body);
  const r = new ByteReader(framed.subarray(3));
  t.equal(r.u8(), 7);
  t.equal(r.u16(), 513);
  t.equal(r.u32(), 70000);
  t.equal(r.u64(), U64_MAX);
  t.equal(r.u128(), U128_MAX - 1n);
  t.equal(r.str(), 'ledger');
  r.end();
  t.throws(() => new ByteReader(Uint8Array.of(1)).u16(), { code: 'TRUNCATED' });
});

t.test('the largest and smallest integers of each width round-trip, also across the first buffer', async (t) => {
  const w = new ByteWriter().bytes(new Uint8Array(61)).u32(0xffffffff).u64(U64_MAX).u32(0).u64(1n).u128(U128_MAX).u16(0xffff);
  const r = new ByteReader(w.finish());
  t.same(r.bytes(61), new Uint8Array(61));
  t.equal(r.u32(), 0xffffffff, 'the top bit of a u32 does not read as a sign');
  t.equal(r.u64(), U64_MAX);
  t.equal(r.u32(), 0);
  t.equal(r.u64(), 1n);
  t.equal(r.u128(), U128_MAX);
  t.equal(r.u16(), 0xffff);
  r.end();
});

t.test('toHex reads exactly the bytes of a view into a larger buffer', async (t) => {
  const whole = Uint8Array.from({ length: 40 }, (_, i) => i);
  t.equal(toHex(whole.subarray(3, 7)), '03040506');
  t.equal(toHex(new Uint8Array(0)), '');
  t.equal(toHex(Buffer.from([0xde, 0xad])), 'dead');
});
