import type { BatchResult, RpcCall, RpcClient } from '../../../node/client/index.js';

/** A node takes at most 100 calls in one JSON-RPC batch. */
const MAX_BATCH = 100;

/** `calls` in batches a node accepts, in sequence; results in the order of `calls`. */
export async function batchAll(client: RpcClient, calls: RpcCall[]): Promise<BatchResult[]> {
  const out: BatchResult[] = [];
  for (let i = 0; i < calls.length; i += MAX_BATCH) out.push(...(await client.batch(calls.slice(i, i + MAX_BATCH))));
  return out;
}
