export { MAX_QUEUED_BYTES, P2PNetwork, type NetworkStats, type P2PNetworkEvent, type P2PNetworkOptions, type PeerInfo } from './p2p.js';
export { addressFromPeerId, addressOfPeer, peerIdFromSeed } from './identity.js';
export { DEFAULT_PEER_LIMITS, MAX_CONSENSUS_FRAME_BYTES, MAX_TX_FRAME_BYTES, PENALTY, type PeerLimits } from './limits.js';
export { MAX_TX_BATCH_BYTES, MAX_TXS_PER_BATCH, TX_FLUSH_BYTES, TX_FLUSH_MS } from './tx-batch.js';
