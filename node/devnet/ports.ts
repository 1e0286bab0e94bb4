import { createServer } from 'node:net';

/** The first of `n` consecutive ports on 127.0.0.1 that are free now (each checked by binding it). */
export async function freePortRange(n: number, lowest = 20_000, highest = 60_000): Promise<number> {
  for (;;) {
    const base = lowest + Math.floor(Math.random() * (highest - lowest - n));
    const free = await Promise.all(Array.from({ length: n }, (_, i) => canBind(base + i)));
    if (free.every(Boolean)) return base;
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
