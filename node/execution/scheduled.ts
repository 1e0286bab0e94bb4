import { invalid } from '../errors.js';
import { ByteReader, ByteWriter, concatBytes } from '../protocol/bytes.js';
import { STATE_PREFIX } from '../protocol/records.js';
import type { StateOverlay, StateReader } from './overlay.js';

/**
 * Work that execution owes at the end of a given height: a credential request's deadline, a
 * recovery's delay. Execution cannot list state by prefix, so each height that has work keeps one
 * entry with its list: `0x11 ‖ height u64` → u16 n ‖ n × (kind u8 ‖ u8 len ‖ id).
 * The block at that height runs the list after its transactions and deletes the entry. A task
 * re-checks state when it runs: whatever happened in between (a registration, a cancelled
 * recovery) makes it a no-op.
 */

export const SCHEDULED_KINDS = { credentialDeadline: 1, recoveryDue: 2, verificationDeadline: 3 } as const;
export type ScheduledKind = (typeof SCHEDULED_KINDS)[keyof typeof SCHEDULED_KINDS];

export interface ScheduledTask {
  kind: ScheduledKind;
  id: Uint8Array;
}

const KINDS = new Set<number>(Object.values(SCHEDULED_KINDS));

function scheduledKey(height: number): Uint8Array {
  return concatBytes(Uint8Array.of(STATE_PREFIX.scheduled), new ByteWriter().u64(BigInt(height)).finish());
}

function decodeTasks(bytes: Uint8Array): ScheduledTask[] {
  const r = new ByteReader(bytes);
  const out: ScheduledTask[] = [];
  for (let n = r.u16(), i = 0; i < n; i++) {
    const kind = r.u8();
    if (!KINDS.has(kind)) throw new Error(`unknown scheduled task kind ${kind}`);
    out.push({ kind: kind as ScheduledKind, id: r.bytes(r.u8()) });
  }
  r.end();
  return out;
}

function encodeTasks(tasks: readonly ScheduledTask[]): Uint8Array {
  const w = new ByteWriter().u16(tasks.length);
  for (const t of tasks) w.u8(t.kind).u8(t.id.length).bytes(t.id);
  return w.finish();
}

/** Bounds the work at the end of one block; a transaction whose task would not fit fails instead. */
export const MAX_TASKS_PER_HEIGHT = 1024;

export async function taskCount(state: StateOverlay, height: number): Promise<number> {
  const bytes = await state.get(scheduledKey(height));
  return bytes ? new ByteReader(bytes).u16() : 0;
}

export async function scheduleTask(state: StateOverlay, height: number, task: ScheduledTask): Promise<void> {
  const key = scheduledKey(height);
  const bytes = await state.get(key);
  const tasks = bytes ? decodeTasks(bytes) : [];
  if (tasks.length >= MAX_TASKS_PER_HEIGHT) throw invalid('SCHEDULE_FULL', `${MAX_TASKS_PER_HEIGHT} tasks are already due at height ${height}`);
  state.put(key, encodeTasks([...tasks, task]));
}

/** The tasks due at `height`, in the order they were scheduled; their entry is deleted. */
export async function takeTasks(state: StateOverlay, height: number): Promise<ScheduledTask[]> {
  const key = scheduledKey(height);
  const bytes = await state.get(key);
  if (!bytes) return [];
  state.delete(key);
  return decodeTasks(bytes);
}

/** The tasks due at `height`, read without taking them (for the node's own bookkeeping, not execution). */
export async function tasksAt(state: StateReader, height: number): Promise<ScheduledTask[]> {
  const bytes = await state.get(scheduledKey(height));
  return bytes ? decodeTasks(bytes) : [];
}
