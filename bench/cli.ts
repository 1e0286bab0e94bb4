/**
 * bench/cli: wall time of `ledger` commands, each a fresh process as a user runs it (spawn to
 * exit). Rows: node's own start-up (`node -e 0`, the floor under every row), `ledger --help`,
 * `ledger keys new`, `ledger tx transfer --help`, and `ledger rpc ledger_chainInfo` against a
 * local node this bench starts (plugins off). Runs go round-robin over the commands, so a burst
 * of load elsewhere spreads over all rows. With --npx it adds `npx ledger --help`: npm's own
 * start-up, paid on every npx call on top of the command.
 *
 *   npm run bench:cli -- [--runs 5] [--npx] [--out <file>]
 *
 * Prints a table of medians and writes bench/results/cli.json.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePortRange } from '../node/devnet/ports.js';
import { spawnNode } from './lib/chaos/node-process.js';
import { machine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    npx: { type: 'boolean', default: false },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('bench/cli: wall time of ledger commands as fresh processes\n\n  npm run bench:cli -- [--runs 5] [--npx] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const bin = join(root, 'bin/ledger.js');
const runs = Number(values.runs);

interface Command {
  name: string;
  argv: (run: number) => [string, ...string[]];
}

interface Row {
  command: string;
  runs: number;
  median_ms: number;
  min_ms: number;
  max_ms: number;
}

/** Spawn to exit, in ms; a command that fails is a broken bench, not a slow row. */
function timed(argv: [string, ...string[]], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const proc = spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.once('error', reject);
    proc.once('exit', (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve(ms);
      else reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-cli-'));
const rpcPort = await freePortRange(2);
const node = process.execPath;
await timed([node, bin, 'init', '--data-dir', join(dir, 'data')], dir);
const running = await spawnNode({ bin, dataDir: join(dir, 'data'), rpcPort, p2pPort: rpcPort + 1, logFile: join(dir, 'node.log') });

const commands: Command[] = [
  { name: 'node -e 0', argv: () => [node, '-e', '0'] },
  { name: 'ledger --help', argv: () => [node, bin, '--help'] },
  { name: 'ledger keys new', argv: (i) => [node, bin, 'keys', 'new', '--out', join(dir, `key-${i}.json`)] },
  { name: 'ledger tx transfer --help', argv: () => [node, bin, 'tx', 'transfer', '--help'] },
  { name: 'ledger rpc ledger_chainInfo', argv: () => [node, bin, 'rpc', 'ledger_chainInfo', '--rpc', running.url] },
];
if (values.npx) commands.push({ name: 'npx ledger --help', argv: () => ['npx', '--no-install', 'ledger', '--help'] });

const load = loadavg()[0] ?? 0;
const samples = new Map<string, number[]>(commands.map((c) => [c.name, []]));
try {
  for (let i = 0; i < runs; i++) {
    for (const c of commands) samples.get(c.name)!.push(await timed(c.argv(i), c.name.startsWith('npx') ? root : dir));
  }
} finally {
  await running.stop();
  await rm(dir, { recursive: true, force: true });
}
const loadAfter = loadavg()[0] ?? 0;

const rows: Row[] = commands.map((c) => {
  const s = samples.get(c.name)!.sort((a, b) => a - b);
  const r = Math.round;
  return { command: c.name, runs: s.length, median_ms: r(percentile(s, 50)), min_ms: r(s[0]!), max_ms: r(s.at(-1)!) };
});

console.log(`\nledger commands as fresh processes, ${runs} runs each (load ${load.toFixed(2)} before, ${loadAfter.toFixed(2)} after)\n`);
console.log('command                          median ms   min ms   max ms');
for (const r of rows) console.log(`${r.command.padEnd(32)}${String(r.median_ms).padStart(10)}${String(r.min_ms).padStart(9)}${String(r.max_ms).padStart(9)}`);

const out = values.out ?? join(root, 'bench/results', 'cli.json');
await mkdir(join(out, '..'), { recursive: true });
await writeFile(out, JSON.stringify({ bench: 'cli', runs, results: rows, machine: { ...machine(), loadavg_1m_before: load, loadavg_1m_after: loadAfter }, at: new Date().toISOString() }, null, 1) + '\n');
console.log(`wrote ${out}`);
