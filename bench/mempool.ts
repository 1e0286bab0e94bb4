/**
 * Mempool admission benchmark: 20k signed transfers from 200 senders (100 nonces each, arriving
 * round-robin) admitted one at a time into a mempool over in-memory committed state. Rows: the
 * decoded path (admit, as gossip uses it), the JSON path (admitJson, as ledger_sendTransaction uses
 * it), and a bare Ed25519 verify of the same transactions for comparison. Also times select() of a
 * block's worth from the full pool.
 * Prints a table and writes bench/results/mempool.json.
 *
 * Run: TS_NODE_TRANSPILE_ONLY=1 node --import ./node_modules/@isaacs/ts-node-temp-fork-for-pr-2009/import.mjs bench/mempool.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyPairFromSeed } from '../node/crypto/ed25519.js';
import { StateOverlay } from '../node/execution/overlay.js';
import { writeAccount } from '../node/execution/state-access.js';
import { Mempool } from '../node/mempool/index.js';
import { addressBytesFromPublicKey } from '../node/protocol/address.js';
import { UNIT } from '../node/protocol/amount.js';
import { stringifyJson } from '../node/protocol/json.js';
import { signTransaction, transactionToJson, verifyTransactionSignature, type Transaction } from '../node/protocol/transaction.js';

const CHAIN = 'bench-chain';
const SENDERS = 200;
const PER_SENDER = 100;
const BLOCK = 5000;

const keys = Array.from({ length: SENDERS }, (_, i) => {
  const seed = new Uint8Array(32);
  new DataView(seed.buffer).setUint32(0, i + 1);
  return keyPairFromSeed(seed);
});
const recipient = addressBytesFromPublicKey(keyPairFromSeed(new Uint8Array(32).fill(255)).publicKey);

function committedState(): StateOverlay {
  const s = new StateOverlay({ get: async () => undefined });
  for (const k of keys) writeAccount(s, addressBytesFromPublicKey(k.publicKey), { balance: 1_000_000n * UNIT, nonce: 0n });
  return s;
}

console.log(`signing ${SENDERS * PER_SENDER} transfers...`);
const txs: Transaction[] = [];
for (let n = 0; n < PER_SENDER; n++) {
  for (const k of keys) {
    txs.push(signTransaction(CHAIN, { senderPubkey: k.publicKey, nonce: BigInt(n), payload: { kind: 'Transfer', to: recipient, amount: 1n } }, k.seed));
  }
}
const texts = txs.map((tx) => stringifyJson(transactionToJson(tx)));

interface Row {
  path: string;
  count: number;
  per_s: number;
  median_us: number;
  p99_us: number;
}

function row(path: string, samples: number[], totalMs: number): Row {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 1000;
  return { path, count: samples.length, per_s: Math.round((samples.length / totalMs) * 1000), median_us: round(at(0.5)), p99_us: round(at(0.99)) };
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

async function admitAll(path: string, admit: (mp: Mempool, i: number) => Promise<unknown>): Promise<{ row: Row; mp: Mempool }> {
  const mp = new Mempool({ chainId: CHAIN, network: 'bench', state: committedState() });
  const samples: number[] = [];
  const start = performance.now();
  for (let i = 0; i < txs.length; i++) {
    const t0 = performance.now();
    await admit(mp, i);
    samples.push(performance.now() - t0);
  }
  const total = performance.now() - start;
  if (mp.size !== txs.length) throw new Error(`expected ${txs.length} pending, got ${mp.size}`);
  return { row: row(path, samples, total), mp };
}

// warm up JIT and key caches on a throwaway pool
await admitAll('warm-up', (mp, i) => mp.admit(txs[i]!));

const rows: Row[] = [];
const decoded = await admitAll('admit (decoded)', (mp, i) => mp.admit(txs[i]!));
rows.push(decoded.row);
rows.push((await admitAll('admitJson (text)', (mp, i) => mp.admitJson(texts[i]!))).row);

// The same pool again after removing everything: the verified cache skips Ed25519, which isolates
// the mempool's own cost (hashing, state reads, checks, bookkeeping).
const cachedSamples: number[] = [];
const hashes = decoded.mp.selectEntries(txs.length).map((e) => e.hash);
for (const h of hashes) decoded.mp.remove(h);
const cStart = performance.now();
for (const tx of txs) {
  const t0 = performance.now();
  await decoded.mp.admit(tx);
  cachedSamples.push(performance.now() - t0);
}
rows.push(row('admit, sig cached', cachedSamples, performance.now() - cStart));

const verifySamples: number[] = [];
const vStart = performance.now();
for (const tx of txs) {
  const t0 = performance.now();
  if (!verifyTransactionSignature(CHAIN, tx)) throw new Error('bad signature');
  verifySamples.push(performance.now() - t0);
}
rows.push(row('ed25519 verify only', verifySamples, performance.now() - vStart));

const selectSamples: number[] = [];
for (let i = 0; i < 20; i++) {
  const t0 = performance.now();
  if (decoded.mp.select(BLOCK).length !== BLOCK) throw new Error('select returned too few');
  selectSamples.push(performance.now() - t0);
}
selectSamples.sort((a, b) => a - b);
const selectMedianMs = round(selectSamples[10]!);

console.log(`\nmempool admission: ${txs.length} transfers from ${SENDERS} senders, in-memory state\n`);
console.log('path                  admissions/s  median µs  p99 µs');
for (const r of rows) console.log(`${r.path.padEnd(22)}${String(r.per_s).padStart(12)}${String(r.median_us).padStart(11)}${String(r.p99_us).padStart(8)}`);
console.log(`\nselect(${BLOCK}) from ${txs.length} pending: median ${selectMedianMs} ms`);

mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(
  join(import.meta.dirname, 'results', 'mempool.json'),
  JSON.stringify({ node: process.version, date: new Date().toISOString(), senders: SENDERS, per_sender: PER_SENDER, results: rows, select: { count: BLOCK, median_ms: selectMedianMs } }, null, 2) + '\n',
);
