import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { unavailable } from '../../../node/errors.js';
import type { ThreadCall, ThreadReply } from './pglite-thread.js';
import type { SqlClient, SqlDatabase, SqlResult } from './types.js';

/**
 * A SqlDatabase on PGlite: Postgres compiled to WASM, with its files in a folder (or in memory
 * when `dataDir` is undefined). PGlite runs in a worker thread of its own (pglite-thread.ts), so
 * that its startup and queries never hold the node's event loop. It is one session: calls take
 * turns, and a transaction holds the session from BEGIN to COMMIT. int8 comes back as a number,
 * as postgres.ts does.
 */

export interface PgliteOptions {
  /** the error code once the database is closed or failed, e.g. EXPLORER_PGLITE_UNAVAILABLE */
  unavailableCode: string;
}

// Under the TypeScript loader (tests) this module is a .ts file; built, it is .js.
const THREAD = fileURLToPath(import.meta.url).replace(/pglite\.(ts|js)$/, (_m, ext: string) => `pglite-thread.${ext}`);

export async function openPglite(dataDir: string | undefined, opts: PgliteOptions): Promise<SqlDatabase> {
  const down = (why: string) => unavailable(opts.unavailableCode, why, { retryAfterSeconds: 5 });
  if (dataDir !== undefined) await mkdir(dataDir, { recursive: true }).catch((err: Error) => Promise.reject(down(`PGlite cannot open ${dataDir}: ${err.message}`)));
  const worker = new Worker(THREAD, { workerData: { dataDir } });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let failure: Error | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  await new Promise<void>((resolve, reject) => {
    const onReady = (m: ThreadReply) => {
      if (!('ready' in m)) return;
      worker.off('message', onReady);
      if (m.ready) resolve();
      else reject(down(`PGlite cannot open ${dataDir ?? 'an in-memory database'}: ${m.error}`));
    };
    worker.on('message', onReady);
    worker.once('error', (err) => reject(down(`PGlite cannot open ${dataDir ?? 'an in-memory database'}: ${err.message}`)));
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });
  worker.on('message', (m: ThreadReply) => {
    if (!('id' in m)) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if ('error' in m) p.reject(Object.assign(new Error(m.error.message), m.error.code === undefined ? {} : { code: m.error.code }));
    else p.resolve(m.result);
  });
  worker.on('error', (err) => fail(down(`the PGlite thread failed: ${err.message}`)));
  worker.on('exit', () => fail(down('the PGlite database is closed')));

  let next = 0;
  const send = (req: ThreadCall): Promise<unknown> => {
    if (failure) return Promise.reject(failure);
    const id = ++next;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...req, id });
    });
  };
  // one session: a call waits for the one before it, and a transaction for its whole length
  let turn: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(run: () => Promise<T>): Promise<T> => {
    const result = turn.then(run);
    turn = result.catch(() => undefined);
    return result;
  };
  const direct: SqlClient = {
    query: async <R>(text: string, params?: readonly unknown[]) => (await send({ op: 'query', text, params: params as unknown[] | undefined })) as SqlResult<R>,
    exec: async (script) => void (await send({ op: 'exec', text: script })),
  };
  let closing: Promise<void> | undefined;
  return {
    engine: 'pglite',
    query: (text, params) => exclusive(() => direct.query(text, params)),
    exec: (script) => exclusive(() => direct.exec(script)),
    transaction: <T>(fn: (tx: SqlClient) => Promise<T>) =>
      exclusive(async () => {
        await direct.query('BEGIN');
        try {
          const out = await fn(direct);
          await direct.query('COMMIT');
          return out;
        } catch (err) {
          await direct.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    close: () =>
      (closing ??= exclusive(async () => {
        if (!failure) await send({ op: 'close' }).catch(() => undefined);
        await worker.terminate();
      })),
  };
}
