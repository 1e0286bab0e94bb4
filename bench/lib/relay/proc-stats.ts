import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time and memory of a process (all its threads), from /proc (Linux). */

export interface ProcSample {
  /** user and system CPU time so far, ms */
  user_ms: number;
  system_ms: number;
  rss_mib: number;
  threads: number;
}

let ticks: number | undefined;
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** undefined when /proc has no such process (or no /proc). */
export function procSample(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces: count fields after it
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tick = 1000 / clockTicks();
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
    return { user_ms: Number(fields[11]) * tick, system_ms: Number(fields[12]) * tick, rss_mib: Math.round((rssKb / 1024) * 10) / 10, threads: Number(fields[17]) };
  } catch {
    return undefined;
  }
}

/** CPU used between two samples, ms, and as a share of one core over `wallMs`. */
export function cpuBetween(before: ProcSample | undefined, after: ProcSample | undefined, wallMs: number): { cpu_ms: number; user_ms: number; system_ms: number; cores_busy: number } | undefined {
  if (!before || !after) return undefined;
  const user = after.user_ms - before.user_ms;
  const system = after.system_ms - before.system_ms;
  return { cpu_ms: Math.round(user + system), user_ms: Math.round(user), system_ms: Math.round(system), cores_busy: Math.round(((user + system) / wallMs) * 100) / 100 };
}

/** CPU time so far of each thread of a process (ms, user + system), by thread id. */
export function threadCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  const tick = 1000 / clockTicks();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * tick);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/**
 * Time a thread has spent on a CPU and waiting for one (runnable, not running) so far, ms, from
 * /proc/<pid>/task/<tid>/schedstat; undefined when the kernel does not keep it.
 */
export function schedstat(pid: number, tid = pid): { run_ms: number; wait_ms: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    if (run === undefined || wait === undefined || Number.isNaN(run) || Number.isNaN(wait)) return undefined;
    return { run_ms: run / 1e6, wait_ms: wait / 1e6 };
  } catch {
    return undefined;
  }
}

/**
 * CPU used by each thread between two threadCpu samples: the main thread (tid = pid) apart, the
 * others busiest first (worker threads such as the crypto pool, V8's GC helpers and libuv's pool,
 * where LevelDB's reads and writes run, all carry the same name, so they are told apart by load).
 */
export function threadCpuBetween(pid: number, before: Map<number, number>, after: Map<number, number>, wallMs: number): { main_ms: number; main_cores: number; others_ms: number[]; others_cores: number } {
  const d = [...after].map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)] as const);
  const main = d.find(([tid]) => tid === pid)?.[1] ?? 0;
  const others = d.filter(([tid, ms]) => tid !== pid && ms > 0).map(([, ms]) => Math.round(ms)).sort((a, b) => b - a);
  const cores = (ms: number) => Math.round((ms / wallMs) * 100) / 100;
  return { main_ms: Math.round(main), main_cores: cores(main), others_ms: others, others_cores: cores(others.reduce((a, b) => a + b, 0)) };
}

/** Busy CPU time of the whole machine so far (all cores, ms), from /proc/stat; undefined without /proc. */
export function machineBusyMs(): number | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait
    const busy = cpu.reduce((a, b) => a + b, 0) - (cpu[3] ?? 0) - (cpu[4] ?? 0) - (cpu[8] ?? 0) - (cpu[9] ?? 0);
    return busy * (1000 / clockTicks());
  } catch {
    return undefined;
  }
}
