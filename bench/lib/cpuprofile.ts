import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Reads V8 CPU profiles (`node --cpu-prof`, one file per thread) and sums self time by function
 * and by group (WASM crypto, JSON, LevelDB, HTTP, ws, worker messaging, GC, our code, ...), over
 * a window of the monotonic clock: V8 stamps samples with CLOCK_MONOTONIC microseconds, the same
 * clock as process.hrtime in any process on the machine, so the bench can name its timed window.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionTime {
  function: string;
  where: string;
  group: string;
  self_ms: number;
  percent: number;
}

export interface ThreadProfile {
  file: string;
  /** 0 for the main thread; the thread id in the file name otherwise */
  thread: number;
  /** sampled time in the window, ms (idle included) */
  total_ms: number;
  /** sampled time in the window that was not idle, ms */
  busy_ms: number;
  groups: Array<{ group: string; self_ms: number; percent_of_busy: number }>;
  top: FunctionTime[];
  /** samples charged to the nearest frame of our code on the stack, with what they spent underneath */
  by_our_caller: Array<{ function: string; where: string; ms: number; percent: number; under: string }>;
}

/** Which part of the stack a frame belongs to. */
export function groupOf(f: CallFrame): string {
  const { functionName: name, url } = f;
  if (name === '(idle)') return 'idle';
  // a piscina worker with nothing to do waits in Atomics.wait
  if (name === 'atomicsWaitLoop' && url.includes('/piscina/')) return 'idle';
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)') return 'V8/native (unattributed)';
  if (url.startsWith('wasm://') || url.includes('/didcomm-node/') || /^(wasm-function|\$)/.test(name)) return 'WASM crypto (didcomm-node)';
  if (url === '' && (name === 'parse' || name === 'stringify')) return 'JSON';
  if (/\/node_modules\/(classic-level|abstract-level|level|level-transcoder|module-error|maybe-combine-errors|memory-level)\//.test(url)) return 'LevelDB';
  if (/\/node_modules\/ws\//.test(url)) return 'ws';
  if (/\/node_modules\/piscina\//.test(url) || url.startsWith('node:internal/worker') || url.startsWith('node:worker_threads') || url.includes('structured') || name === 'postMessage' || name === 'receiveMessageOnPort') return 'worker messaging (piscina)';
  if (/\/node_modules\/(pino|thread-stream|sonic-boom)\//.test(url)) return 'logging (pino)';
  if (/\/node_modules\/prom-client\//.test(url)) return 'metrics (prom-client)';
  if (/^node:(_http|http|https|net|internal\/http|internal\/streams|stream|_stream|internal\/stream_base_commons|internal\/net|internal\/dns)/.test(url)) return 'HTTP/net/streams (node)';
  if (/\/dist\/plugins\/relay\/store\//.test(url)) return 'our code: relay store';
  if (/\/dist\/plugins\/relay\/wire\//.test(url)) return 'our code: relay wire';
  if (/\/dist\/plugins\/relay\//.test(url)) return 'our code: relay core/protocols';
  if (/\/dist\/plugins\//.test(url)) return 'our code: other plugins';
  if (/\/dist\/node\/(http|rpc)\//.test(url)) return 'our code: node http';
  const folder = /\/dist\/node\/([^/]+)\//.exec(url);
  if (folder) return `our code: node/${folder[1]}`;
  if (/\/dist\/node\//.test(url)) return 'our code: node';
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `node_modules: ${pkg[1]}`;
  if (url.startsWith('node:')) return 'node internals (other)';
  if (url === '') return 'V8 builtins/native';
  return 'other';
}

function where(f: CallFrame): string {
  // the package's own files from dist/, a dependency's from node_modules/<package>/
  const short = f.url.replace(/^file:\/\/.*?\/(node_modules\/|dist\/(?=(node|plugins|bench)\/))/, '$1');
  return short ? `${short}:${f.lineNumber + 1}` : '';
}

const OURS = /\/dist\/(plugins|node)\//;

/**
 * Self time by function and group of one profile, over [fromUs, toUs] of CLOCK_MONOTONIC (the
 * whole profile when undefined); and each sample's time charged to the nearest frame of our own
 * code above it (dist/node, dist/plugins), with the groups it went to underneath: "settings.get:
 * 40 ms, 90 % LevelDB" reads more directly than the library's frames alone.
 */
export function summarizeProfile(profile: CpuProfile, window?: { fromUs: number; toUs: number }, top = 30): Omit<ThreadProfile, 'file' | 'thread'> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    // a sample's time is the delta to the next one
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
  }
  const fn = new Map<string, { frame: CallFrame; us: number }>();
  const ours = new Map<string, { frame: CallFrame; us: number; under: Map<string, number> }>();
  const key = (f: CallFrame) => `${f.functionName}\u0000${f.url}\u0000${f.lineNumber}`;
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const group = groupOf(frame);
    total += us;
    if (group === 'idle') {
      idle += us;
      continue;
    }
    const k = key(frame);
    const e = fn.get(k);
    if (e) e.us += us;
    else fn.set(k, { frame, us });
    let up: number | undefined = id;
    while (up !== undefined && !OURS.test(byId.get(up)!.callFrame.url)) up = parent.get(up);
    const owner = up === undefined ? { functionName: '(no frame of ours on the stack)', url: '', lineNumber: -1, columnNumber: 0 } : byId.get(up)!.callFrame;
    const ok = key(owner);
    let o = ours.get(ok);
    if (!o) ours.set(ok, (o = { frame: owner, us: 0, under: new Map() }));
    o.us += us;
    const g = OURS.test(frame.url) ? 'itself' : group;
    o.under.set(g, (o.under.get(g) ?? 0) + us);
  }
  const busy = total - idle;
  const groups = new Map<string, number>();
  for (const { frame, us } of fn.values()) groups.set(groupOf(frame), (groups.get(groupOf(frame)) ?? 0) + us);
  const ms = (us: number) => Math.round(us / 100) / 10;
  const pct = (us: number) => (busy > 0 ? Math.round((us / busy) * 1000) / 10 : 0);
  return {
    total_ms: ms(total),
    busy_ms: ms(busy),
    groups: [...groups].sort((a, b) => b[1] - a[1]).map(([group, us]) => ({ group, self_ms: ms(us), percent_of_busy: pct(us) })),
    top: [...fn.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ function: e.frame.functionName || '(anonymous)', where: where(e.frame), group: groupOf(e.frame), self_ms: ms(e.us), percent: pct(e.us) })),
    by_our_caller: [...ours.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((o) => ({
        function: o.frame.functionName || '(anonymous)',
        where: where(o.frame),
        ms: ms(o.us),
        percent: pct(o.us),
        under: [...o.under]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([g, us]) => `${g} ${Math.round((us / o.us) * 100)}%`)
          .join(', '),
      })),
  };
}

/** Every *.cpuprofile in `dir`, main thread first. */
export async function summarizeProfiles(dir: string, window?: { fromUs: number; toUs: number }, top = 30): Promise<ThreadProfile[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  const out: ThreadProfile[] = [];
  for (const file of files) {
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile
    const thread = Number(file.split('.').at(-3) ?? NaN);
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    out.push({ file, thread, ...summarizeProfile(profile, window, top) });
  }
  return out.sort((a, b) => a.thread - b.thread);
}

/** Several threads' (or processes') summaries as one: self times summed by group and by function. */
export function mergeProfiles(threads: ThreadProfile[]): Pick<ThreadProfile, 'busy_ms' | 'groups' | 'top'> & { threads: number } {
  const busy = threads.reduce((sum, th) => sum + th.busy_ms, 0);
  const groups = new Map<string, number>();
  const fns = new Map<string, FunctionTime>();
  for (const th of threads) {
    for (const g of th.groups) groups.set(g.group, (groups.get(g.group) ?? 0) + g.self_ms);
    for (const f of th.top) {
      const k = `${f.function}\u0000${f.where}`;
      const e = fns.get(k);
      if (e) e.self_ms += f.self_ms;
      else fns.set(k, { ...f });
    }
  }
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const pct = (ms: number) => (busy > 0 ? Math.round((ms / busy) * 1000) / 10 : 0);
  return {
    threads: threads.length,
    busy_ms: round(busy),
    groups: [...groups].sort((a, b) => b[1] - a[1]).map(([group, ms]) => ({ group, self_ms: round(ms), percent_of_busy: pct(ms) })),
    top: [...fns.values()].sort((a, b) => b.self_ms - a.self_ms).map((f) => ({ ...f, self_ms: round(f.self_ms), percent: pct(f.self_ms) })),
  };
}

/** Prints the summary of every profile in `dir` (a node run with --cpu-prof): groups, top functions, our callers. */
export async function printProfiles(dir: string): Promise<void> {
  for (const th of await summarizeProfiles(dir, undefined, 25)) {
    console.log(`\nnode thread ${th.thread} (${th.file}): ${th.busy_ms} ms busy of ${th.total_ms} ms sampled`);
    console.table(th.groups.slice(0, 12));
    console.table(th.top.slice(0, 20).map((f) => ({ function: f.function, where: f.where, group: f.group, 'self ms': f.self_ms, '%': f.percent })));
    console.table(th.by_our_caller.slice(0, 15).map((f) => ({ function: f.function, where: f.where, ms: f.ms, '%': f.percent, underneath: f.under })));
  }
}
