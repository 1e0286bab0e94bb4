/**
 * The commit watcher of bench/finality, a process of its own (bench/lib/commit-watch.ts says why):
 *
 *   node dist/bench/finality-watch.js <rpc url>
 *
 * Prints {"head":seq} once it follows the node, then {"advanced":t} whenever a poll sees the head
 * move and {"seq":n,"at":t,"txs":[hash,...]} for each block, t in milliseconds since the epoch.
 * A line on stdin (or its end) stops it.
 */
import { createInterface } from 'node:readline';
import { RpcClient } from '../node/client/index.js';
import { CommitWatcher, epochMs } from './lib/commit-watch.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: finality-watch <rpc url>');
  process.exit(2);
}
const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
const watcher = new CommitWatcher(
  new RpcClient(url, { timeoutMs: 60_000 }),
  { block: (seq, at, txs) => say({ seq, at, txs }), advanced: (at) => say({ advanced: at }) },
  epochMs,
);
say({ head: await watcher.start() });
const input = createInterface({ input: process.stdin });
await new Promise<void>((r) => {
  input.once('line', () => r());
  input.once('close', () => r());
});
input.close();
await watcher.stop();
