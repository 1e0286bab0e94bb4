import './polyfill.js';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import type { Connection, Libp2p, PeerId, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p } from 'libp2p';
import { EventEmitter } from 'node:events';
import { decodeMessage, encodeMessage } from '../consensus/codec.js';
import type { ConsensusMessage, ConsensusTransport } from '../consensus/types.js';
import type { Logger } from '../logging.js';
import { toHex } from '../protocol/bytes.js';
import { encodeFrame, FrameDecoder } from './framing.js';
import { addressOfPeer, privateKeyFromSeed } from './identity.js';
import { DEFAULT_PEER_LIMITS, PeerScores, TokenBucket, type PeerLimits } from './limits.js';
import { decodeTxBatch, encodeTxBatch, MAX_TXS_PER_BATCH } from './tx-batch.js';

/**
 * The peer-to-peer network: libp2p over TCP with Noise and yamux, plus identify.
 *
 * Consensus messages and transactions travel on direct streams, not gossipsub. Votes go to one
 * leader, the validator set is a small full mesh, and a direct stream delivers in one hop with no
 * heartbeat wait and no duplicate fan-out; transaction forwarding beyond the mesh is decided in
 * mempool/gossip.ts. Each peer gets one long-lived outbound stream per protocol carrying
 * length-prefixed frames (framing.ts).
 *
 * A peer's validator address comes from its Noise-authenticated Ed25519 key (identity.ts), so
 * `from` in every delivered message is authenticated. Oversized or undecodable frames, and
 * content the node rejects, lower the sender's score (limits.ts); at the threshold it is
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

export interface NetworkStats {
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  bans: number;
  dropped: Record<string, number>;
}

type Kind = 'consensus' | 'tx';

interface Outbound {
  stream: Stream | undefined;
  opening: boolean;
  queue: Uint8Array[];
  queuedBytes: number;
}

interface Peer {
  key: string;
  address: Uint8Array;
  peerId: PeerId;
  conns: Set<Connection>;
  out: Map<Kind, Outbound>;
  frames: Record<Kind, TokenBucket>;
  bytes: Record<Kind, TokenBucket>;
}

/** what one peer's unsent frames may hold, per protocol, before we drop */
const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
const TX_FLUSH_MS = 5;
const TX_FLUSH_BYTES = 256 * 1024;
const REDIAL_MIN_MS = 250;
const REDIAL_MAX_MS = 2_000;
const DIAL_TIMEOUT_MS = 5_000;

export class P2PNetwork extends EventEmitter {
  readonly consensus: ConsensusTransport;
  private readonly peersByKey = new Map<string, Peer>();
  private readonly scores: PeerScores;
  private readonly protocols: Record<Kind, string>;
  private consensusHandler: ((from: Uint8Array, msg: ConsensusMessage) => void) | undefined;
  private txHandler: ((txs: Uint8Array[], from: Uint8Array) => void | Promise<void>) | undefined;
  private txQueue: Array<{ bytes: Uint8Array; except: string | undefined }> = [];
  private txQueueBytes = 0;
  private txTimer: NodeJS.Timeout | undefined;
  private readonly stopper = new AbortController();
  private readonly s: NetworkStats = { framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, bans: 0, dropped: {} };

  private constructor(
    private readonly node: Libp2p,
    private readonly o: P2PNetworkOptions,
    private readonly limits: PeerLimits,
  ) {
    super();
    this.scores = new PeerScores(limits);
    this.protocols = { consensus: `/ledger/${o.chainId}/consensus/1`, tx: `/ledger/${o.chainId}/tx/1` };
    this.consensus = {
      broadcast: (msg) => {
        const bytes = encodeMessage(msg);
        for (const p of this.peersByKey.values()) this.send(p, 'consensus', bytes);
      },
      send: (to, msg) => {
        const p = this.peersByKey.get(toHex(to));
        if (p) this.send(p, 'consensus', encodeMessage(msg));
        else this.drop('not-connected');
      },
      onMessage: (handler) => {
        this.consensusHandler = handler;
      },
    };
  }

