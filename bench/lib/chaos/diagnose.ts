import type { LocalCluster } from './cluster.js';

/** Log lines that tell why a node stopped following the chain. */
const TELLING = /consensus fault|invalid-block|refus|halt|MISSING_TREE_NODE|STATE_ROOT_MISMATCH|PARENT_STATE_UNKNOWN|"level":(50|60)/;
/** the marker node-process.ts writes at each start */
const START = /^# \S+ ledger start/;
const MAX_LINE = 400;

/**
 * What a failure message shows about node i: its head, round, peers and vote count, why it dropped
 * consensus messages (from /metrics, when it still answers), the telling lines of its log since its
 * last start, and the log's tail.
 */
export async function describeNode(c: LocalCluster, i: number, tailLines = 15): Promise<string> {
  const out = [`node ${i} (${c.isUp(i) ? 'up' : 'down'}; log ${c.nodes[i]!.log}):`];
  try {
    const m = await c.metrics(i);
    const dropped = [...m].filter(([k, v]) => k.startsWith('ledger_consensus_dropped_total{') && v > 0).map(([k, v]) => `${/reason="([^"]*)"/.exec(k)?.[1] ?? k}=${v}`);
    const get = (name: string) => m.get(name) ?? 'n/a';
    out.push(
      `  seq ${get('ledger_seq')}, round ${get('ledger_round')}, peers ${get('ledger_peers')}, votes sent ${get('ledger_consensus_votes_sent_total')}, timeouts ${get('ledger_consensus_timeouts_total')}, halted ${get('ledger_consensus_halted')}, mempool ${get('ledger_mempool_transactions')}`,
      `  dropped consensus messages: ${dropped.length > 0 ? dropped.join(', ') : 'none'}`,
    );
  } catch (err) {
    out.push(`  /metrics: ${(err as Error).message}`);
  }
  const log = c.logTail(i, 5_000).split('\n');
  const sinceStart = log.slice(log.findLastIndex((l) => START.test(l)) + 1);
  const telling = sinceStart.filter((l) => TELLING.test(l)).slice(-8);
  if (telling.length > 0) out.push('  telling log lines since its last start:', ...telling.map((l) => `    ${compact(l)}`));
  out.push(`  log tail:`, ...log.slice(-tailLines).map((l) => `    ${compact(l)}`));
  return out.join('\n');
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A pino JSON line as `level hh:mm:ss.mmm "msg" CODE: error message key=value ...`; any other line clipped. */
function compact(line: string): string {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(line) as Record<string, unknown>;
    if (typeof j !== 'object' || j === null || typeof j.msg !== 'string') return clip(line);
  } catch {
    return clip(line);
  }
  const { level, time, pid: _pid, name: _name, hostname: _hostname, msg, err, ...rest } = j;
  const e = err as { code?: string; type?: string; message?: string } | undefined;
  const when = typeof time === 'number' || typeof time === 'string' ? new Date(time).toISOString().slice(11, 23) : '';
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return clip([LEVELS[level as number] ?? String(level), when, JSON.stringify(msg), e ? `${e.code ?? e.type}: ${e.message}` : '', ...fields].filter(Boolean).join(' '));
}

function clip(line: string): string {
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
}
