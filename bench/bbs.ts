/**
 * bench/bbs: what one BBS proof verification costs (node/crypto/bbs.ts), by the number of messages
 * of the signed credential, with none and with all of them disclosed; and what deriving a proof
 * costs; and a proof's share of a batch (verifyBbsProofs: one pairing check for the batch), by
 * batch size, beside the same proofs verified one by one in the same run. These times are what the RPC's cost model (node/rpc/verification/cost.ts) charges,
 * rounded up. For the sizes in --reference, the reference library (@digitalbazaar/bbs-signatures,
 * what verifyBbsProof and bbsDeriveProof used before) is timed in the same run, alternating with
 * ours, so the two columns share the machine's load.
 *
 *   npm run bench:bbs -- [--runs 5] [--sizes 1,12,64,256,1024] [--reference 1,12,64] [--batches 2,4,8,16] [--out <file>]
 *
 * One thread (one core); each time is taken as wall time and as the process's CPU time, which the
 * other jobs of a shared machine inflate less (the speed-up is of CPU times). Prints tables and
 * writes bench/results/bbs.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CIPHERSUITES, deriveProof, generateKeyPair, sign } from '@digitalbazaar/bbs-signatures';
import { bbsDeriveProof, verifyBbsProof, verifyBbsProofs, type BbsProofInput } from '../node/crypto/bbs.js';
import { libraryProofVerify } from '../node/crypto/bbs/reference.js';
import { proofVerify } from '../node/crypto/bbs/verify.js';
import { bbsVerifyCost } from '../node/rpc/verification/cost.js';
import { makeBbsProof } from './lib/bbs-proof.js';
import { machine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    sizes: { type: 'string', default: '1,12,64,256,1024' },
    reference: { type: 'string', default: '1,12,64' },
    batches: { type: 'string', default: '2,4,8,16' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('bench/bbs: BBS proof verification and derivation time by message count, and by batch\n\n  npm run bench:bbs -- [--runs 5] [--sizes 1,12,64,256,1024] [--reference 1,12,64] [--batches 2,4,8,16] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const runs = Number(values.runs);
const sizes = values.sizes.split(',').map(Number);
const referenceSizes = new Set(values.reference.split(',').filter(Boolean).map(Number));
const ciphersuite = CIPHERSUITES.BLS12381_SHA256;
const r = (x: number) => Math.round(x * 10) / 10;

interface Timing {
  median_ms: number;
  max_ms: number;
  /** CPU time of the process (user + system), which other jobs on the machine inflate less than wall time */
  median_cpu_ms: number;
}

/** median and max of `runs` timings of each function, the functions taking turns */
async function time(fns: Array<(() => Promise<unknown>) | undefined>): Promise<Array<Timing | undefined>> {
  const wall = fns.map(() => [] as number[]);
  const cpu = fns.map(() => [] as number[]);
  for (const fn of fns) await fn?.(); // warm-up: module loading, generators, key decoding
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of fns.entries()) {
      if (!fn) continue;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await fn();
      wall[k]!.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[k]!.push((c.user + c.system) / 1000);
    }
  }
  return wall.map((s, k) => {
    if (s.length === 0) return undefined;
    s.sort((a, b) => a - b);
    const c = cpu[k]!.sort((a, b) => a - b);
    return { median_ms: r(percentile(s, 50)), max_ms: r(s.at(-1)!), median_cpu_ms: r(percentile(c, 50)) };
  });
}

const mustVerify = (ok: boolean) => {
  if (!ok) throw new Error('a valid proof did not verify');
};
const referenceVerify = (p: BbsProofInput) => async () =>
  mustVerify(await libraryProofVerify({ PK: p.publicKey, proof: p.proof, header: p.header, ph: p.presentationHeader, disclosed: p.disclosed }));

interface VerifyRow extends Timing {
  messages: number;
  disclosed: number;
  runs: number;
  cost_units: number;
  reference_median_ms?: number;
  reference_max_ms?: number;
  reference_median_cpu_ms?: number;
}
interface DeriveRow extends Timing {
  messages: number;
  disclosed: number;
  runs: number;
  reference_median_ms?: number;
  reference_median_cpu_ms?: number;
}

const load = loadavg()[0] ?? 0;
// A thread's first verification loads mcl-wasm; until it has, verifyBbsProof answers proofs of up
// to 64 messages with the reference library. Timed here: the load and one verification.
const first = await makeBbsProof(1, 0);
const t0 = performance.now();
mustVerify(await proofVerify({ PK: first.publicKey, proof: first.proof, header: first.header, ph: first.presentationHeader, disclosed: first.disclosed }));
const firstCallMs = r(performance.now() - t0);

const verifyRows: VerifyRow[] = [];
for (const n of sizes) {
  for (const disclosed of [0, n]) {
    const proof = await makeBbsProof(n, disclosed);
    const [ours, ref] = await time([async () => mustVerify(await verifyBbsProof(proof)), referenceSizes.has(n) ? referenceVerify(proof) : undefined]);
    verifyRows.push({ messages: n, disclosed, runs, ...ours!, cost_units: bbsVerifyCost(n), ...(ref ? { reference_median_ms: ref.median_ms, reference_max_ms: ref.max_ms, reference_median_cpu_ms: ref.median_cpu_ms } : {}) });
  }
}

