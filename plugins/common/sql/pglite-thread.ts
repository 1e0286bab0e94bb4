import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

/**
 * The worker thread that holds a PGlite database (pglite.ts): Postgres's WASM runs here, so its
 * startup (initdb, seconds on a first start) and every query's CPU stay off the node's event
 * loop. It answers one message per request, in the order PGlite completes them.
 */

export type ThreadCall = { op: 'query'; text: string; params?: unknown[] } | { op: 'exec'; text: string } | { op: 'close' };
export type ThreadRequest = ThreadCall & { id: number };
export type ThreadReply = { id: number; result: unknown } | { id: number; error: { message: string; code?: string } } | { ready: true } | { ready: false; error: string };

const port = parentPort!;
const { dataDir } = workerData as { dataDir: string | undefined };
// int8 as a number, as postgres.ts does: the plugins keep ms times and counts in it, far below 2^53
const parsers = { [types.INT8]: (text: string) => Number(text) };

const errorOf = (err: unknown): { message: string; code?: string } => {
  const e = err as { message?: unknown; code?: unknown };
  return { message: typeof e?.message === 'string' ? e.message : String(err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) };
};

PGlite.create(dataDir, { parsers, relaxedDurability: true }).then(
  (db) => {
    port.on('message', (m: ThreadRequest) => {
      const run = async (): Promise<unknown> => {
        switch (m.op) {
          case 'query': {
            const r = await db.query(m.text, m.params);
            return { rows: r.rows, rowCount: r.affectedRows ?? 0 };
          }
          case 'exec':
            await db.exec(m.text);
            return null;
          case 'close':
            await db.close();
            return null;
        }
      };
      run().then(
        (result) => port.postMessage({ id: m.id, result } satisfies ThreadReply),
        (err: unknown) => port.postMessage({ id: m.id, error: errorOf(err) } satisfies ThreadReply),
      );
    });
    port.postMessage({ ready: true } satisfies ThreadReply);
  },
  (err: unknown) => port.postMessage({ ready: false, error: errorOf(err).message } satisfies ThreadReply),
);
