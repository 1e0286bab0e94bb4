import t from 'tap';
import { encodeFrame, FRAME_HEADER_BYTES, FrameDecoder } from '../../node/network/framing.js';
import { bytesEqual } from '../../node/protocol/bytes.js';
import { bigFrame, chunked } from '../../bench/lib/codec-inputs.js';

const payloads = [new Uint8Array(0), Uint8Array.of(1), new Uint8Array(300).fill(7), new Uint8Array(70_000).map((_, i) => i % 256)];
const stream = (() => {
  const parts = payloads.map(encodeFrame);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) (out.set(p, off), (off += p.length));
  return out;
})();

t.test('frames survive any split of the byte stream', async (t) => {
  for (const size of [1, 2, 3, 5, 4096, 65_536, stream.length]) {
    const d = new FrameDecoder(1 << 20);
    const got: Uint8Array[] = [];
    for (let i = 0; i < stream.length; i += size) got.push(...d.push(stream.subarray(i, i + size)));
    t.same(got, payloads, `chunks of ${size}`);
    t.equal(d.pending, 0);
  }
});

t.test('a length above the cap is refused before any body arrives', async (t) => {
  const d = new FrameDecoder(1024);
  t.same(d.push(encodeFrame(new Uint8Array(1024))).length, 1, 'exactly the cap passes');
  const header = encodeFrame(new Uint8Array(1025)).subarray(0, 4);
  t.throws(() => d.push(header), { code: 'FRAME_TOO_LARGE', kind: 'limit' });
});

// how fast, where copying every chunk again would be quadratic: npm run bench:codec
t.test('a 16 MiB frame in 4 KiB chunks decodes whole', async (t) => {
  const big = bigFrame(16 * 1024 * 1024);
  const d = new FrameDecoder(17 * 1024 * 1024);
  const frames: Uint8Array[] = [];
  for (const chunk of chunked(big, 4096)) frames.push(...d.push(chunk));
  t.equal(frames.length, 1);
  t.ok(bytesEqual(frames[0]!, big.subarray(FRAME_HEADER_BYTES)), 'the body, byte for byte');
  t.equal(d.pending, 0);
});
