import type { Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../../../node/state/db.js';

/**
 * A real LevelDB directory whose root batch method is wrapped (and still called) to record each
 * batch that completes with `sync: true` and the keys it held, beside the moments a test's writes
 * resolve: `unsynced` then names the writes that resolved before a synced batch held their key.
 */

export type SyncEvent = { synced: string[] } | { resolved: string; key: string };

export interface SyncedDisk {
  dir: string;
  db: Database;
  events: SyncEvent[];
  /** how many batches completed with `sync: true` */
  syncs(): number;
}

export async function syncedDisk(t: Test, name: string): Promise<SyncedDisk> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const db = await openDatabase(dir);
  t.teardown(() => db.close());
  const events: SyncEvent[] = [];
  const root = db.root as unknown as { _batch(ops: Array<{ key: Uint8Array }>, opts: { sync?: boolean }): Promise<void> };
  const real = root._batch.bind(root);
  root._batch = async (ops, opts) => {
    await real(ops, opts);
    if (opts.sync === true) events.push({ synced: ops.map((op) => Buffer.from(op.key).toString('latin1')) });
  };
  return { dir, db, events, syncs: () => events.filter((e) => 'synced' in e).length };
}

/** The ids whose key was in no synced batch completed before their write resolved. */
export function unsynced(events: readonly SyncEvent[]): string[] {
  const synced = new Set<string>();
  const out: string[] = [];
  for (const e of events) {
    if ('synced' in e) e.synced.forEach((k) => synced.add(k));
    else if (!synced.has(e.key)) out.push(e.resolved);
  }
  return out;
}
