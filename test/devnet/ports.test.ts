import t from 'tap';
import { createServer } from 'node:net';
import { ephemeralPortRange, freePortRange } from '../../node/devnet/ports.js';

t.test('ports are picked below the ephemeral range, so no outgoing connection can hold them', async (t) => {
  const [low, high] = ephemeralPortRange();
  t.ok(low > 1024 && high >= low, `ephemeral range ${low}-${high}`);
  for (let i = 0; i < 20; i++) {
    const base = await freePortRange(4);
    t.ok(base >= 20_000 && base + 4 <= low, `${base}..${base + 3} below ${low}`);
  }
});

t.test('a taken port is never handed out', async (t) => {
  const lowest = 21_000 + Math.floor(Math.random() * 5_000);
  const held = createServer();
  await new Promise<void>((resolve, reject) => held.once('error', reject).listen(lowest, '127.0.0.1', resolve));
  t.teardown(() => held.close());
  // with room for exactly two places, the one that overlaps the held port is never chosen
  for (let i = 0; i < 10; i++) t.equal(await freePortRange(1, lowest, lowest + 2), lowest + 1);
});

t.test('a range too small for n ports is refused', async (t) => {
  await t.rejects(freePortRange(5, 30_000, 30_003), RangeError);
});
