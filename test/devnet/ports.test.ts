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
  for (let i = 0; i < 5; i++) {
    const lowest = 21_000 + i * 1_000 + Math.floor(Math.random() * 900);
    // a connection from anything else on the machine (a node of another test redialing a peer)
    // is dropped at once: it would keep close() from ever calling back
    const held = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => held.once('error', reject).listen(lowest, '127.0.0.1', resolve));
    // with room for exactly two places, the one that overlaps the held port is never chosen
    t.equal(await freePortRange(1, lowest, lowest + 2), lowest + 1);
    await new Promise((r) => held.close(r));
  }
});

/** Binds and closes: whether `port` is free now (checked here, not through freePortRange, which would mark it handed out). */
async function bindable(port: number): Promise<boolean> {
  const srv = createServer((socket) => socket.destroy());
  const ok = await new Promise<boolean>((resolve) => srv.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => resolve(true)));
  if (ok) await new Promise((r) => srv.close(r));
  return ok;
}

t.test('a range too small for n ports is refused, and one with no room left fails rather than spins', async (t) => {
  await t.rejects(freePortRange(5, 30_000, 30_003), RangeError);
  // Below 20,000, where freePortRange's default range starts: the other tests here have handed out
  // ports above it (this process never hands a port out twice), and so may a test file running beside.
  let lowest: number;
  do lowest = 15_000 + Math.floor(Math.random() * 4_000);
  while (!(await bindable(lowest)) || !(await bindable(lowest + 1)) || !(await bindable(lowest + 2)));
  const base = await freePortRange(3, lowest, lowest + 3);
  t.equal(base, lowest);
  await t.rejects(freePortRange(3, lowest, lowest + 3), /no 3 consecutive free ports/);
});

t.test('ranges handed out in a row never overlap, though nothing is bound yet', async (t) => {
  const lowest = 27_000 + Math.floor(Math.random() * 1_000);
  const seen = new Set<number>();
  for (let i = 0; i < 6; i++) {
    const base = await freePortRange(5, lowest, lowest + 200);
    for (let p = base; p < base + 5; p++) {
      t.notOk(seen.has(p), `port ${p} handed out once`);
      seen.add(p);
    }
  }
});
