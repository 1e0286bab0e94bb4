import { Mempool } from '../../../node/mempool/index.js';
import { createMethods } from '../../../node/rpc/ledger/index.js';
import { createVerifyPool } from '../../../node/rpc/verification/pool.js';
import { ChainStore } from '../../../node/state/chain-store.js';
import { openDatabase } from '../../../node/state/db.js';

export interface MethodShape {
  name: string;
  params: Array<{ name: string; optional: boolean }>;
}

/**
 * The node's own JSON-RPC method table (createMethods, the one list node.ts serves), with each
 * method's positional params: built over an empty in-memory store, since only the names and
 * param specs are read. The fuzzer covers whatever the table holds, so a new method is fuzzed
 * without anyone listing it here.
 */
export async function methodTable(): Promise<MethodShape[]> {
  const db = await openDatabase('memory');
  const verifier = createVerifyPool({ threads: 0, maxQueuedCost: 1 });
  try {
    const chainId = 'fuzz-method-table';
    const store = await ChainStore.open(db, { chainId });
    const methods = createMethods({
      chainId,
      network: 'testnet',
      version: '0.0.0',
      startedAtMs: Date.now(),
      store,
      mempool: new Mempool({ chainId, network: 'testnet', state: store.stateReader() }),
      allowSubjectEnumeration: false,
      verifier,
      evidence: () => [],
    });
    return methods.map((m) => ({ name: m.name, params: m.params.map((p) => ({ name: p.name, optional: p.optional })) }));
  } finally {
    await verifier.close();
    await db.close();
  }
}
