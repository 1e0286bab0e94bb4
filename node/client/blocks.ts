import { LedgerError } from '../errors.js';
import { parseJson } from '../protocol/json.js';

/**
 * New blocks from the explorer's live feed (`/ws`, docs/explorer.md). The feed is the explorer
 * plugin's, not the RPC port's: it sends each block once the explorer indexed it.
 */

/** A block as the explorer's feed and `/api/v1/blocks` give it (seed 002's row: heights, times and rounds are strings). */
export interface ExplorerBlock {
  height: string;
  hash: string;
  parent_hash: string;
  proposer: string;
  timestamp_ms: string;
  tx_count: number;
  round: string;
  state_root: string;
  /** when the explorer indexed it (ISO 8601) */
  created_at: string;
}

/**
 * The part of the WHATWG WebSocket that the subscription uses: browsers, Node.js 22 and later,
 * and the `ws` package's WebSocket all provide it.
 */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface SubscribeOptions {
  /** default: the global WebSocket, which Node.js 20 lacks: pass `WebSocket` from the `ws` package there */
  WebSocket?: WebSocketConstructor;
}

export interface BlockSubscription {
  /** resolves once the explorer confirmed the subscription: every block indexed after that arrives */
  readonly ready: Promise<void>;
  /**
   * resolves after close(); rejects with FEED_CLOSED when the connection fails or the explorer
   * closes it, FEED_ERROR when it answers with an error, or what onBlock threw (then it is closed).
   * Not awaiting it is safe: its rejection is never reported as unhandled.
   */
  readonly done: Promise<void>;
  close(): void;
}

/** `http(s)://host:port[/base]` becomes `ws(s)://host:port[/base]/ws`; a ws(s) URL is taken as it is. */
export function feedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new LedgerError('BAD_URL', `not a URL: ${JSON.stringify(url)}`);
  }
  if (u.protocol === 'ws:' || u.protocol === 'wss:') return u.href;
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new LedgerError('BAD_URL', `the explorer's URL is http(s) or ws(s), got ${u.protocol}`);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/ws`;
  return u.href;
}

function feedMessage(data: unknown): Record<string, unknown> | undefined {
  try {
    const value = parseJson(String(data));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isBlockMessage(m: Record<string, unknown>): m is { type: 'block'; data: ExplorerBlock } {
  return m.type === 'block' && typeof m.data === 'object' && m.data !== null;
}

/**
 * Calls `onBlock` with each new block the explorer at `url` indexes, in order, from the moment
 * `ready` resolves. There is no replay and no reconnection: after a FEED_CLOSED, subscribe again
 * and read what was missed from RpcClient.getBlockBySeq or the explorer's `/api/v1/blocks`.
 */
export function subscribeBlocks(url: string, onBlock: (block: ExplorerBlock) => void, options: SubscribeOptions = {}): BlockSubscription {
  const target = feedUrl(url);
  const Socket = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (Socket === undefined) {
    throw new LedgerError('NO_WEBSOCKET', "this runtime has no global WebSocket (Node.js 20): pass one, as in subscribeBlocks(url, onBlock, { WebSocket }) with WebSocket from the 'ws' package");
  }
  const socket = new Socket(target);
  let confirm!: () => void;
  let refuse!: (err: unknown) => void;
  let finish!: () => void;
  let fail!: (err: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => ((confirm = resolve), (refuse = reject)));
  const done = new Promise<void>((resolve, reject) => ((finish = resolve), (fail = reject)));
  // a dApp that never awaits them must not crash on an unhandled rejection: whoever awaits gets it
  ready.catch(() => undefined);
  done.catch(() => undefined);
  let stopped = false;
  const stop = (err?: unknown) => {
    if (stopped) return;
    stopped = true;
    refuse(err ?? new LedgerError('FEED_CLOSED', 'the subscription was closed before the explorer confirmed it', 'internal', { url: target }));
    if (err === undefined) finish();
    else fail(err);
    socket.close();
  };
  socket.addEventListener('open', () => socket.send(JSON.stringify({ subscribe: ['blocks'] })));
  socket.addEventListener('message', (event) => {
    const message = feedMessage(event.data);
    if (message === undefined) return stop(new LedgerError('FEED_ERROR', `${target} sent a message that is not a JSON object`, 'internal', { url: target }));
    if (message.type === 'subscribed') return confirm();
    if (message.type === 'error') return stop(new LedgerError('FEED_ERROR', `${target} answered: ${String(message.message)}`, 'internal', { url: target }));
    if (!isBlockMessage(message)) return;
    try {
      onBlock(message.data);
    } catch (err) {
      stop(err);
    }
  });
  socket.addEventListener('close', (event) => {
    const why = event.reason ? `: ${event.reason}` : '';
    stop(new LedgerError('FEED_CLOSED', `the explorer's feed at ${target} closed (code ${event.code}${why})`, 'internal', { url: target, code: event.code }));
  });
  // an error event is followed by a close event, which says what happened
  socket.addEventListener('error', () => undefined);
  return { ready, done, close: () => stop() };
}
