/**
 * State tree benchmark: builds a tree of 100k entries in batches of 1000, then times batches of
 * 1000 updates to random existing keys, against an in-memory node store and against LevelDB
 * (`level` in a temporary directory, nodes written in one batch per block as the node does),
 * with and without a CachedNodeReader in front.
 * Prints a table and writes bench/results/state-tree.json.
 *
 * Run: node --import ./node_modules/@isaacs/ts-node-temp-fork-for-pr-2009/import.mjs bench/state-tree.ts
 * (TS_NODE_TRANSPILE_ONLY=1 skips type-checking at start-up.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { blake3 } from '../node/crypto/hash.js';
import { fromHex, utf8 } from '../node/protocol/bytes.js';
import { CachedNodeReader, EMPTY_ROOT, MemoryNodeStore, updateTree, type TreeChange, type TreeNodeReader } from '../node/state/tree/index.js';

const ENTRIES = 100_000;
const BATCH = 1000;
const UPDATE_BATCHES = 30;

interface NodeStore extends TreeNodeReader {
  put(nodes: Map<string, Uint8Array>): Promise<void>;
  close(): Promise<void>;
}

function memoryStore(): NodeStore {
  const m = new MemoryNodeStore();
  return { getNode: (h) => m.getNode(h), peekNode: (h, k) => m.peekNode(h, k), put: async (n) => m.put(n), close: async () => {} };
}

async function levelStore(dir: string, cacheNodes: number): Promise<NodeStore> {
  const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  const disk: TreeNodeReader = { getNode: (h) => db.get(h) };
  const cache = new CachedNodeReader(disk, cacheNodes);
  const reader = cacheNodes > 0 ? cache : disk;
  return {
    getNode: (h) => reader.getNode(h),
    ...(cacheNodes > 0 ? { peekNode: (h: Uint8Array, k?: string) => cache.peekNode(h, k) } : {}),
    put: async (nodes) => {
      await db.batch([...nodes].map(([hex, value]) => ({ type: 'put' as const, key: fromHex(hex), value })));
      if (cacheNodes > 0) cache.add(nodes);
    },
    close: () => db.close(),
  };
}

/** Deterministic PRNG (mulberry32): every run touches the same keys. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** `acct/` + 20 address bytes, as the state layer keys accounts. */
const stateKey = (i: number) => new Uint8Array([...utf8('acct/'), ...blake3(utf8(String(i))).subarray(0, 20)]);
const value = (i: number, round: number) => utf8(`{"balance":"${i * 1000 + round}","nonce":"${round}"}`);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

interface Result {
  store: string;
  entries: number;
  batch: number;
  build_s: number;
  update_batches: number;
  updates_per_s: number;
  median_ms: number;
  p90_ms: number;
  new_nodes_per_batch: number;
}

async function run(name: string, store: NodeStore): Promise<Result> {
  const keys = Array.from({ length: ENTRIES }, (_, i) => stateKey(i));
  let root = EMPTY_ROOT;
  const buildStart = performance.now();
  for (let at = 0; at < ENTRIES; at += BATCH) {
    const changes: TreeChange[] = [];
    for (let i = at; i < Math.min(at + BATCH, ENTRIES); i++) changes.push({ key: keys[i]!, value: value(i, 0) });
    const res = await updateTree(store, root, changes);
    await store.put(res.nodes);
    root = res.root;
  }
  const buildSeconds = (performance.now() - buildStart) / 1000;

  const rand = rng(42);
  const times: number[] = [];
  let nodes = 0;
  for (let b = 1; b <= UPDATE_BATCHES; b++) {
    const picked = new Set<number>();
    while (picked.size < BATCH) picked.add(Math.floor(rand() * ENTRIES));
    const changes = [...picked].map((i) => ({ key: keys[i]!, value: value(i, b) }));
    const start = performance.now();
    const res = await updateTree(store, root, changes);
    times.push(performance.now() - start);
    nodes += res.nodes.size;
    await store.put(res.nodes);
    root = res.root;
  }
  const total = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  return {
    store: name,
    entries: ENTRIES,
    batch: BATCH,
    build_s: Number(buildSeconds.toFixed(2)),
    update_batches: UPDATE_BATCHES,
    updates_per_s: Math.round((UPDATE_BATCHES * BATCH) / (total / 1000)),
    median_ms: Number(quantile(times, 0.5).toFixed(1)),
    p90_ms: Number(quantile(times, 0.9).toFixed(1)),
    new_nodes_per_batch: Math.round(nodes / UPDATE_BATCHES),
  };
}

const results: Result[] = [];
results.push(await run('memory', memoryStore()));
// Without a cache every node read goes to LevelDB; with one big enough for the working set
// (about 2 nodes per entry plus recent versions), reads mostly stay in memory.
for (const [name, cacheNodes] of [['leveldb', 0], ['leveldb+cache', 1_000_000]] as const) {
  const dir = mkdtempSync(join(tmpdir(), 'state-tree-bench-'));
  try {
    const level = await levelStore(dir, cacheNodes);
    results.push(await run(name, level));
    await level.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`state tree: ${ENTRIES} entries, batches of ${BATCH} updates to random existing keys\n`);
console.log('store          build(s)  updates/s  median ms  p90 ms  new nodes/batch');
for (const r of results) {
  console.log(
    `${r.store.padEnd(14)} ${String(r.build_s).padStart(8)}  ${String(r.updates_per_s).padStart(9)}  ${String(r.median_ms).padStart(9)}  ${String(r.p90_ms).padStart(6)}  ${String(r.new_nodes_per_batch).padStart(15)}`,
  );
}
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(
  join(import.meta.dirname, 'results', 'state-tree.json'),
  JSON.stringify({ node: process.version, date: new Date().toISOString(), results }, null, 2) + '\n',
);
