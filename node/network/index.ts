export { P2PNetwork, type NetworkStats, type P2PNetworkOptions } from './p2p.js';
export { addressOfPeer, peerIdFromSeed } from './identity.js';
export { DEFAULT_PEER_LIMITS, type PeerLimits } from './limits.js';
