import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { packEnvelope, unpackEnvelope, type DIDDoc, type PackRequest, type Secret, type Unpacked } from './didcomm.js';
import type { CodecTask } from './codec-worker.js';
import { verifyBbsProof, type BbsProofInput } from '../../../node/crypto/bbs.js';

/**
 * Where DIDComm crypto runs. `threads: 0` runs it on the event loop (unit tests); otherwise a
 * bounded pool of worker threads does, with a bounded queue: past it a call fails with
 * CODEC_BUSY and the wire answers 503, instead of letting work pile up in memory.
 */

export interface Codec {
  unpack(envelope: string, docs: Record<string, DIDDoc>): Promise<Unpacked>;
  pack(request: PackRequest, docs: Record<string, DIDDoc>): Promise<string>;
  verifyBbs(input: BbsProofInput): Promise<boolean>;
  close(): Promise<void>;
}

export class CodecBusyError extends Error {
  readonly code = 'CODEC_BUSY';
}

export function createCodec(opts: { secrets: Secret[]; threads: number; maxQueue: number }): Codec {
  if (opts.threads <= 0) {
    const lookup = (docs: Record<string, DIDDoc>) => (did: string) => docs[did] ?? null;
    return {
      unpack: (envelope, docs) => unpackEnvelope(envelope, lookup(docs), opts.secrets),
      pack: (request, docs) => packEnvelope(request, lookup(docs), opts.secrets),
      verifyBbs: (input) => verifyBbsProof(input),
      close: async () => {},
    };
  }
  // Under the TypeScript loader (tests) this module is a .ts file; built, it is .js.
  const self = fileURLToPath(import.meta.url);
  const filename = self.replace(/codec\.(ts|js)$/, (_m, ext: string) => `codec-worker.${ext}`);
  const pool = new Piscina({
    filename,
    minThreads: opts.threads,
    maxThreads: opts.threads,
    maxQueue: opts.maxQueue,
    idleTimeout: Infinity,
    // a worker takes its next envelope while the event loop handles the last result; one task at
    // a time left the worker idle half the time
    concurrentTasksPerWorker: 4,
    workerData: { secrets: opts.secrets },
  });
  const run = async <T>(task: CodecTask): Promise<T> => {
    if (pool.queueSize >= opts.maxQueue) throw new CodecBusyError(`the DIDComm codec queue is full (${opts.maxQueue})`);
    return (await pool.run(task)) as T;
  };
  return {
    unpack: (envelope, docs) => run<Unpacked>({ op: 'unpack', envelope, docs }),
    pack: (request, docs) => run<string>({ op: 'pack', request, docs }),
    verifyBbs: (input) => run<boolean>({ op: 'bbs', input }),
    close: () => pool.destroy(),
  };
}
