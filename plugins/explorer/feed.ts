import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Logger } from '../../node/logging.js';
import { stringifyJson } from '../../node/protocol/json.js';
import { txListRow, type Indexed } from './rows.js';

/**
 * The WebSocket feed at /ws (seed 002): clients send `{subscribe: [...]}` and
 * `{unsubscribe: [...]}` with the topics blocks, transactions, dids, credentials and
 * verifications; for each newly indexed item the server sends `{type, data}` (data in the REST
 * row shape; a verification each time its row changes: requested, answered, final, expired), and
 * `{type: "ping"}` every 30 s. The feed never waits for a client: a client whose unsent data
 * passes MAX_BUFFERED_BYTES, or that sends more than MAX_MESSAGES_PER_MINUTE, is cut off.
 */

export const TOPICS = ['blocks', 'transactions', 'dids', 'credentials', 'verifications'] as const;
type Topic = (typeof TOPICS)[number];

export interface FeedLimits {
  maxClients: number;
  maxMessageBytes: number;
  maxMessagesPerMinute: number;
  maxBufferedBytes: number;
  pingMs: number;
}

export const DEFAULT_FEED_LIMITS: FeedLimits = {
  maxClients: 1_000,
  maxMessageBytes: 4_096,
  maxMessagesPerMinute: 120,
  maxBufferedBytes: 1024 * 1024,
  pingMs: 30_000,
};

interface Client {
  socket: WebSocket;
  topics: Set<Topic>;
  messages: number;
  windowStart: number;
}

export class Feed {
  private readonly wss: WebSocketServer;
  private readonly clients = new Set<Client>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    server: Pick<Server, 'on'>,
    private readonly log: Logger,
    private readonly limits: FeedLimits = DEFAULT_FEED_LIMITS,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    this.timer = setInterval(() => this.broadcast(null, { type: 'ping' }), limits.pingMs);
    this.timer.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/ws') return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
    if (this.clients.size >= this.limits.maxClients) return void socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(socket: WebSocket): void {
    const client: Client = { socket, topics: new Set(), messages: 0, windowStart: Date.now() };
    this.clients.add(client);
    socket.on('message', (data, isBinary) => this.receive(client, data, isBinary));
    socket.on('close', () => this.clients.delete(client));
    socket.on('error', () => this.clients.delete(client));
  }

  private receive(client: Client, data: RawData, isBinary: boolean): void {
    const now = Date.now();
    if (now - client.windowStart >= 60_000) {
      client.windowStart = now;
      client.messages = 0;
    }
    if (++client.messages > this.limits.maxMessagesPerMinute) return void client.socket.close(1008, 'too many messages');
    let msg: unknown;
    try {
      if (isBinary) throw new Error('binary');
      msg = JSON.parse(data.toString());
    } catch {
      return this.send(client, { type: 'error', message: 'messages are JSON text: {"subscribe": [topics]} or {"unsubscribe": [topics]}' });
    }
    const o = (typeof msg === 'object' && msg !== null && !Array.isArray(msg) ? msg : {}) as Record<string, unknown>;
    const action = 'subscribe' in o ? 'subscribe' : 'unsubscribe' in o ? 'unsubscribe' : undefined;
    const topics = action ? o[action] : undefined;
    if (!action || !Array.isArray(topics) || !topics.every((x) => (TOPICS as readonly unknown[]).includes(x))) {
      return this.send(client, { type: 'error', message: `send {"subscribe": [...]} or {"unsubscribe": [...]} with topics from ${TOPICS.join(', ')}` });
    }
    for (const topic of topics as Topic[]) {
      if (action === 'subscribe') client.topics.add(topic);
      else client.topics.delete(topic);
    }
    this.send(client, { type: action === 'subscribe' ? 'subscribed' : 'unsubscribed', topics: [...client.topics] });
  }

  /** Sends what one indexed block added to the clients of each topic. */
  publish(indexed: Indexed): void {
    if (this.clients.size === 0) return;
    this.broadcast('blocks', { type: 'block', data: indexed.block });
    for (const tx of indexed.txs) this.broadcast('transactions', { type: 'transaction', data: txListRow(tx) });
    for (const did of indexed.dids) this.broadcast('dids', { type: 'did', data: did });
    for (const c of indexed.credentials) this.broadcast('credentials', { type: 'credential', data: c });
    for (const v of indexed.verifications) this.broadcast('verifications', { type: 'verification', data: v });
  }

  private broadcast(topic: Topic | null, message: unknown): void {
    const text = stringifyJson(message);
    for (const c of this.clients) if (topic === null || c.topics.has(topic)) this.send(c, text);
  }

  private send(client: Client, message: unknown): void {
    if (client.socket.readyState !== WebSocket.OPEN) return;
    if (client.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      this.log.debug('cutting off a WebSocket client that does not keep up');
      client.socket.terminate();
      this.clients.delete(client);
      return;
    }
    client.socket.send(typeof message === 'string' ? message : stringifyJson(message));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const c of this.clients) c.socket.terminate();
    this.clients.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
