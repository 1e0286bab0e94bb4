import './polyfill.js';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import type { Libp2p, PeerId } from '@libp2p/interface';
import { tcp } from '@libp2p/tcp';
import { createLibp2p } from 'libp2p';
import { privateKeyFromSeed } from './identity.js';
import { batchYamuxWindowUpdates } from './yamux-window.js';

/** The libp2p node, not yet started: TCP, Noise, yamux and identify, keyed by the validator seed. */
export async function createHost(o: { seed: Uint8Array; host: string; port: number; isBanned: (peer: PeerId) => boolean }): Promise<Libp2p> {
  const ip = o.host.includes(':') ? 'ip6' : 'ip4';
  batchYamuxWindowUpdates();
  return createLibp2p({
    privateKey: await privateKeyFromSeed(o.seed),
    addresses: { listen: [`/${ip}/${o.host}/tcp/${o.port}`] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify() },
    // it pings over /ipfs/ping, which we do not run; yamux keep-alives detect dead peers
    connectionMonitor: { enabled: false },
    // a banned peer is refused both ways, whether or not its address named its peer id
    connectionGater: {
      denyDialPeer: o.isBanned,
      denyInboundEncryptedConnection: o.isBanned,
      denyOutboundEncryptedConnection: o.isBanned,
    },
    start: false,
  });
}
