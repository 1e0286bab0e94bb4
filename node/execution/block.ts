import { toHex } from '../protocol/bytes.js';
import { MAX_BLS_PAYLOADS_PER_BLOCK } from '../protocol/params.js';
import { transactionHashBytes, type Transaction } from '../protocol/transaction.js';
import { applyTransaction, InclusionError, type TxOutcome } from './apply.js';
import type { BlockContext } from './context.js';
import { expireCredentialRequest } from './credentials.js';
import { StateOverlay, type StateChange, type StateReader } from './overlay.js';
import { completeRecovery } from './recovery.js';
import { expireVerificationRequest } from './verification.js';
import { SCHEDULED_KINDS, takeTasks } from './scheduled.js';
import { applyEpochBoundary, type EpochValidatorSet } from './validator-set.js';

export interface ExecutedTx {
  tx: Transaction;
  hash: Uint8Array;
  outcome: TxOutcome;
}

export interface BlockExecution {
  txs: ExecutedTx[];
  changes: StateChange[];
  /**
   * Set when this block ends an epoch: the next epoch's validator set, which `changes` writes to
   * state. The engine switches to it when this block commits (execution/validator-set.ts).
   */
  validatorSet?: EpochValidatorSet;
}

export interface ExcludedTx {
  tx: Transaction;
  hash: Uint8Array;
  error: InclusionError;
}

/**
 * Executes a proposed block exactly as given. A transaction that could not be included (wrong
 * nonce, fee unpayable) makes the whole block invalid: it throws InclusionError.
 */
export async function executeBlock(state: StateReader, chainId: string, ctx: BlockContext, txs: Transaction[]): Promise<BlockExecution> {
  const overlay = new StateOverlay(state);
  const txCtx = { ...ctx, chainId };
  const executed: ExecutedTx[] = [];
  let blsPayloads = 0;
  for (const tx of txs) {
    if (usesBls(tx) && ++blsPayloads > MAX_BLS_PAYLOADS_PER_BLOCK) throw blsLimit();
    const hash = transactionHashBytes(chainId, tx);
    executed.push({ tx, hash, outcome: await applyTransaction(overlay, txCtx, tx, hash) });
  }
  return finish(overlay, ctx, executed);
}

/** After the transactions: the tasks due at this height, the epoch step (validator-set.ts), then the sorted writes. */
async function finish(overlay: StateOverlay, ctx: BlockContext, txs: ExecutedTx[]): Promise<BlockExecution> {
  await runScheduledTasks(overlay, ctx);
  const validatorSet = await applyEpochBoundary(overlay, ctx.height);
  const changes = overlay.changes();
  return validatorSet ? { txs, changes, validatorSet } : { txs, changes };
}

/** Each task re-checks state itself, so one made moot since it was scheduled does nothing. */
async function runScheduledTasks(overlay: StateOverlay, ctx: BlockContext): Promise<void> {
  for (const task of await takeTasks(overlay, ctx.height)) {
    switch (task.kind) {
      case SCHEDULED_KINDS.recoveryDue:
        await completeRecovery(overlay, ctx, task.id);
        break;
      case SCHEDULED_KINDS.credentialDeadline:
        await expireCredentialRequest(overlay, task.id);
        break;
      case SCHEDULED_KINDS.verificationDeadline:
        await expireVerificationRequest(overlay, task.id);
        break;
      default:
        throw new Error(`no handler for scheduled task kind ${(task.kind satisfies never) as number}`);
    }
  }
}

/** Payloads whose execution checks BLS signatures (a pairing each): a block carries few of them. */
function usesBls(tx: Transaction): boolean {
  return tx.payload.kind === 'ValidatorRegister' || tx.payload.kind === 'SubmitEvidence';
}

function blsLimit(): InclusionError {
  return new InclusionError('BLOCK_BLS_LIMIT', `a block carries at most ${MAX_BLS_PAYLOADS_PER_BLOCK} ValidatorRegister and SubmitEvidence transactions`);
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
  const txCtx = { ...ctx, chainId };
  const executed: ExecutedTx[] = [];
  const excluded: ExcludedTx[] = [];
  const seen = new Set<string>();
  let blsPayloads = 0;
  for (const tx of candidates) {
    const hash = transactionHashBytes(chainId, tx);
    const id = toHex(hash);
    if (seen.has(id)) continue;
    seen.add(id);
    // Run each candidate on a child layer so an excluded one leaves no trace.
    const child = new StateOverlay(overlay);
    try {
      if (usesBls(tx) && blsPayloads >= MAX_BLS_PAYLOADS_PER_BLOCK) throw blsLimit();
      const outcome = await applyTransaction(child, txCtx, tx, hash);
      if (usesBls(tx)) blsPayloads++;
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
  return { ...(await finish(overlay, ctx, executed)), excluded };
}
