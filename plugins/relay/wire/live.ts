import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Logger } from '../../../node/logging.js';
import type { RelayServices } from '../core/services.js';
import type { Pending } from '../core/delivery.js';
import { deliveryReply, mediationKeys } from '../protocols/pickup.js';
import type { LiveChannel } from '../protocols/types.js';
import { ENCRYPTED, type InboundPipeline } from './inbound.js';

/**
 * Live mode (Pickup 3.0 `live-delivery-change`) over a WebSocket to the same path as
 * POST /didcomm. Each frame is an envelope and its answer comes back on the socket; once an
 * authenticated agent turns live delivery on, every message queued for its keys is pushed at
 * once as a `delivery`, and stays pending until the agent sends messages-received: a push that a
 * dying socket never delivered goes out again on the next connection or pickup, never twice on
 * one socket. Frames are handled one at a time per
 * socket, with a short queue; connections are capped in total and per address.
 */

const MAX_QUEUED_FRAMES = 32;
/** messages per pushed `delivery`: under load one push carries what arrived during the last */
const PUSH_BATCH = 100;
/** arrivals kept in memory for the next push; past it the connection reads the store instead */
const MAX_ARRIVALS = 2000;
/** ids remembered as pushed on one socket, so an arrival the store read already pushed is not sent twice */
const MAX_PUSHED = 10_000;
/** after a push that failed (the store busy or unreachable, a reply that cannot be packed), the wait before the next */
const RETRY_MS = 500;
const PENDING = new Set(['queued', 'delivered', 'live-delivered']);

export class LiveServer {
  private wss: WebSocketServer;
  private perIp = new Map<string, number>();
  private sockets = new Set<WebSocket>();

  constructor(
    private readonly server: Server,
    private readonly path: string,
    private readonly pipeline: InboundPipeline,
    private readonly services: RelayServices,
    private readonly log: Logger,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: services.config.maxEnvelopeBytes });
    server.on('upgrade', this.onUpgrade);
  }

  get connections(): number {
    return this.sockets.size;
  }

  private onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      pathname = '';
    }
    if (pathname !== this.path) return; // other upgrade handlers (none today) may take it
    const ip = req.socket.remoteAddress ?? '?';
    const { maxLiveConnections, maxLiveConnectionsPerIp } = this.services.config;
    if (this.sockets.size >= maxLiveConnections || (this.perIp.get(ip) ?? 0) >= maxLiveConnectionsPerIp) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, ip));
  };

  private accept(ws: WebSocket, ip: string): void {
    this.sockets.add(ws);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    const conn = new LiveConnection(ws, this.pipeline, this.services, this.log);
    ws.on('close', () => {
      conn.close();
      this.sockets.delete(ws);
      const n = (this.perIp.get(ip) ?? 1) - 1;
      if (n <= 0) this.perIp.delete(ip);
      else this.perIp.set(ip, n);
    });
    ws.on('error', (err) => this.log.debug({ err }, 'live socket error'));
  }

  async close(): Promise<void> {
    this.server.off('upgrade', this.onUpgrade);
    for (const ws of this.sockets) ws.close(1001, 'relay stopping');
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    for (const ws of this.sockets) ws.terminate();
  }
}

class LiveConnection implements LiveChannel {
  live = false;
  private queue: string[] = [];
  private busy = false;
  private unsubscribe: (() => void) | undefined;
  private mediationId = '';
  /** fixed keys, or null: every key of the mediation at the time of each push */
  private fixedKeys: readonly string[] | null = null;
  private replyTo = '';
  private replyFrom: string | undefined;
  private pushing = false;
  private again = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  /** the newest message id read from the store on this socket: the next read starts after it */
  private cursor: string | undefined;
  /**
   * What this socket pushed, oldest first. Arrivals are checked against it rather than against
   * the cursor: two relay instances make ids on their own clocks, so an arrival from another
   * instance may sort below one pushed already.
   */
  private pushed = new Set<string>();
  /**
   * Messages accepted since live mode began, pushed straight from memory. The store is read
   * instead (`backlog`) for what waited before, and when arrivals outran the socket.
   */
  private arrivals: Pending[] = [];
  private backlog = true;

  constructor(
    private readonly ws: WebSocket,
    private readonly pipeline: InboundPipeline,
    private readonly services: RelayServices,
    private readonly log: Logger,
  ) {
    ws.on('message', (data: RawData, isBinary: boolean) => this.onFrame(data, isBinary));
  }

