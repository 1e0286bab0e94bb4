import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { verify } from './ed25519.js';
import { isWellFormed, packSignatures, type SignatureItem } from './signature-batch.js';

/**
 * Ed25519 checks of transaction signatures (docs/mempool.md, "Signature checks"). With 0 threads
 * they run on the calling thread. With N threads, the checks asked for in one turn of the event
 * loop (concurrent RPC submissions, a gossiped batch, a block's unseen transactions) go to the
 * workers together, one transferred buffer per thread rather than a message per signature, and the
 * event loop, which consensus shares, goes on meanwhile.
 */

export type { SignatureItem };

export interface SignatureCheckerStats {
  threads: number;
  /** signatures checked, in worker threads or inline */
  checked: number;
  /** batches handed to the workers */
  batches: number;
  /** signatures waiting for or inside a worker now */
  pending: number;
}

export interface SignatureChecker {
  /** One verdict per item, in order; a key or signature of the wrong size is false. */
  verifyMany(items: readonly SignatureItem[]): Promise<boolean[]>;
  stats(): SignatureCheckerStats;
  close(): Promise<void>;
}

/** Fewer signatures than this per thread are not worth splitting a batch over another thread. */
const MIN_PER_THREAD = 16;

interface Waiting {
  items: readonly SignatureItem[];
  resolve(verdicts: boolean[]): void;
  reject(err: unknown): void;
}

export function createSignatureChecker(opts: { threads: number }): SignatureChecker {
  const s: SignatureCheckerStats = { threads: opts.threads, checked: 0, batches: 0, pending: 0 };
  if (opts.threads === 0) {
    return {
      verifyMany: async (items) => {
        s.checked += items.length;
        return items.map((it) => isWellFormed(it) && verify(it.publicKey, it.message, it.signature));
      },
      stats: () => ({ ...s }),
      close: async () => undefined,
    };
  }
  const pool = startPiscina(opts.threads);
  let waiting: Waiting[] = [];
  let scheduled = false;

  const runChunk = async (items: SignatureItem[]): Promise<boolean[]> => {
    s.batches++;
    const buf = packSignatures(items);
    const verdicts = (await pool.run(buf, { transferList: [buf] })) as Uint8Array;
    return Array.from(verdicts, (v) => v === 1);
  };

  const flush = (): void => {
    scheduled = false;
    const batch = waiting;
    waiting = [];
    const items = batch.flatMap((w) => w.items.filter(isWellFormed));
    const chunks = Math.max(1, Math.min(opts.threads, Math.floor(items.length / MIN_PER_THREAD)));
    const size = Math.ceil(items.length / chunks);
    const parts: Array<Promise<boolean[]>> = [];
    for (let i = 0; i < items.length; i += size) parts.push(runChunk(items.slice(i, i + size)));
    Promise.all(parts).then(
      (results) => {
        const verdicts = results.flat();
        let k = 0;
        for (const w of batch) {
          s.pending -= w.items.length;
          s.checked += w.items.length;
          w.resolve(w.items.map((it) => isWellFormed(it) && verdicts[k++] === true));
        }
      },
      (err: unknown) => {
        for (const w of batch) {
          s.pending -= w.items.length;
          w.reject(err);
        }
      },
    );
  };

  return {
    verifyMany: (items) => {
      if (items.length === 0) return Promise.resolve([]);
      return new Promise<boolean[]>((resolve, reject) => {
        waiting.push({ items, resolve, reject });
        s.pending += items.length;
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    stats: () => ({ ...s }),
    close: async () => {
      await pool.destroy();
    },
  };
}

function startPiscina(threads: number): Piscina {
  // Under the TypeScript loader (tests) this module is a .ts file; built, it is .js.
  const filename = fileURLToPath(import.meta.url).replace(/signature-checker\.(ts|js)$/, (_m, ext: string) => `signature-worker.${ext}`);
  // The threads stay up: admission uses them at every transaction, and starting one costs ~30 ms.
  return new Piscina({ filename, minThreads: threads, maxThreads: threads, idleTimeout: Infinity });
}
