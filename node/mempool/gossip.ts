import { isLedgerError } from '../errors.js';
import { bytesEqual } from '../protocol/bytes.js';
import type { Logger } from '../logging.js';
import type { Block } from '../protocol/block.js';
import { decodeTransaction, encodeTransaction, transactionHash, type Transaction } from '../protocol/transaction.js';
import { LeaderResends } from './leader-resend.js';
import type { Mempool } from './mempool.js';

/** The part of the peer-to-peer network that carries transactions. Addresses are 20 bytes. */
export interface TransactionGossip {
  onTransactions(handler: (txs: Uint8Array[], from: Uint8Array) => void | Promise<void>): void;
  gossipTransactions(txs: Uint8Array[], except?: Uint8Array): void;
  sendTransactions(txs: Uint8Array[], to: (peer: Uint8Array) => boolean): void;
  penalize(peer: Uint8Array, reason: string, weight?: number): void;
}

/** The consensus engine's events the gossip follows to send again what no leader proposed (leader-resend.ts). */
export interface RoundEvents {
  on(event: 'round', listener: (e: { round: number; via?: string }) => void): unknown;
  on(event: 'block', listener: (b: Block) => void): unknown;
  off(event: 'round', listener: (e: { round: number; via?: string }) => void): unknown;
  off(event: 'block', listener: (b: Block) => void): unknown;
}

/** Admission errors no honest peer causes; the rest (nonces, balances, DID state, a full pool) depend on the view of the chain. */
const PENALIZED = new Set(['MALFORMED_TRANSACTION', 'MALFORMED_PAYLOAD', 'TX_TOO_LARGE', 'BAD_SIGNATURE', 'WRONG_CHAIN']);

/** How many of the coming leaders a client's transaction is sent to (three, not two: see below). */
export const LEADER_FANOUT = 3;

/**
 * Hands transactions between the mempool and the network.
 *
 * A transaction admitted here from a client (RPC, a plugin) goes to the validators that lead the
 * next LEADER_FANOUT rounds, and to every peer that is not a validator; not to every validator.
 * A leader's proposal carries it to the others, which check its signature once, when they
 * validate that block. Sending it to every validator as well cost each of them a frame, an
 * admission and a second decoding of the same bytes, and with 21 validators twenty frames per
 * transaction (docs/performance.md). Three leaders, not one: the next leader is often building
 * its block already, on votes this node has not seen, so with two a transaction waited about two
 * rounds for its first block under load (187 ms at p50 against 89 ms with three). It also stays
 * here, so this node proposes it when its own turn comes if no leader did (a dead leader, say).
 *
 * One that arrived by gossip is forwarded only when it came from a peer that is not a validator:
 * a validator has sent it where it had to go already. A full node's transactions reach the
 * leaders through the validator it is connected to. A node that does not validate, or whose
 * consensus has not started (no leaders known), sends a transaction to every peer.
 *
 * With `rounds`, one that no block has carried two rounds after it was sent goes to the then-coming
 * leaders again (leader-resend.ts).
 *
 * Undecodable transactions and bad signatures cost the sending peer; stale nonces and a full pool
 * do not, since an honest peer with another view of the chain sends those too.
 */
export function connectMempoolGossip(o: {
  chainId: string;
  mempool: Mempool;
  gossip: TransactionGossip;
  isValidator: (address: Uint8Array) => boolean;
  /** the validators expected to lead the next `count` rounds (empty when unknown) */
  upcomingLeaders: (count: number) => Uint8Array[];
  /** the engine's rounds and blocks; without them nothing is sent twice */
  rounds?: RoundEvents;
  /** told how many went to the leaders again in a round (a metric) */
  onResent?: (count: number) => void;
  log: Logger;
}): () => void {
  /** hex hash -> the peer it came from, while its admission runs */
  const fromPeer = new Map<string, Uint8Array>();
  const resends = new LeaderResends();
  /** the round this node is in, from the engine's events; undefined before the first */
  let round: number | undefined;
  const unsubscribe = o.mempool.onAdmitted((entry) => {
    const origin = fromPeer.get(entry.hash);
    if (origin && o.isValidator(origin)) return;
    const bytes = [encodeTransaction(entry.tx)];
    const leaders = o.upcomingLeaders(LEADER_FANOUT);
    if (leaders.length === 0) return o.gossip.gossipTransactions(bytes, origin);
    o.gossip.sendTransactions(bytes, (peer) => !(origin && bytesEqual(peer, origin)) && (!o.isValidator(peer) || leaders.some((l) => bytesEqual(l, peer))));
    if (round !== undefined) resends.sentAt(entry.hash, round);
  });
  const onBlock = (b: Block) => {
    // most blocks come while nothing waits here (every block, on a node no client sends to)
    if (resends.size > 0) resends.proposed(b.transactions.map((tx) => transactionHash(o.chainId, tx)));
  };
  const onRound = (e: { round: number; via?: string }) => {
    round = e.round;
    // after a timeout the network is already slow: do not add a burst to the next leader's block
    if (e.via === 'tc') return;
    const due = resends.due(round, (h) => o.mempool.has(h));
    if (due.length === 0) return;
    const leaders = o.upcomingLeaders(LEADER_FANOUT);
    if (leaders.length === 0) return;
    o.gossip.sendTransactions(
      due.map((h) => encodeTransaction(o.mempool.get(h)!.tx)),
      (peer) => o.isValidator(peer) && leaders.some((l) => bytesEqual(l, peer)),
    );
    o.onResent?.(due.length);
    o.log.debug({ count: due.length, round }, 'sent transactions no block carried to the coming leaders again');
  };
  o.rounds?.on('block', onBlock);
  o.rounds?.on('round', onRound);
  o.gossip.onTransactions(async (batch, from) => {
    const txs: Transaction[] = [];
    for (const bytes of batch) {
      try {
        const tx = decodeTransaction(bytes);
        if (!o.mempool.has(transactionHash(o.chainId, tx))) txs.push(tx);
      } catch (err) {
        o.gossip.penalize(from, 'undecodable-transaction');
        o.log.debug({ err }, 'dropped an undecodable gossiped transaction');
      }
    }
    // the whole batch's signatures in one go (worker threads when configured), then admission in order
    const signed = await o.mempool.verifySignatures(txs);
    for (const [i, tx] of txs.entries()) {
      if (!signed[i]) {
        o.gossip.penalize(from, 'rejected-transaction:BAD_SIGNATURE');
        continue;
      }
      const hash = transactionHash(o.chainId, tx);
      if (o.mempool.has(hash)) continue;
      fromPeer.set(hash, from);
      try {
        await o.mempool.admit(tx);
      } catch (err) {
        if (isLedgerError(err) && PENALIZED.has(err.code)) o.gossip.penalize(from, `rejected-transaction:${err.code}`);
      } finally {
        fromPeer.delete(hash);
      }
    }
  });
  return () => {
    unsubscribe();
    o.rounds?.off('block', onBlock);
    o.rounds?.off('round', onRound);
  };
}
