import './polyfill.js';
import type { Connection, Libp2p, PeerId, Stream } from '@libp2p/interface';
import { EventEmitter } from 'node:events';
import { decodeMessage, encodeMessage, MAX_SYNC_RESPONSE_BYTES } from '../consensus/codec.js';
import type { ConsensusMessage, ConsensusTransport } from '../consensus/types.js';
import { LedgerError } from '../errors.js';
import type { Logger } from '../logging.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import { DIAL_TIMEOUT_MS, keepDialing } from './dialer.js';
import { encodeFrame } from './framing.js';
import { createHost } from './host.js';
import { addressOfPeer } from './identity.js';
import { readFrames } from './inbound.js';
import { DEFAULT_PEER_LIMITS, MAX_PRESENTATION_FRAME_BYTES, PENALTY, PeerScores, type PeerLimits } from './limits.js';
import { Outbound } from './outbound.js';
import { newPeer, peerInfo, type Kind, type Peer, type PeerInfo } from './peer.js';
import { decodeTxBatch, encodeTxBatches, TxBatcher, type QueuedTx } from './tx-batch.js';

/**
 * The peer-to-peer network: libp2p over TCP with Noise and yamux, plus identify.
 *
 * Consensus messages and transactions travel on direct streams, not gossipsub. Votes go to one
 * leader, the validator set is a small full mesh, and a direct stream delivers in one hop with no
 * heartbeat wait and no duplicate fan-out; transaction forwarding beyond the mesh is decided in
 * mempool/gossip.ts. Each peer gets one long-lived outbound stream per protocol carrying
 * length-prefixed frames (framing.ts); the chain id in the protocol names keeps networks apart.
 *
 * A peer's validator address comes from its Noise-authenticated Ed25519 key (identity.ts), so
 * `from` in every delivered message is authenticated. Oversized or undecodable frames, floods,
 * and content the node rejects lower the sender's score (limits.ts); at the threshold it is
 * disconnected and refused for a while.
 */

export interface P2PNetworkOptions {
  chainId: string;
  /** this node's Ed25519 seed: its libp2p identity */
  seed: Uint8Array;
  host: string;
  /** 0 = any free port */
  port: number;
  /** multiaddrs, with or without /p2p/<peer id>; dialed at start and redialed while disconnected */
  bootstrap: string[];
  log: Logger;
  limits?: Partial<PeerLimits>;
}

export type { PeerInfo };

export interface NetworkStats {
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  penalties: number;
  bans: number;
  dropped: Record<string, number>;
}

/** 'peer:connect' and 'peer:disconnect' carry the PeerInfo of the peer. */
export type P2PNetworkEvent = 'peer:connect' | 'peer:disconnect';

/** what one peer's unsent frames may hold per protocol, and the tx gossip queue, before new ones are dropped */
export const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
/** per connection and protocol; we open one */
const MAX_INBOUND_STREAMS = 8;

export class P2PNetwork extends EventEmitter {
  readonly consensus: ConsensusTransport;
  private readonly peersByKey = new Map<string, Peer>();
  private readonly scores: PeerScores;
  private readonly protocols: Record<Kind, string>;
  private consensusHandler: ((from: Uint8Array, msg: ConsensusMessage) => void) | undefined;
  private txHandler: ((txs: Uint8Array[], from: Uint8Array) => void | Promise<void>) | undefined;
  private presentationHandler: ((presentation: Uint8Array, from: Uint8Array) => void) | undefined;
  private readonly txs: TxBatcher;
  private readonly stopper = new AbortController();
  private readonly s: NetworkStats = { framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, penalties: 0, bans: 0, dropped: {} };

