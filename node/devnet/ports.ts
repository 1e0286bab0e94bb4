import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The first of `n` consecutive ports in [lowest, highest) on 127.0.0.1 that are free now (each
 * checked by binding it).
 * They are picked below the kernel's ephemeral range: a port in that range can be taken by any
 * outgoing connection while its node is down, and the node's restart then fails with EADDRINUSE.
 */
export async function freePortRange(n: number, lowest = 20_000, highest = Math.min(60_000, ephemeralPortRange()[0])): Promise<number> {
  if (highest - lowest < n) throw new RangeError(`no room for ${n} ports between ${lowest} and ${highest}`);
  for (let attempt = 0; ; attempt++) {
    if (attempt === 10_000) throw new Error(`no ${n} consecutive free ports between ${lowest} and ${highest}`);
    const base = lowest + Math.floor(Math.random() * (highest - lowest - n + 1));
    const ports = Array.from({ length: n }, (_, i) => base + i);
    if (ports.some((p) => handedOut.has(p))) continue;
    const free = await Promise.all(ports.map(canBind));
    if (!free.every(Boolean) || ports.some((p) => handedOut.has(p))) continue;
    for (const p of ports) handedOut.add(p);
    return base;
  }
}

/** Ports this process handed out: free when checked, but maybe not bound yet (two calls in a row must not overlap). */
const handedOut = new Set<number>();

/** The kernel's range for outgoing connections' local ports: Linux's own, else the IANA range. */
export function ephemeralPortRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low! > 1024) return [low!, high!];
  } catch {
    // not Linux
  }
  return [49_152, 65_535];
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    // a connection that lands in the moment the port is held (a node redialing a peer that used
    // it) is dropped at once: open, it would keep close() from calling back
    const srv = createServer((socket) => socket.destroy());
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
