import t from 'tap';
import { encodeFrame, FrameDecoder } from '../../node/network/framing.js';

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

t.test('a 16 MiB frame in 4 KiB chunks decodes in linear time', async (t) => {
  const big = encodeFrame(new Uint8Array(16 * 1024 * 1024).fill(3));
  const d = new FrameDecoder(17 * 1024 * 1024);
  const start = performance.now();
  let frames: Uint8Array[] = [];
  for (let i = 0; i < big.length; i += 4096) frames = frames.concat(d.push(big.subarray(i, i + 4096)));
  const ms = performance.now() - start;
  t.equal(frames.length, 1);
  t.equal(frames[0]!.length, 16 * 1024 * 1024);
  // re-concatenating per chunk would copy about 34 GB here
  t.ok(ms < 5_000, `took ${ms.toFixed(0)} ms`);
});
