import { isLedgerError } from '../errors.js';
import type { Logger } from '../logging.js';
import { decodeTransaction, encodeTransaction, transactionHash } from '../protocol/transaction.js';
import type { Mempool } from './mempool.js';

/** The part of the peer-to-peer network that carries transactions. Addresses are 20 bytes. */
export interface TransactionGossip {
  onTransactions(handler: (txs: Uint8Array[], from: Uint8Array) => void | Promise<void>): void;
  gossipTransactions(txs: Uint8Array[], except?: Uint8Array): void;
  penalize(peer: Uint8Array, reason: string, weight?: number): void;
}

/** Admission errors no honest peer causes; the rest (nonces, balances, DID state, a full pool) depend on the view of the chain. */
const PENALIZED = new Set(['MALFORMED_TRANSACTION', 'MALFORMED_PAYLOAD', 'TX_TOO_LARGE', 'BAD_SIGNATURE', 'WRONG_CHAIN']);

/**
 * Hands transactions between the mempool and the network.
 *
 * Every transaction admitted here from a client (RPC, a plugin) goes to every connected peer.
 * One that arrived by gossip is forwarded only when it came from a peer that is not a validator:
 * validators form a full mesh, so a validator's transactions already reach every validator
 * directly, and forwarding them again would multiply the traffic by the number of validators for
 * nothing. A full node's transactions reach the mesh through the validator it is connected to.
 *
 * Undecodable transactions and bad signatures cost the sending peer; stale nonces and a full pool
 * do not, since an honest peer with another view of the chain sends those too.
 */
export function connectMempoolGossip(o: {
  chainId: string;
  mempool: Mempool;
  gossip: TransactionGossip;
  isValidator: (address: Uint8Array) => boolean;
  log: Logger;
}): () => void {
  /** hex hash -> the peer it came from, while its admission runs */
  const fromPeer = new Map<string, Uint8Array>();
  const unsubscribe = o.mempool.onAdmitted((entry) => {
    const origin = fromPeer.get(entry.hash);
    if (origin && o.isValidator(origin)) return;
    o.gossip.gossipTransactions([encodeTransaction(entry.tx)], origin);
  });
  o.gossip.onTransactions(async (batch, from) => {
    for (const bytes of batch) {
      let hash: string;
      let admission: Promise<unknown>;
      try {
        const tx = decodeTransaction(bytes);
        hash = transactionHash(o.chainId, tx);
        if (o.mempool.has(hash)) continue;
        fromPeer.set(hash, from);
        admission = o.mempool.admit(tx);
      } catch (err) {
        o.gossip.penalize(from, 'undecodable-transaction');
        o.log.debug({ err }, 'dropped an undecodable gossiped transaction');
        continue;
      }
      try {
        await admission;
      } catch (err) {
        if (isLedgerError(err) && PENALIZED.has(err.code)) o.gossip.penalize(from, `rejected-transaction:${err.code}`);
      } finally {
        fromPeer.delete(hash);
      }
    }
  });
  return unsubscribe;
}
