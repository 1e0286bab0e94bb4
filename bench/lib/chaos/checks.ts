import type { RpcClient } from '../../../node/client/index.js';
import { toBigInt } from '../../../node/client/types.js';
import type { AccountKey } from '../../../node/config/keyfile.js';
import { batchAll } from './batch.js';
import type { Landed } from './load.js';

export type ChaosCheckCode =
  | 'STUCK'
  | 'NOT_VOTING'
  | 'FORK'
  | 'RECEIPT_MISMATCH'
  | 'ACCOUNT_MISMATCH'
  | 'COMMITTED_WITHOUT_QUORUM'
  | 'NO_RESUME'
  | 'NOT_DRAINED'
  | 'NODE_DIED'
  | 'HOOK_DID_NOT_FIRE';

/** A check of the chaos run failed; `message` holds what was seen, `node` the node to blame if any. */
export class ChaosCheckError extends Error {
  override readonly name = 'ChaosCheckError';
  constructor(
    readonly code: ChaosCheckCode,
    message: string,
    readonly node?: number,
  ) {
    super(message);
  }
}

export interface NodeRef {
  id: number;
  client: RpcClient;
}

const BLOCKS_PER_BATCH = 100;
const RECEIPTS_PER_BATCH = 1_000;

/** Throws FORK at the first seq in [from, to] whose block differs between `nodes`; returns how many seqs were compared. */
export async function checkSameChain(nodes: NodeRef[], from: number, to: number): Promise<number> {
  for (let lo = from; lo <= to; lo += BLOCKS_PER_BATCH) {
    const seqs = Array.from({ length: Math.min(BLOCKS_PER_BATCH, to - lo + 1) }, (_, k) => lo + k);
    const hashes = await Promise.all(
      nodes.map(async (n) => (await batchAll(n.client, seqs.map((s) => ({ method: 'ledger_getBlockBySeq', params: [s] })))).map((a) => (a.ok ? ((a.result as { hash: string } | null)?.hash ?? null) : `error: ${a.error.message}`))),
    );
    for (let k = 0; k < seqs.length; k++) {
      const at = nodes.map((_, j) => hashes[j]![k]);
      if (new Set(at).size !== 1) {
        throw new ChaosCheckError('FORK', `nodes disagree at seq ${seqs[k]}: ${nodes.map((n, j) => `node ${n.id} ${at[j]?.slice(0, 16) ?? 'none'}`).join(', ')}`);
      }
    }
  }
  return Math.max(0, to - from + 1);
}

/** Throws RECEIPT_MISMATCH unless every node gives each landed transaction the same block (hash and seq). */
export async function checkReceipts(nodes: NodeRef[], landed: Array<[string, Landed]>): Promise<number> {
  const bad: string[] = [];
  let count = 0;
  for (const n of nodes) {
    for (let i = 0; i < landed.length; i += RECEIPTS_PER_BATCH) {
      const chunk = landed.slice(i, i + RECEIPTS_PER_BATCH);
      const answers = await batchAll(n.client, chunk.map(([hash]) => ({ method: 'ledger_getReceipt', params: [hash] })));
      answers.forEach((a, k) => {
        const [hash, want] = chunk[k]!;
        const r = a.ok ? (a.result as { block_seq: number; block_hash: string } | null) : null;
        count++;
        if (r?.block_hash === want.blockHash && r.block_seq === want.seq) return;
        if (bad.length < 5) bad.push(`node ${n.id}: tx ${hash.slice(0, 16)} was in seq ${want.seq} (${want.blockHash.slice(0, 16)}), now ${r ? `seq ${r.block_seq} (${r.block_hash.slice(0, 16)})` : a.ok ? 'no receipt' : a.error.message}`);
        else bad.push('');
      });
    }
  }
  if (bad.length > 0) throw new ChaosCheckError('RECEIPT_MISMATCH', `${bad.length} receipts differ from the first one read:\n  ${bad.filter(Boolean).join('\n  ')}`);
  return count;
}

/**
 * With the load drained: every node reports the same nonce and balance for each sender, and the
 * nonce is the one the load generator is at (every transaction it signed committed, none twice).
 */
export async function checkAccounts(nodes: NodeRef[], senders: AccountKey[], expectedNonce: (i: number) => bigint): Promise<void> {
  const calls = senders.flatMap((s) => [
    { method: 'ledger_getNonce', params: [s.address] },
    { method: 'ledger_getBalance', params: [s.address] },
  ]);
  const views = await Promise.all(
    nodes.map(async (n) => (await batchAll(n.client, calls)).map((a) => (a.ok ? toBigInt(a.result, 'nonce or balance').toString() : `error: ${a.error.message}`))),
  );
  const bad: string[] = [];
  senders.forEach((s, i) => {
    const nonces = views.map((v) => v[2 * i]);
    const balances = views.map((v) => v[2 * i + 1]);
    const want = expectedNonce(i).toString();
    if (new Set(nonces).size !== 1 || nonces[0] !== want || new Set(balances).size !== 1) {
      bad.push(`sender ${i} (${s.address}): nonce ${nodes.map((n, j) => `node ${n.id} ${nonces[j]}`).join(', ')} (signed up to ${want}); balance ${nodes.map((n, j) => `node ${n.id} ${balances[j]}`).join(', ')}`);
    }
  });
  if (bad.length > 0) throw new ChaosCheckError('ACCOUNT_MISMATCH', `${bad.length} of ${senders.length} senders differ:\n  ${bad.slice(0, 5).join('\n  ')}`);
}
