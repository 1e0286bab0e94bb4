import type { Connection, PeerId } from '@libp2p/interface';
import { TokenBucket, type PeerLimits } from './limits.js';
import type { Outbound } from './outbound.js';

/** One connected peer: all its connections, its outbound streams and its inbound rate limits. */

/** consensus messages, transaction batches, and subjects' presentations on their way to a committee */
export type Kind = 'consensus' | 'tx' | 'presentation';

export interface Peer {
  /** hex of the address */
  key: string;
  address: Uint8Array;
  peerId: PeerId;
  conns: Set<Connection>;
  out: Record<Kind, Outbound>;
  frames: Record<Kind, TokenBucket>;
  bytes: Record<Kind, TokenBucket>;
}

export interface PeerInfo {
  address: Uint8Array;
  peerId: string;
  remoteAddr: string;
}

export function newPeer(o: { key: string; address: Uint8Array; conn: Connection; limits: PeerLimits; outbound: (kind: Kind) => Outbound; now: number }): Peer {
  const { limits: l, now } = o;
  return {
    key: o.key,
    address: o.address,
    peerId: o.conn.remotePeer,
    conns: new Set([o.conn]),
    out: { consensus: o.outbound('consensus'), tx: o.outbound('tx'), presentation: o.outbound('presentation') },
    frames: {
      consensus: new TokenBucket(l.consensusFramesPerSecond, now),
      tx: new TokenBucket(l.txFramesPerSecond, now),
      presentation: new TokenBucket(l.presentationFramesPerSecond, now),
    },
    bytes: {
      consensus: new TokenBucket(l.consensusBytesPerSecond, now),
      tx: new TokenBucket(l.txBytesPerSecond, now),
      presentation: new TokenBucket(l.presentationBytesPerSecond, now),
    },
  };
}

export function peerInfo(p: Peer, conn?: Connection): PeerInfo {
  const c = conn ?? [...p.conns][0];
  return { address: p.address, peerId: p.peerId.toString(), remoteAddr: c?.remoteAddr.toString() ?? '' };
}