  private constructor(
    private readonly node: Libp2p,
    private readonly o: P2PNetworkOptions,
    private readonly limits: PeerLimits,
  ) {
    super();
    this.scores = new PeerScores(limits);
    this.txs = new TxBatcher(MAX_QUEUED_BYTES, (queue) => this.flushTxs(queue), (reason) => this.drop(reason));
    this.protocols = { consensus: `/ledger/${o.chainId}/consensus/1`, tx: `/ledger/${o.chainId}/tx/1`, presentation: `/ledger/${o.chainId}/presentation/1` };
    this.consensus = {
      broadcast: (msg) => {
        if (this.peersByKey.size === 0) return;
        const frame = this.frame('consensus', encodeMessage(msg));
        for (const p of this.peersByKey.values()) this.send(p, 'consensus', frame);
      },
      send: (to, msg) => {
        const p = this.peersByKey.get(toHex(to));
        if (p) this.send(p, 'consensus', this.frame('consensus', encodeMessage(msg)));
        else this.drop('not-connected');
      },
      onMessage: (handler) => {
        this.consensusHandler = handler;
      },
    };
  }

  /** A started network, listening on `host:port`, dialing its bootstrap addresses. */
  static async create(o: P2PNetworkOptions): Promise<P2PNetwork> {
    const overrides = Object.fromEntries(Object.entries(o.limits ?? {}).filter(([, v]) => v !== undefined));
    const limits: PeerLimits = { ...DEFAULT_PEER_LIMITS, ...overrides };
    let net: P2PNetwork | undefined;
    const node = await createHost({ seed: o.seed, host: o.host, port: o.port, isBanned: (peer) => net?.isBanned(peer) ?? false });
    net = new P2PNetwork(node, o, limits);
    try {
      await net.start();
    } catch (err) {
      await Promise.resolve(node.stop()).catch(() => undefined);
      throw new LedgerError('P2P_START_FAILED', `cannot listen on ${o.host}:${o.port}: ${(err as Error).message}`, 'internal', { host: o.host, port: o.port });
    }
    return net;
  }

  get peerId(): string {
    return this.node.peerId.toString();
  }

  /** Full multiaddrs, each ending in /p2p/<peer id>. */
  listenAddrs(): string[] {
    return this.node.getMultiaddrs().map((a) => a.toString());
  }

  peerCount(): number {
    return this.peersByKey.size;
  }

  peers(): PeerInfo[] {
    return [...this.peersByKey.values()].map((p) => peerInfo(p));
  }

  stats(): NetworkStats {
    return { ...this.s, dropped: { ...this.s.dropped } };
  }

  onTransactions(handler: (txs: Uint8Array[], from: Uint8Array) => void | Promise<void>): void {
    this.txHandler = handler;
  }

  /** Queues encoded transactions for every connected peer but `except`; sent in batches. */
  gossipTransactions(txs: Uint8Array[], except?: Uint8Array): void {
    if (!this.stopper.signal.aborted) this.txs.add(txs, except && ((peer) => !bytesEqual(peer, except)));
  }

  /** Queues encoded transactions for the connected peers `to` picks by address; sent in batches. */
  sendTransactions(txs: Uint8Array[], to: (peer: Uint8Array) => boolean): void {
    if (!this.stopper.signal.aborted) this.txs.add(txs, to);
  }

  onPresentation(handler: (presentation: Uint8Array, from: Uint8Array) => void): void {
    this.presentationHandler = handler;
  }

  /** Sends one encoded presentation to every connected peer but `except`; returns how many it went to. */
  sendPresentation(bytes: Uint8Array, except?: Uint8Array): number {
    const frame = this.frame('presentation', bytes);
    let sent = 0;
    for (const p of this.peersByKey.values()) {
      if (except && bytesEqual(p.address, except)) continue;
      this.send(p, 'presentation', frame);
      sent++;
    }
    return frame ? sent : 0;
  }

  /** Lowers a peer's score for bad content; at the threshold it is disconnected and banned. */
  penalize(address: Uint8Array, reason: string, weight: number = PENALTY.default): void {
    const key = toHex(address);
    this.s.penalties++;
    this.o.log.debug({ peer: key, reason, weight }, 'peer penalized');
    if (!this.scores.penalize(key, weight, Date.now())) return;
    this.s.bans++;
    const peer = this.peersByKey.get(key);
    this.o.log.warn({ address: key, peer_id: peer?.peerId.toString(), reason, ban_ms: this.limits.banMs }, 'peer banned');
    for (const c of peer?.conns ?? []) c.abort(new Error(`banned: ${reason}`));
  }

