/**
 * bench/codec: how long the node's wire decoding takes on its largest inputs, the speed the
 * tests used to time: lossless JSON (node/protocol/json.ts) on over 1 MiB of records with bigint
 * amounts, parsed and written back, and on a JSON-RPC request of 40,000 integers above 2^64; and
 * the frame decoder (node/network/framing.ts) on a 16 MiB frame arriving in 4 KiB chunks, where
 * copying the buffered chunks again on each one would take quadratic time.
 * Each row checks its output before it counts (a round trip, the frame's length).
 *
 *   npm run bench:codec -- [--runs 10] [--out <file>]
 *
 * Prints a table and writes bench/results/codec.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FrameDecoder } from '../node/network/framing.js';
import { parseJson, stringifyJson } from '../node/protocol/json.js';
import { bigFrame, bigIntegerRequest, chunked, jsonRecords } from './lib/codec-inputs.js';
import { machine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('bench/codec: lossless JSON and frame decoding on the largest inputs\n\n  npm run bench:codec -- [--runs 10] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const runs = Number(values.runs);

interface Row {
  op: string;
  bytes: number;
  runs: number;
  median_ms: number;
  p90_ms: number;
  max_ms: number;
  mib_per_s: number;
}

function measure(op: string, bytes: number, fn: () => void): Row {
  for (let i = 0; i < 2; i++) fn(); // JIT warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 10) / 10;
  const median = percentile(samples, 50);
  return { op, bytes, runs, median_ms: r(median), p90_ms: r(percentile(samples, 90)), max_ms: r(samples.at(-1)!), mib_per_s: r(bytes / 2 ** 20 / (median / 1000)) };
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`${what}: the output is wrong, so the time would mean nothing`);
}

const load = loadavg()[0] ?? 0;
const rows: Row[] = [];

const records = stringifyJson(jsonRecords(1024 * 1024));
let parsed: unknown;
rows.push(measure('json parse, records of bigint amounts', records.length, () => (parsed = parseJson(records))));
let written = '';
rows.push(measure('json stringify, the same records', records.length, () => (written = stringifyJson(parsed))));
check(written === records, 'json parse and stringify');

const request = bigIntegerRequest('test_echo', 40_000);
rows.push(
  measure('json parse, 40,000 integers > 2^64', request.length, () => {
    const params = (parseJson(request) as { params: bigint[] }).params;
    check(params.length === 40_000 && params[39_999] === 2n ** 64n + 39_999n, 'json parse of big integers');
  }),
);

const frame = bigFrame(16 * 1024 * 1024);
const chunks = chunked(frame, 4096);
rows.push(
  measure('frame decode, 16 MiB in 4 KiB chunks', frame.length, () => {
    const d = new FrameDecoder(17 * 1024 * 1024);
    const frames: Uint8Array[] = [];
    for (const c of chunks) frames.push(...d.push(c));
    check(frames.length === 1 && frames[0]!.length === 16 * 1024 * 1024 && d.pending === 0, 'frame decode');
  }),
);

console.log(`\nwire decoding, median of ${runs} runs (load ${load.toFixed(2)})\n`);
console.log('op                                        bytes  median ms   p90 ms   max ms   MiB/s');
for (const r of rows) {
  console.log(`${r.op.padEnd(38)}${String(r.bytes).padStart(11)}${String(r.median_ms).padStart(11)}${String(r.p90_ms).padStart(9)}${String(r.max_ms).padStart(9)}${String(r.mib_per_s).padStart(8)}`);
}

const out = values.out ?? join(root, 'bench/results', 'codec.json');
await mkdir(join(out, '..'), { recursive: true });
await writeFile(out, JSON.stringify({ bench: 'codec', runs, results: rows, machine: { ...machine(), loadavg_1m_before: load }, at: new Date().toISOString() }, null, 1) + '\n');
console.log(`wrote ${out}`);
