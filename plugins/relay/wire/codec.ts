import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { packEnvelope, unpackEnvelope, type CryptoPath, type DIDDoc, type Packed, type PackRequest, type Secret, type Unpacked } from './didcomm.js';
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

export interface CodecOptions {
  secrets: Secret[];
  threads: number;
  maxQueue: number;
  /** told which implementation did each pack and unpack (a metric) */
  onCrypto?: (op: 'pack' | 'unpack', via: CryptoPath) => void;
}

export function createCodec(opts: CodecOptions): Codec {
  const unpacked = (u: Unpacked) => {
    opts.onCrypto?.('unpack', u.via);
    return u;
  };
  const packed = (p: Packed) => {
    opts.onCrypto?.('pack', p.via);
    return p.packed;
  };
  if (opts.threads <= 0) {
    const lookup = (docs: Record<string, DIDDoc>) => (did: string) => docs[did] ?? null;
    return {
      unpack: async (envelope, docs) => unpacked(await unpackEnvelope(envelope, lookup(docs), opts.secrets)),
      pack: async (request, docs) => packed(await packEnvelope(request, lookup(docs), opts.secrets)),
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
    unpack: async (envelope, docs) => unpacked(await run<Unpacked>({ op: 'unpack', envelope, docs })),
    pack: async (request, docs) => packed(await run<Packed>({ op: 'pack', request, docs })),
    verifyBbs: (input) => run<boolean>({ op: 'bbs', input }),
    close: () => pool.destroy(),
  };
}
