import type { CommittedBlock } from '../../../node/chain/app.js';
import type { Ed25519KeyPair } from '../../../node/crypto/ed25519.js';
import { blockHash, transactionsRoot, type Block } from '../../../node/protocol/block.js';
import { toHex } from '../../../node/protocol/bytes.js';
import type { Payload } from '../../../node/protocol/payloads.js';
import { SUCCESS, type Receipt, type ReceiptEvent } from '../../../node/protocol/receipt.js';
import { signTransaction, transactionHash, type Transaction } from '../../../node/protocol/transaction.js';

/** A transaction of a test block, with the receipt status and events execution would have written. */
export interface TxSpec {
  from: Ed25519KeyPair;
  payload: Payload;
  status?: string;
  events?: ReceiptEvent[];
}

/**
 * Committed blocks from seq 0 with these transactions and receipts, for the explorer's indexer:
 * linked by parent hash, the proposer fixed. `sign: false` leaves the signatures zero (the indexer
 * does not check them); nonces count up across the chain unless `nonce` says otherwise.
 */
export function committedChain(
  chainId: string,
  blocks: TxSpec[][],
  o: { proposer: Uint8Array; height: (seq: number) => number; timestampMs: (seq: number) => number; nonce?: (seq: number, index: number) => bigint; sign?: boolean },
): CommittedBlock[] {
  let parent: Uint8Array = new Uint8Array(32);
  let counter = 0n;
  return blocks.map((specs, seq) => {
    const transactions: Transaction[] = specs.map((s, i) => {
      const unsigned = { senderPubkey: s.from.publicKey, nonce: o.nonce ? o.nonce(seq, i) : counter++, payload: s.payload };
      return o.sign === false ? { ...unsigned, signature: new Uint8Array(64) } : signTransaction(chainId, unsigned, s.from.seed);
    });
    const header = {
      height: o.height(seq),
      round: seq,
      parentHash: parent,
      stateRoot: new Uint8Array(32).fill(seq % 256),
      transactionsRoot: transactionsRoot(chainId, transactions),
      timestampMs: o.timestampMs(seq),
      proposer: o.proposer,
      justify: { round: 0, height: 0, blockHash: parent, signers: Uint8Array.of(1), signature: new Uint8Array(96) },
    };
    const block: Block = { header, hash: blockHash(header), transactions };
    parent = block.hash;
    const receipts: Receipt[] = transactions.map((tx, i) => ({
      tx_hash: transactionHash(chainId, tx),
      status: specs[i]!.status ?? SUCCESS,
      block_height: header.height,
      fee_paid: 10n,
      events: specs[i]!.events ?? [],
      block_hash: toHex(block.hash),
      block_seq: seq,
      tx_index: i,
    }));
    return { block, seq, receipts };
  });
}