  /** Closes every connection and stops listening and dialing; leaves no timers. */
  async stop(): Promise<void> {
    if (this.stopper.signal.aborted) return;
    this.stopper.abort();
    this.txs.clear();
    await this.node.stop();
    this.peersByKey.clear();
  }

  private async start(): Promise<void> {
    for (const kind of ['consensus', 'tx', 'presentation'] as const) {
      await this.node.handle(this.protocols[kind], (stream, conn) => this.read(kind, stream, conn), { maxInboundStreams: MAX_INBOUND_STREAMS });
    }
    this.node.addEventListener('connection:open', (e) => void this.track(e.detail));
    this.node.addEventListener('connection:close', (e) => this.untrack(e.detail));
    await this.node.start();
    for (const addr of this.o.bootstrap) void keepDialing(this.node, addr, this.stopper.signal, this.o.log);
  }

  private isBanned(peer: PeerId): boolean {
    const address = addressOfPeer(peer);
    return !address || this.scores.isBanned(toHex(address), Date.now());
  }

  private drop(reason: string, count = 1): void {
    this.s.dropped[reason] = (this.s.dropped[reason] ?? 0) + count;
  }

  /** The peer of a connection, registering it on first sight; undefined (and aborted) when refused. */
  private track(conn: Connection): Peer | undefined {
    // a late stream on a closing connection must not bring back a peer that already left
    if (conn.status !== 'open') return undefined;
    const address = addressOfPeer(conn.remotePeer);
    if (!address || this.scores.isBanned(toHex(address), Date.now())) {
      conn.abort(new Error(address ? 'banned' : 'not an Ed25519 peer'));
      return undefined;
    }
    const key = toHex(address);
    const known = this.peersByKey.get(key);
    if (known) {
      known.conns.add(conn);
      return known;
    }
    const now = Date.now();
    this.scores.prune(now);
    const outbound = (kind: Kind) =>
      new Outbound(MAX_QUEUED_BYTES, {
        open: () => this.openStream(p, kind),
        sent: (bytes) => {
          this.s.framesOut++;
          this.s.bytesOut += bytes;
        },
        drop: (reason, count) => this.drop(reason, count),
        openFailed: (err) => this.o.log.debug({ err, peer: key, kind }, 'could not open a stream'),
      });
    const p = newPeer({ key, address, conn, limits: this.limits, outbound, now });
    this.peersByKey.set(key, p);
    this.o.log.info({ peer_id: conn.remotePeer.toString(), remote: conn.remoteAddr.toString() }, 'peer connected');
    this.emit('peer:connect', peerInfo(p));
    return p;
  }

  private untrack(conn: Connection): void {
    const address = addressOfPeer(conn.remotePeer);
    const peer = address && this.peersByKey.get(toHex(address));
    if (!peer || !peer.conns.delete(conn) || peer.conns.size > 0) return;
    this.peersByKey.delete(peer.key);
    this.o.log.info({ peer_id: conn.remotePeer.toString() }, 'peer disconnected');
    this.emit('peer:disconnect', peerInfo(peer, conn));
  }

  // ---- sending ----

  /** The frame of a payload, once for all its recipients; undefined (dropped) when peers would refuse it. */
  private frame(kind: Kind, payload: Uint8Array): Uint8Array | undefined {
    if (this.stopper.signal.aborted) return undefined;
    // the codec refuses any consensus message above MAX_SYNC_RESPONSE_BYTES
    const cap = kind === 'consensus' ? Math.min(this.limits.maxConsensusFrameBytes, MAX_SYNC_RESPONSE_BYTES) : kind === 'tx' ? this.limits.maxTxFrameBytes : MAX_PRESENTATION_FRAME_BYTES;
    if (payload.length <= cap) return encodeFrame(payload);
    // the peer would reset the stream or fail to decode it, and penalize us
    this.o.log.warn({ kind, size: payload.length, cap }, 'not sending a message above the size cap');
    this.drop(`too-large-${kind}`);
    return undefined;
  }

