import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * The pieces of bench/connections: a flood of idle TCP connections (connected, never a byte
 * sent), a JSON-RPC caller on one keep-alive connection, a caller that opens a fresh connection
 * per call, and readings of the node process (/proc) and of its /metrics.
 */

export interface Flood {
  /** connections whose TCP handshake completed */
  established: number;
  /** connections that failed to connect */
  failed: number;
  /** HTTP status lines the server answered on flood connections (a 503 refusal), by status */
  answered: Record<string, number>;
  /** still open on this side now */
  open(): number;
  close(): void;
}

/**
 * Opens `n` connections to 127.0.0.1:`port` from the `sources` addresses in turn (127.0.0.x: on
 * Linux every loopback address is local), `parallel` handshakes at a time so that the listen
 * backlog does not overflow, and keeps them open without sending anything.
 */
export async function openFlood(port: number, n: number, sources: readonly string[], parallel = 200): Promise<Flood> {
  const sockets = new Set<Socket>();
  const flood: Flood = {
    established: 0,
    failed: 0,
    answered: {},
    open: () => sockets.size,
    close: () => sockets.forEach((s) => s.destroy()),
  };
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress: sources[i % sources.length] });
      socket.setEncoding('latin1');
      socket.once('connect', () => {
        flood.established++;
        sockets.add(socket);
        resolve();
      });
      socket.on('data', (text: string) => {
        const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
        if (status) flood.answered[status] = (flood.answered[status] ?? 0) + 1;
      });
      socket.on('error', () => undefined);
      socket.once('close', () => {
        if (!sockets.delete(socket)) flood.failed++;
        resolve();
      });
    });
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) await one(next++);
    }),
  );
  return flood;
}

/** The loopback addresses a flood may come from: 127.0.0.2 and on, if this machine lets a socket bind them. */
export async function loopbackSources(count: number, port: number): Promise<string[]> {
  const probe = await new Promise<boolean>((resolve) => {
    const s = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  if (!probe) return ['127.0.0.1'];
  return Array.from({ length: count }, (_, i) => `127.0.0.${i + 2}`);
}

export interface Call {
  ms: number;
  status: number;
}

/** POSTs `body` to `url` on `agent` (one keep-alive connection, or a fresh one with agent false). */
export function post(url: string, body: string, agent: Agent | false): Promise<Call> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0 }));
    });
    // a connection refused or reset before an answer
    req.on('error', () => resolve({ ms: performance.now() - t0, status: 0 }));
    req.end(body);
  });
}

/** GETs `url` on `agent` and returns the body. */
export function getText(url: string, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

/** One sample of a Prometheus text: the value of `name{labels}`, 0 when absent. */
export function sample(metrics: string, name: string, labels: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** A process's resident memory (MiB) and open file descriptors, from /proc. */
export function processUse(pid: number): { rss_mib: number; fds: number } {
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { rss_mib: Math.round(Number(rss) / 1024), fds: readdirSync(`/proc/${pid}/fd`).length };
}

/** This process's open-file limit (soft, hard), from /proc; undefined off Linux. */
export function openFileLimit(): { soft: number; hard: number } | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const [soft, hard] = (line ?? '').split(/\s{2,}/).slice(1, 3).map(Number);
    return soft !== undefined && hard !== undefined ? { soft, hard } : undefined;
  } catch {
    return undefined;
  }
}
