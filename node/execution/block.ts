import { blake3 } from '../crypto/hash.js';
import { concatBytes, toHex } from '../protocol/bytes.js';
import { signingBytes, type Transaction } from '../protocol/transaction.js';
import { applyTransaction, InclusionError, type BlockContext, type TxOutcome } from './apply.js';
import { StateOverlay, type StateChange, type StateReader } from './overlay.js';

export interface ExecutedTx {
  tx: Transaction;
  hash: Uint8Array;
  outcome: TxOutcome;
}

export interface BlockExecution {
  txs: ExecutedTx[];
  changes: StateChange[];
}

export interface ExcludedTx {
  tx: Transaction;
  hash: Uint8Array;
  error: InclusionError;
}

export function txHashBytes(chainId: string, tx: Transaction): Uint8Array {
  return blake3(concatBytes(signingBytes(chainId, tx), tx.signature));
}

/**
 * Executes a proposed block exactly as given. A transaction that could not be included (wrong
 * nonce, fee unpayable) makes the whole block invalid: it throws InclusionError.
 */
export async function executeBlock(state: StateReader, chainId: string, ctx: BlockContext, txs: Transaction[]): Promise<BlockExecution> {
  const overlay = new StateOverlay(state);
  const executed: ExecutedTx[] = [];
  for (const tx of txs) {
    const hash = txHashBytes(chainId, tx);
    executed.push({ tx, hash, outcome: await applyTransaction(overlay, ctx, tx, hash) });
  }
  return { txs: executed, changes: overlay.changes() };
}

/**
 * Builds a block body from candidates in order, leaving out each transaction that cannot be
 * included, so that the proposer never proposes an invalid block. Returns what was left out, so the
 * mempool can drop it or keep it for later.
 */
export async function buildBlockBody(
  state: StateReader,
  chainId: string,
  ctx: BlockContext,
  candidates: Transaction[],
): Promise<BlockExecution & { excluded: ExcludedTx[] }> {
  const overlay = new StateOverlay(state);
  const executed: ExecutedTx[] = [];
  const excluded: ExcludedTx[] = [];
  const seen = new Set<string>();
  for (const tx of candidates) {
    const hash = txHashBytes(chainId, tx);
    const id = toHex(hash);
    if (seen.has(id)) continue;
    seen.add(id);
    // Run each candidate on a child layer so an excluded one leaves no trace.
    const child = new StateOverlay(overlay);
    try {
      const outcome = await applyTransaction(child, ctx, tx, hash);
      for (const c of child.changes()) {
        if (c.value === null) overlay.delete(c.key);
        else overlay.put(c.key, c.value);
      }
      executed.push({ tx, hash, outcome });
    } catch (err) {
      if (!(err instanceof InclusionError)) throw err;
      excluded.push({ tx, hash, error: err });
    }
  }
  return { txs: executed, changes: overlay.changes(), excluded };
}
