export { Mempool, MEMPOOL_DEFAULTS, type AdmitResult, type AdmittedListener, type CommitResult, type MempoolOptions } from './mempool.js';
export type { PendingTx } from './sender-queue.js';