// a KYC credential's proof (12 messages, 8 disclosed), in batches as the pool forms them under load
interface BatchRow {
  batch: number;
  alone_cpu_ms_per_proof: number;
  batched_cpu_ms_per_proof: number;
}
const batchRows: BatchRow[] = [];
const kycProof = await makeBbsProof(12, 8);
for (const k of values.batches.split(',').filter(Boolean).map(Number)) {
  const proofs = Array.from({ length: k }, () => kycProof);
  const [alone, batched] = await time([
    async () => {
      for (const p of proofs) mustVerify(await verifyBbsProof(p));
    },
    async () => mustVerify((await verifyBbsProofs(proofs)).every(Boolean)),
  ]);
  batchRows.push({ batch: k, alone_cpu_ms_per_proof: r(alone!.median_cpu_ms / k), batched_cpu_ms_per_proof: r(batched!.median_cpu_ms / k) });
}

const deriveRows: DeriveRow[] = [];
for (const n of sizes) {
  const keys = await generateKeyPair({ ciphersuite });
  const messages = Array.from({ length: n }, (_, i) => new TextEncoder().encode(`claim ${i}`));
  const header = new TextEncoder().encode('ledger test');
  const presentationHeader = new TextEncoder().encode('nonce');
  const signature = await sign({ ...keys, header, messages, ciphersuite });
  const indexes = Array.from({ length: n >> 1 }, (_, i) => 2 * i); // every other message disclosed
  const [ours, ref] = await time([
    () => bbsDeriveProof({ publicKey: keys.publicKey, signature, header, messages, presentationHeader, disclosedIndexes: indexes }),
    referenceSizes.has(n) ? () => deriveProof({ ...keys, signature, header, messages, presentationHeader, disclosedMessageIndexes: indexes, ciphersuite }) : undefined,
  ]);
  deriveRows.push({ messages: n, disclosed: indexes.length, runs, ...ours!, ...(ref ? { reference_median_ms: ref.median_ms, reference_median_cpu_ms: ref.median_cpu_ms } : {}) });
}

const x = (ours: number, ref?: number) => (ref === undefined ? '' : `${(ref / ours).toFixed(1)}x`);
console.log(`\nBBS proof verification (BLS12-381-SHA-256), ${runs} runs each, one thread (load ${load.toFixed(2)}); loading mcl-wasm with the first ${firstCallMs} ms\n`);
const col = (v: unknown, w: number) => String(v ?? '').padStart(w);
console.log('messages  disclosed  median ms   max ms  cpu ms  charged units  reference ms  ref cpu ms  speed-up');
for (const w of verifyRows) {
  console.log(
    `${col(w.messages, 8)}${col(w.disclosed, 11)}${col(w.median_ms, 11)}${col(w.max_ms, 9)}${col(w.median_cpu_ms, 8)}${col(w.cost_units, 15)}` +
      `${col(w.reference_median_ms, 14)}${col(w.reference_median_cpu_ms, 12)}${x(w.median_cpu_ms, w.reference_median_cpu_ms).padStart(10)}`,
  );
}
console.log('\nBBS proofs of 12 messages (8 disclosed) in one batch, CPU ms a proof\n');
console.log('batch  one by one  batched  saved');
for (const b of batchRows) {
  console.log(`${col(b.batch, 5)}${col(b.alone_cpu_ms_per_proof, 12)}${col(b.batched_cpu_ms_per_proof, 9)}${col(`${Math.round(100 * (1 - b.batched_cpu_ms_per_proof / b.alone_cpu_ms_per_proof))} %`, 7)}`);
}
console.log('\nBBS proof derivation (every other message disclosed)\n');
console.log('messages  disclosed  median ms   max ms  cpu ms  reference ms  ref cpu ms  speed-up');
for (const w of deriveRows) {
  console.log(
    `${col(w.messages, 8)}${col(w.disclosed, 11)}${col(w.median_ms, 11)}${col(w.max_ms, 9)}${col(w.median_cpu_ms, 8)}` +
      `${col(w.reference_median_ms, 14)}${col(w.reference_median_cpu_ms, 12)}${x(w.median_cpu_ms, w.reference_median_cpu_ms).padStart(10)}`,
  );
}

const out = values.out ?? join(root, 'bench/results', 'bbs.json');
await mkdir(join(out, '..'), { recursive: true });
await writeFile(
  out,
  JSON.stringify(
    {
      bench: 'bbs',
      runs,
      reference: '@digitalbazaar/bbs-signatures (before: what verifyBbsProof and bbsDeriveProof used)',
      /** loading mcl-wasm in the thread and verifying a 1-message proof */
      first_call_ms: firstCallMs,
      results: verifyRows,
      batches: batchRows,
      derive: deriveRows,
      machine: { ...machine(), loadavg_1m_before: load },
      at: new Date().toISOString(),
    },
    null,
    1,
  ) + '\n',
);
console.log(`wrote ${out}`);
