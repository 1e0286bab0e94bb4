import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { consistentShape, verifyBbsProofs, type BbsProofInput } from '../../crypto/bbs.js';
import { LedgerError } from '../../errors.js';
import { BbsBatcher } from './bbs-batcher.js';
import type { VerifyTask } from './worker.js';
import type { Credential } from '../../protocol/credential-document.js';

/**
 * Where expensive RPC verification runs (docs/rpc.md, "Expensive verification"): a bounded pool
 * of worker threads, so that consensus and cheap calls on the event loop are never delayed by it.
 * The queue is bounded by cost, not by count, since one proof may cost a hundred times another:
 * past `maxQueuedCost` units waiting or running, a call fails at once with VERIFY_QUEUE_FULL,
 * which the RPC answers as busy. A call larger than the bound still runs on an idle pool.
 */

export interface VerifyPoolOptions {
  /** worker threads; 0 runs the work on the calling thread (unit tests only) */
  threads: number;
  /** most work units waiting or running at once */
  maxQueuedCost: number;
  /** how long a BBS proof that finds a thread free waits for others (bbs-batcher.ts); 0 when absent */
  bbsBatchWindowMs?: number;
}

export interface VerifyPoolStats {
  /** work units waiting or running now */
  queuedCost: number;
  /** calls waiting or running now */
  pending: number;
}

/** BBS batches sent to the threads since start, and the proofs in them (bbs-batcher.ts) */
export interface BbsBatchStats {
  batches: number;
  proofs: number;
}

/**
 * `duty`: a committee member's check (node/verification/answerer.ts). It counts in the queue, so
 * that RPC callers are answered busy while the validator has committee work, but it is never
 * refused for the queue's bound: the answerer bounds its own checks, and a refused check would
 * lose a presentation the subject was told was taken.
 */
export interface VerifyCallOptions {
  duty?: boolean;
}

export interface VerifyPool {
  /** Verifies a BBS proof; `cost` is its price in work units (cost.ts). Malformed input is false at once. */
  verifyBbs(input: BbsProofInput, cost: number, o?: VerifyCallOptions): Promise<boolean>;
  /** Verifies a W3C credential's Ed25519Signature2020 proof under the issuer's key. */
  verifyCredentialProof(credential: Credential, issuerKey: Uint8Array, o?: VerifyCallOptions): Promise<boolean>;
  /** The credential's SHA-256 hash as registered on chain. */
  credentialHash(credential: Credential, o?: VerifyCallOptions): Promise<Uint8Array>;
  stats(): VerifyPoolStats;
  bbsBatches(): BbsBatchStats;
  close(): Promise<void>;
}

/** The default thread count: half the cores, at least 1 and at most 4, so consensus keeps a core. */
export function defaultVerifyThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}

/** JSON-LD canonicalization of one credential, in work units (about 1 ms of a core each) */
const JSON_LD_COST = 10;

export function createVerifyPool(opts: VerifyPoolOptions): VerifyPool {
  let queuedCost = 0;
  let pending = 0;
  const pool = opts.threads > 0 ? startPiscina(opts.threads) : undefined;
  const admitted = async <T>(cost: number, o: VerifyCallOptions | undefined, work: () => Promise<T>): Promise<T> => {
    if (!o?.duty && pending > 0 && queuedCost + cost > opts.maxQueuedCost) {
      throw new LedgerError('VERIFY_QUEUE_FULL', `busy: ${queuedCost} work units of verification are queued, the limit is ${opts.maxQueuedCost}; this call costs ${cost}`, 'limit', {
        queuedCost,
        maxQueuedCost: opts.maxQueuedCost,
        cost,
      });
    }
    queuedCost += cost;
    pending++;
    try {
      return await work();
    } finally {
      queuedCost -= cost;
      pending--;
    }
  };
  // inline (tests only), the worker module is loaded on first use: it brings JSON-LD, which a node's start need not load
  const bbs = new BbsBatcher(
    (inputs) => (pool ? (pool.run({ op: 'bbs', inputs } satisfies VerifyTask) as Promise<boolean[]>) : verifyBbsProofs(inputs)),
    Math.max(1, opts.threads),
    opts.bbsBatchWindowMs ?? 0,
  );
  const exec = async (task: VerifyTask) => (pool ? (pool.run(task) as Promise<boolean | Uint8Array>) : (await import('./worker.js')).default(task));
  return {
    verifyBbs: async (input, cost, o) => {
      if (!consistentShape(input)) return false;
      return admitted(cost, o, () => bbs.verify(input));
    },
    verifyCredentialProof: (credential, issuerKey, o) => admitted(JSON_LD_COST, o, () => exec({ op: 'credential-proof', credential, issuerKey }) as Promise<boolean>),
    credentialHash: (credential, o) => admitted(JSON_LD_COST, o, () => exec({ op: 'credential-hash', credential }) as Promise<Uint8Array>),
    stats: () => ({ queuedCost, pending }),
    bbsBatches: () => ({ batches: bbs.batches, proofs: bbs.proofs }),
    close: async () => {
      await pool?.destroy();
    },
  };
}

function startPiscina(threads: number): Piscina {
  // Under the TypeScript loader (tests) this module is a .ts file; built, it is .js.
  const filename = fileURLToPath(import.meta.url).replace(/pool\.(ts|js)$/, (_m, ext: string) => `worker.${ext}`);
  // Threads start on the first call and leave after a minute idle: a node nobody asks for proofs
  // pays nothing. Piscina's own queue is unbounded: the cost bound above is the one that counts.
  return new Piscina({ filename, minThreads: 0, maxThreads: threads, idleTimeout: 60_000 });
}
