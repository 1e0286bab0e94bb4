import type { Server } from 'node:http';
import { isIPv6, type Socket } from 'node:net';
import { LedgerError } from '../errors.js';

/**
 * Connection caps of one HTTP server (docs/operators.md, "Connection limits"): at most
 * `maxConnections` open at once, at most `maxConnectionsPerIp` from one address; 0 turns a cap
 * off. A WebSocket counts until it closes. A connection over a cap is answered at once with a 503
 * Problem and Retry-After, then closed: the answer is followed by a FIN and what the client sends
 * meanwhile is read and dropped for a short while, so the close is not a reset that would destroy
 * the answer. At most REFUSAL_SLOTS refused connections linger so; past them, and past
 * `maxConnections + REFUSAL_SLOTS` sockets in all (node's own `server.maxConnections`, checked at
 * accept), a connection is closed unanswered.
 */

export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerIp: number;
}

/** for a server that is not told otherwise (the node's config sets every server's) */
export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = { maxConnections: 1024, maxConnectionsPerIp: 256 };

/** refused connections that may linger (answered, closing) at once */
export const REFUSAL_SLOTS = 64;
const REFUSAL_LINGER_MS = 1000;

/** total and per_ip: answered 503; overflow: closed unanswered (the refusal slots were full) */
export const REFUSAL_REASONS = ['total', 'per_ip', 'overflow'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface ConnectionStats {
  open: number;
  refused: Record<RefusalReason, number>;
}

/**
 * The address a client is counted under: an IPv4 address as it is (also when IPv4-mapped), an
 * IPv6 address by its /64, the block one host or one subscriber usually holds whole.
 */
export function ipKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address.split('%')[0]!)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros; a zone (`%eth0`) is dropped. */
function ipv6Groups(address: string): string[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16).toString(16));
}

/** The counts behind the caps: which connections are open, from where, and how many were refused. */
export class ConnectionGate {
  private open = 0;
  private readonly perIp = new Map<string, number>();
  private lingering = 0;
  private readonly refused: Record<RefusalReason, number> = { total: 0, per_ip: 0, overflow: 0 };

  constructor(readonly limits: Readonly<ConnectionLimits>) {}

  /** Counts the connection in and returns undefined, or returns the cap it is over. */
  admit(key: string): 'total' | 'per_ip' | undefined {
    const { maxConnections, maxConnectionsPerIp } = this.limits;
    if (maxConnections > 0 && this.open >= maxConnections) return 'total';
    const fromIp = this.perIp.get(key) ?? 0;
    if (maxConnectionsPerIp > 0 && fromIp >= maxConnectionsPerIp) return 'per_ip';
    this.open++;
    this.perIp.set(key, fromIp + 1);
    return undefined;
  }

  release(key: string): void {
    this.open--;
    const left = (this.perIp.get(key) ?? 1) - 1;
    if (left <= 0) this.perIp.delete(key);
    else this.perIp.set(key, left);
  }

  /** Whether a refused connection may still be answered; counts the refusal either way. */
  refuse(reason: 'total' | 'per_ip'): boolean {
    if (this.lingering >= REFUSAL_SLOTS) {
      this.refused.overflow++;
      return false;
    }
    this.refused[reason]++;
    this.lingering++;
    return true;
  }

  refusalEnded(): void {
    this.lingering--;
  }

  /** a connection node closed at accept, past `maxConnections + REFUSAL_SLOTS` */
  dropped(): void {
    this.refused.overflow++;
  }

  stats(): ConnectionStats {
    return { open: this.open, refused: { ...this.refused } };
  }
}

/**
 * Puts `gate` in front of node:http's own connection handling on `server`: an admitted socket
 * goes on to node (then to `admitted`), a refused one gets `answer(reason)` and is closed. Must be
 * called on a server that has no other connection listener yet.
 */
export function gateConnections(server: Server, gate: ConnectionGate, answer: (reason: 'total' | 'per_ip') => Buffer, admitted: (socket: Socket) => void): void {
  const own = server.listeners('connection');
  if (own.length !== 1) throw new LedgerError('HTTP_GATE_LISTENERS', `gateConnections expects node:http's one connection listener, found ${own.length}`, 'internal');
  const accept = own[0] as (socket: Socket) => void;
  server.removeListener('connection', accept);
  server.on('connection', (socket: Socket) => {
    const key = ipKey(socket.remoteAddress);
    const over = gate.admit(key);
    if (over === undefined) {
      socket.once('close', () => gate.release(key));
      accept.call(server, socket);
      admitted(socket);
      return;
    }
    socket.on('error', () => undefined);
    if (!gate.refuse(over)) return void socket.destroy();
    const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      gate.refusalEnded();
    });
    socket.end(answer(over));
    socket.resume();
  });
  if (gate.limits.maxConnections > 0) server.maxConnections = gate.limits.maxConnections + REFUSAL_SLOTS;
  server.on('drop', () => gate.dropped());
}