  static async create(o: P2PNetworkOptions): Promise<P2PNetwork> {
    const limits = { ...DEFAULT_PEER_LIMITS, ...o.limits };
    const ip = o.host.includes(':') ? 'ip6' : 'ip4';
    let net: P2PNetwork | undefined;
    const banned = (peer: PeerId) => net?.isBanned(peer) ?? false;
    const node = await createLibp2p({
      privateKey: await privateKeyFromSeed(o.seed),
      addresses: { listen: [`/${ip}/${o.host}/tcp/${o.port}`] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      services: { identify: identify() },
      connectionMonitor: { enabled: false },
      connectionGater: { denyInboundEncryptedConnection: banned, denyOutboundConnection: banned },
      start: false,
    });
    net = new P2PNetwork(node, o, limits);
    await net.start();
    return net;
  }

  get peerId(): string {
    return this.node.peerId.toString();
  }

  listenAddrs(): string[] {
    return this.node.getMultiaddrs().map((a) => a.toString());
  }

  peerCount(): number {
    return this.peersByKey.size;
  }

  peers(): Array<{ address: Uint8Array; peerId: string; remoteAddr: string }> {
    return [...this.peersByKey.values()].map((p) => ({ address: p.address, peerId: p.peerId.toString(), remoteAddr: [...p.conns][0]?.remoteAddr.toString() ?? '' }));
  }

  stats(): NetworkStats {
    return { ...this.s, dropped: { ...this.s.dropped } };
  }

  onTransactions(handler: (txs: Uint8Array[], from: Uint8Array) => void | Promise<void>): void {
    this.txHandler = handler;
  }

  /** Queues encoded transactions for every connected peer but `except`; sent in batches. */
  gossipTransactions(txs: Uint8Array[], except?: Uint8Array): void {
    const skip = except && toHex(except);
    for (const bytes of txs) {
      if (this.txQueueBytes > MAX_QUEUED_BYTES) {
        this.drop('tx-queue-full');
        continue;
      }
      this.txQueue.push({ bytes, except: skip });
      this.txQueueBytes += bytes.length;
    }
    if (this.txQueueBytes >= TX_FLUSH_BYTES) this.flushTxs();
    else this.txTimer ??= setTimeout(() => this.flushTxs(), TX_FLUSH_MS);
  }

  /** Lowers a peer's score for bad content; at the threshold it is disconnected and banned. */
  penalize(address: Uint8Array, reason: string, weight = 10): void {
    const key = toHex(address);
    this.o.log.debug({ peer: key, reason, weight }, 'peer penalized');
    if (!this.scores.penalize(key, weight, Date.now())) return;
    this.s.bans++;
    const peer = this.peersByKey.get(key);
    this.o.log.warn({ address: key, peer_id: peer?.peerId.toString(), reason }, 'peer banned');
    for (const c of peer?.conns ?? []) c.abort(new Error(`banned: ${reason}`));
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    clearTimeout(this.txTimer);
    this.txTimer = undefined;
    await this.node.stop();
    this.peersByKey.clear();
  }

  private async start(): Promise<void> {
    for (const kind of ['consensus', 'tx'] as const) {
      await this.node.handle(this.protocols[kind], (stream, conn) => this.read(kind, stream, conn), { maxInboundStreams: 8 });
    }
    this.node.addEventListener('connection:open', (e) => this.onOpen(e.detail));
    this.node.addEventListener('connection:close', (e) => this.onClose(e.detail));
    await this.node.start();
    for (const addr of this.o.bootstrap) void this.keepDialing(addr);
  }

  private isBanned(peer: PeerId): boolean {
    const address = addressOfPeer(peer);
    return !address || this.scores.isBanned(toHex(address), Date.now());
  }

  private drop(reason: string): void {
    this.s.dropped[reason] = (this.s.dropped[reason] ?? 0) + 1;
  }

  private onOpen(conn: Connection): void {
    const address = addressOfPeer(conn.remotePeer);
    if (!address || this.scores.isBanned(toHex(address), Date.now())) {
      conn.abort(new Error('not an accepted peer'));
      return;
    }
    const key = toHex(address);
    let peer = this.peersByKey.get(key);
    if (!peer) {
      const now = Date.now();
      const l = this.limits;
      peer = {
        key,
        address,
        peerId: conn.remotePeer,
        conns: new Set(),
        out: new Map(),
        frames: { consensus: new TokenBucket(l.consensusFramesPerSecond, now), tx: new TokenBucket(l.txFramesPerSecond, now) },
        bytes: { consensus: new TokenBucket(l.consensusBytesPerSecond, now), tx: new TokenBucket(l.txBytesPerSecond, now) },
      };
      this.peersByKey.set(key, peer);
      peer.conns.add(conn);
      this.o.log.info({ peer_id: conn.remotePeer.toString(), remote: conn.remoteAddr.toString() }, 'peer connected');
      this.emit('peer:connect', address);
      return;
    }
    peer.conns.add(conn);
  }

  private onClose(conn: Connection): void {
    const address = addressOfPeer(conn.remotePeer);
    const peer = address && this.peersByKey.get(toHex(address));
    if (!peer || !peer.conns.delete(conn) || peer.conns.size > 0) return;
    this.peersByKey.delete(peer.key);
    this.o.log.info({ peer_id: conn.remotePeer.toString() }, 'peer disconnected');
    this.emit('peer:disconnect', peer.address);
  }

  // ---- sending ----

  private send(peer: Peer, kind: Kind, payload: Uint8Array): void {
    const frame = encodeFrame(payload);
    let out = peer.out.get(kind);
    if (!out) {
      out = { stream: undefined, opening: false, queue: [], queuedBytes: 0 };
      peer.out.set(kind, out);
    }
    if (out.stream?.status === 'open' && out.queue.length === 0) {
      if (out.stream.writeBufferLength > MAX_QUEUED_BYTES) return this.drop('backpressure');
      this.write(out.stream, frame);
      return;
    }
    if (out.queuedBytes + frame.length > MAX_QUEUED_BYTES) return this.drop('backpressure');
    out.queue.push(frame);
    out.queuedBytes += frame.length;
    if (!out.opening) void this.open(peer, kind, out);
  }

  private write(stream: Stream, frame: Uint8Array): void {
    try {
      stream.send(frame);
      this.s.framesOut++;
      this.s.bytesOut += frame.length;
    } catch {
      this.drop('stream-closed');
    }
  }

  private async open(peer: Peer, kind: Kind, out: Outbound): Promise<void> {
    out.opening = true;
    try {
      const conn = [...peer.conns].find((c) => c.status === 'open');
      if (!conn) throw new Error('no open connection');
      const stream = await conn.newStream(this.protocols[kind], { signal: AbortSignal.any([this.stopper.signal, AbortSignal.timeout(DIAL_TIMEOUT_MS)]) });
      out.stream = stream;
      stream.addEventListener('close', () => {
        if (out.stream === stream) out.stream = undefined;
      });
      for (const frame of out.queue) this.write(stream, frame);
    } catch (err) {
      for (let i = 0; i < out.queue.length; i++) this.drop('open-failed');
      this.o.log.debug({ err, peer: peer.key, kind }, 'could not open a stream');
    } finally {
      out.queue = [];
      out.queuedBytes = 0;
      out.opening = false;
    }
  }

  private flushTxs(): void {
    clearTimeout(this.txTimer);
    this.txTimer = undefined;
    const queue = this.txQueue;
    this.txQueue = [];
    this.txQueueBytes = 0;
    for (const peer of this.peersByKey.values()) {
      const mine = queue.filter((q) => q.except !== peer.key).map((q) => q.bytes);
      for (let i = 0; i < mine.length; i += MAX_TXS_PER_BATCH) this.send(peer, 'tx', encodeTxBatch(mine.slice(i, i + MAX_TXS_PER_BATCH)));
    }
  }

  // ---- receiving ----

  private read(kind: Kind, stream: Stream, conn: Connection): void {
    const address = addressOfPeer(conn.remotePeer);
    if (!address) return stream.abort(new Error('not an Ed25519 peer'));
    const key = toHex(address);
    const decoder = new FrameDecoder(kind === 'consensus' ? this.limits.maxConsensusFrameBytes : this.limits.maxTxFrameBytes);
    stream.addEventListener('message', (e) => {
      const chunk = e.data instanceof Uint8Array ? e.data : e.data.subarray();
      // a plain view, not a Buffer, so decoded fields compare and serialize like any Uint8Array
      const data = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let frames: Uint8Array[];
      try {
        frames = decoder.push(data);
      } catch (err) {
        this.penalize(address, 'frame-too-large', 50);
        stream.abort(err as Error);
        return;
      }
      const peer = this.peersByKey.get(key);
      for (const frame of frames) {
        this.s.framesIn++;
        this.s.bytesIn += frame.length + 4;
        if (!peer) return this.drop('unknown-peer');
        const now = Date.now();
        if (!peer.frames[kind].take(1, now) || !peer.bytes[kind].take(frame.length, now)) {
          this.drop(`rate-limited-${kind}`);
          this.penalize(address, `rate-limited-${kind}`, 2);
          continue;
        }
        this.deliver(kind, address, frame);
      }
    });
  }

  private deliver(kind: Kind, from: Uint8Array, frame: Uint8Array): void {
    if (kind === 'consensus') {
      let msg: ConsensusMessage;
      try {
        msg = decodeMessage(frame);
      } catch {
        this.drop('undecodable-consensus');
        return this.penalize(from, 'undecodable-consensus', 20);
      }
      this.consensusHandler?.(from, msg);
      return;
    }
    let txs: Uint8Array[];
    try {
      txs = decodeTxBatch(frame);
    } catch {
      this.drop('undecodable-tx-batch');
      return this.penalize(from, 'undecodable-tx-batch', 20);
    }
    Promise.resolve(this.txHandler?.(txs, from)).catch((err: unknown) => this.o.log.error({ err }, 'transaction handler failed'));
  }

  // ---- dialing ----

  /** Dials a bootstrap address whenever its peer is not connected, backing off on failure. */
  private async keepDialing(addr: string): Promise<void> {
    const signal = this.stopper.signal;
    let target;
    try {
      target = multiaddr(addr);
    } catch (err) {
      this.o.log.error({ err, addr }, 'bad bootstrap address; skipped');
      return;
    }
    const named = target.getComponents().find((c) => c.name === 'p2p')?.value;
    let peerId: PeerId | undefined = named ? peerIdFromString(named) : undefined;
    if (peerId?.equals(this.node.peerId)) return;
    let delay = REDIAL_MIN_MS;
    while (!signal.aborted) {
      const connected = peerId !== undefined && this.node.getConnections(peerId).length > 0;
      if (!connected) {
        try {
          const conn = await this.node.dial(target, { signal: AbortSignal.any([signal, AbortSignal.timeout(DIAL_TIMEOUT_MS)]) });
          peerId = conn.remotePeer;
          if (peerId.equals(this.node.peerId)) return;
          delay = REDIAL_MIN_MS;
        } catch (err) {
          if (signal.aborted) return;
          this.o.log.debug({ err, addr }, 'bootstrap dial failed');
          delay = Math.min(delay * 2, REDIAL_MAX_MS);
        }
      }
      await sleep(connected ? REDIAL_MAX_MS : delay, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
