import { readdir, readFile } from 'node:fs/promises';

/**
 * CPU time of processes by thread, from /proc (Linux; empty elsewhere). Node 20 names every thread
 * of a process "node", so threads are told apart by role instead: the main thread (its id is the
 * process id: consensus, execution, the RPC, the answerer) and the others. A validator's busiest
 * other thread under verification load is its proof worker (rpc.verifyThreads, 1 on 2 cores, the
 * BBS checks); the rest are V8's helpers (GC, compiler) and libuv's pool (LevelDB). A profile
 * (--profile) names the functions.
 */

/** clock ticks a second (USER_HZ): 100 on Linux */
const TICKS = 100;

/** The name and the CPU ticks (user + system) of one /proc/<pid>/task/<tid>/stat line. */
export function parseTaskStat(text: string): { name: string; ticks: number } | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = text.slice(close + 2).split(' ');
  // after the name: state(0) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(11) stime(12)
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return { name: text.slice(open + 1, close), ticks: utime + stime };
}

export interface ThreadSample {
  pid: number;
  tid: number;
  name: string;
  seconds: number;
}

/** Every thread of `pids` alive now, keyed "pid/tid" (threads already gone are not counted). */
export async function threadSeconds(pids: number[]): Promise<Map<string, ThreadSample>> {
  const out = new Map<string, ThreadSample>();
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = await readdir(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const s = parseTaskStat(await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
        if (s) out.set(`${pid}/${tid}`, { pid, tid: Number(tid), name: s.name, seconds: s.ticks / TICKS });
      } catch {
        // the thread ended between readdir and read
      }
    }
  }
  return out;
}

export const THREAD_ROLES = ['main thread', 'busiest other thread', 'all other threads'] as const;

/**
 * CPU seconds by role between two snapshots, summed over the processes: each process's main
 * thread, its busiest other thread over the window, and the rest. A thread in `after` counts from
 * its `before` figure, or from 0 if it started in between (a worker started during the window); a
 * thread that ended within the window is lost, its time only in the processes' totals.
 */
export function threadDelta(before: Map<string, ThreadSample>, after: Map<string, ThreadSample>): Array<{ role: string; seconds: number }> {
  const byPid = new Map<number, Array<{ tid: number; seconds: number }>>();
  for (const [id, a] of after) {
    const d = a.seconds - (before.get(id)?.seconds ?? 0);
    const list = byPid.get(a.pid) ?? [];
    list.push({ tid: a.tid, seconds: d });
    byPid.set(a.pid, list);
  }
  const sums = new Map<string, number>(THREAD_ROLES.map((r) => [r, 0]));
  const add = (role: string, s: number) => sums.set(role, sums.get(role)! + s);
  for (const [pid, threads] of byPid) {
    const others = threads.filter((t) => t.tid !== pid).sort((a, b) => b.seconds - a.seconds);
    add('main thread', threads.find((t) => t.tid === pid)?.seconds ?? 0);
    add('busiest other thread', others[0]?.seconds ?? 0);
    for (const t of others.slice(1)) add('all other threads', t.seconds);
  }
  return THREAD_ROLES.map((role) => ({ role, seconds: Math.round(sums.get(role)! * 100) / 100 }));
}