  private send(peer: Peer, kind: Kind, frame: Uint8Array | undefined): void {
    if (frame && !this.stopper.signal.aborted) peer.out[kind].send(frame);
  }

  private openStream(peer: Peer, kind: Kind): Promise<Stream> {
    const conn = [...peer.conns].find((c) => c.status === 'open');
    if (!conn) return Promise.reject(new Error('no open connection'));
    return conn.newStream(this.protocols[kind], { signal: AbortSignal.any([this.stopper.signal, AbortSignal.timeout(DIAL_TIMEOUT_MS)]) });
  }

  private flushTxs(queue: QueuedTx[]): void {
    // peers that get the same transactions share one encoding of their batches
    const encoded = new Map<string, Array<Uint8Array | undefined>>();
    for (const peer of this.peersByKey.values()) {
      const picked: number[] = [];
      for (let i = 0; i < queue.length; i++) {
        const q = queue[i]!;
        if (!q.to || q.to(peer.address)) picked.push(i);
      }
      if (picked.length === 0) continue;
      const key = picked.length === queue.length ? '*' : picked.join(',');
      let frames = encoded.get(key);
      if (!frames) {
        const { batches, skipped } = encodeTxBatches(picked.map((i) => queue[i]!.bytes));
        if (skipped > 0) this.drop('tx-bad-size', skipped);
        frames = batches.map((b) => this.frame('tx', b));
        encoded.set(key, frames);
      }
      for (const frame of frames) this.send(peer, 'tx', frame);
    }
  }

  // ---- receiving ----

  private read(kind: Kind, stream: Stream, conn: Connection): void {
    // a stream can beat the connection:open event
    const peer = this.track(conn);
    if (!peer) return stream.abort(new Error('refused peer'));
    readFrames(stream, {
      maxFrameBytes: kind === 'consensus' ? this.limits.maxConsensusFrameBytes : kind === 'tx' ? this.limits.maxTxFrameBytes : MAX_PRESENTATION_FRAME_BYTES,
      frames: peer.frames[kind],
      bytes: peer.bytes[kind],
      stopped: () => this.stopper.signal.aborted,
      received: (bytes) => {
        this.s.framesIn++;
        this.s.bytesIn += bytes;
      },
      oversized: () => {
        this.drop(`oversized-${kind}`);
        this.penalize(peer.address, `oversized-${kind}-frame`, PENALTY.oversizedFrame);
      },
      rateLimited: () => {
        this.drop(`rate-limited-${kind}`);
        this.penalize(peer.address, `rate-limited-${kind}`, PENALTY.rateLimited);
      },
      frame: (frame) => this.deliver(kind, peer.address, frame),
    });
  }

  private deliver(kind: Kind, from: Uint8Array, frame: Uint8Array): void {
    if (kind === 'consensus') {
      let msg: ConsensusMessage;
      try {
        msg = decodeMessage(frame);
      } catch {
        this.drop('undecodable-consensus');
        return this.penalize(from, 'undecodable-consensus', PENALTY.undecodable);
      }
      try {
        this.consensusHandler?.(from, msg);
      } catch (err) {
        this.o.log.error({ err, type: msg.type }, 'consensus message handler failed');
      }
      return;
    }
    if (kind === 'presentation') {
      try {
        this.presentationHandler?.(frame, from);
      } catch (err) {
        this.o.log.error({ err }, 'presentation handler failed');
      }
      return;
    }
    let txs: Uint8Array[];
    try {
      txs = decodeTxBatch(frame);
    } catch {
      this.drop('undecodable-tx-batch');
      return this.penalize(from, 'undecodable-tx-batch', PENALTY.undecodable);
    }
    try {
      Promise.resolve(this.txHandler?.(txs, from)).catch((err: unknown) => this.o.log.error({ err }, 'transaction handler failed'));
    } catch (err) {
      this.o.log.error({ err }, 'transaction handler failed');
    }
  }
}