  private onFrame(data: RawData, _isBinary: boolean): void {
    if (this.queue.length >= MAX_QUEUED_FRAMES) return this.refuse(429, 'TOO_MANY_IN_FLIGHT: too many envelopes in flight on this socket');
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    this.queue.push(buf.toString('utf8'));
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0 && this.ws.readyState === WebSocket.OPEN) {
        const text = this.queue.shift()!;
        try {
          const answer = await this.pipeline.handle(text, this);
          if ('body' in answer && answer.body !== undefined && answer.contentType === ENCRYPTED) this.ws.send(answer.body);
          else if ('code' in answer) this.refuse(answer.status, `${answer.code}: ${answer.detail}`);
        } catch (err) {
          this.log.error({ err }, 'a live envelope failed');
          this.refuse(500, 'INTERNAL: internal error');
        }
      }
    } finally {
      this.busy = false;
    }
  }

  /**
   * Only DIDComm envelopes travel on the socket (clients treat any other frame as a message), so
   * an envelope nobody can be answered about in DIDComm closes the socket with 4000 + the HTTP
   * status it would get, and the reason in the close frame.
   */
  private refuse(status: number, reason: string): void {
    this.queue = [];
    this.ws.close(4000 + status, Buffer.from(reason).subarray(0, 120).toString('utf8').replace(/\uFFFD+$/, ''));
  }

  setLive(on: boolean, mediationId: string, keys: readonly string[] | null, replyTo: string, replyFrom?: string): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.live = on;
    if (!on) return;
    this.mediationId = mediationId;
    this.fixedKeys = keys && [...keys];
    this.replyTo = replyTo;
    this.replyFrom = replyFrom;
    this.arrivals = [];
    this.backlog = true;
    // Identus turns live mode on before it registers its DIDs: listen to the whole mediation
    this.unsubscribe = this.services.delivery.subscribe(mediationId, (arrival) => {
      if (this.fixedKeys && !this.fixedKeys.includes(arrival.record.recipient)) return;
      if (this.arrivals.length >= MAX_ARRIVALS) {
        this.arrivals = [];
        this.backlog = true;
      } else this.arrivals.push(arrival);
      void this.push();
    });
    // what waited while the agent was away goes out now, after the status reply
    setImmediate(() => void this.push());
  }

  private async push(): Promise<void> {
    if (this.pushing) {
      this.again = true;
      return;
    }
    this.pushing = true;
    try {
      do {
        this.again = false;
        while (this.live && this.ws.readyState === WebSocket.OPEN) {
          const batch = await this.nextBatch();
          if (batch.length === 0) break;
          const recipients = new Set(batch.map((p) => p.record.recipient));
          const packed = await this.pipeline.pack(deliveryReply(null, batch, recipients.size === 1 ? batch[0]!.record.recipient : undefined), this.replyTo, true, this.replyFrom);
          if (typeof packed !== 'string') {
            this.log.warn({ to: this.replyTo, detail: packed.detail }, 'a live delivery could not be packed; trying again');
            this.retryLater();
            break;
          }
          // marked before it goes out, as a pickup reply is: a relay that dies after the send still
          // has it marked, so whoever sends it again marks it a redelivery
          await this.services.delivery.delivered(batch.map((p) => p.record).filter((r) => r.state === 'queued'), 'live-delivered');
          await new Promise<void>((resolve, reject) => this.ws.send(packed, (err) => (err ? reject(err) : resolve())));
          this.remember(batch);
        }
      } while (this.again);
    } catch (err) {
      // the first failure of a connection is worth a warning; a store that stays down would repeat it every retry
      if (this.failures++ === 0) this.log.warn({ err }, `a live push failed; trying again every ${RETRY_MS} ms`);
      else this.log.debug({ err }, 'a live push failed again');
      this.retryLater();
    } finally {
      this.pushing = false;
    }
  }

  /**
   * A push that failed may have taken arrivals from memory that never went out: the next one
   * reads the whole backlog from the store again (what this socket pushed already is skipped),
   * so no pending message is left waiting for an arrival that may never come.
   */
  private retryLater(): void {
    this.arrivals = [];
    this.backlog = true;
    this.cursor = undefined;
    if (this.retry || !this.live) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.push();
    }, RETRY_MS);
  }

  private remember(batch: readonly Pending[]): void {
    for (const p of batch) this.pushed.add(p.record.id);
    for (const id of this.pushed) {
      if (this.pushed.size <= MAX_PUSHED) break;
      this.pushed.delete(id);
    }
  }

  /** the next messages to push, oldest first, none pushed on this socket before */
  private async nextBatch(): Promise<Pending[]> {
    const fresh = (p: Pending) => !this.pushed.has(p.record.id);
    while (this.backlog) {
      const keys = this.fixedKeys ?? (await mediationKeys(this.services, this.mediationId));
      const read = await this.services.delivery.collect(keys, PUSH_BATCH, this.cursor);
      if (read.length === 0) {
        this.backlog = false;
        break;
      }
      this.cursor = read[read.length - 1]!.record.id;
      const batch = read.filter(fresh);
      if (batch.length > 0) return batch;
    }
    this.arrivals = this.arrivals.filter(fresh);
    const batch = this.arrivals.splice(0, PUSH_BATCH);
    if (batch.length === 0) return [];
    // one acknowledged meanwhile (by a pickup over HTTP) is never delivered again
    const records = await this.services.store.messages.getMany(batch.map((p) => p.record.id));
    return batch.flatMap((p, j) => {
      const record = records[j];
      return record !== undefined && PENDING.has(record.state) ? [{ body: p.body, record }] : [];
    });
  }

  close(): void {
    clearTimeout(this.retry);
    this.retry = undefined;
    this.live = false;
    this.arrivals = [];
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.queue = [];
  }
}
