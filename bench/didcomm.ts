/**
 * bench/didcomm: what one DIDComm envelope costs the relay's crypto worker, by implementation:
 * the reference library (didcomm-node, WASM) against Node's crypto (plugins/relay/wire/jwe), on
 * the envelopes the relay sees most: a forward to unpack (anoncrypt XC20P, authcrypt) and a live
 * delivery to pack (authcrypt, 1 to 100 messages). The two take turns on the same envelopes, and
 * each figure is also given in Ed25519 verifications timed in the same run, so that it holds from
 * machine to machine. Documents are resolved beforehand, as the relay does on its event loop.
 *
 *   npm run bench:didcomm -- [--runs 5] [--per-run 300] [--out <file>]
 *
 * One thread. Prints a table and writes bench/results/didcomm.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DIDDoc, IMessage } from 'didcomm-node';
import { peerDid2Document } from '../plugins/relay/wire/dids/did-peer.js';
import { packEnvelope, packWithLibrary, unpackEnvelope, unpackWithLibrary, type PackRequest } from '../plugins/relay/wire/didcomm.js';
import { mediatorIdentity } from '../plugins/relay/wire/identity.js';
import { AgentResolver, DidcommAgent } from './lib/relay/didcomm-agent.js';
import { timeEd25519Verify } from './lib/ed25519-unit.js';
import { machine } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'per-run': { type: 'string', default: '300' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('bench/didcomm: DIDComm pack and unpack, the reference library against Node\'s crypto\n\n  npm run bench:didcomm -- [--runs 5] [--per-run 300] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const runs = Number(values.runs);
const perRun = Number(values['per-run']);
const loadBefore = loadavg();

const endpoint = 'https://relay.example/didcomm';
const mediator = mediatorIdentity(randomBytes(32));
const agents = new AgentResolver();
agents.add(mediator.document(endpoint) as DIDDoc);
const recipient = new DidcommAgent(agents);
const sender = new DidcommAgent(agents);
const docs = new Map<string, DIDDoc>();
const lookup = (did: string): DIDDoc | null => {
  let doc = docs.get(did) ?? (mediator.documentOf(did, endpoint) as DIDDoc | undefined);
  if (!doc && did.startsWith('did:peer:2')) docs.set(did, (doc = peerDid2Document(did) as DIDDoc));
  return doc ?? null;
};

const inners = await Promise.all(Array.from({ length: 100 }, (_, i) => sender.pack(sender.message('https://example.org/bench/1.0/message', { i, pad: 'x'.repeat(64) }), recipient.did, { anon: true })));
const anon = await Promise.all(inners.map((inner) => sender.forward(mediator.did, recipient.did, inner, { anon: true })));
const auth = await Promise.all(inners.map((inner) => sender.forward(mediator.did, recipient.did, inner, { anon: false })));
const delivery = (n: number): PackRequest => ({
  message: { id: `d${n}`, typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/messagepickup/3.0/delivery', from: mediator.did, to: [recipient.did], body: {}, attachments: inners.slice(0, n).map((x, j) => ({ id: `a${j}`, data: { json: JSON.parse(x) } })) } as unknown as IMessage,
  to: recipient.did,
  from: mediator.did,
});

type Op = (i: number) => Promise<unknown>;
const cases: Array<{ operation: string; library: Op; node: Op; per?: number }> = [
  { operation: 'unpack an anoncrypt forward (XC20P)', library: (i) => unpackWithLibrary(anon[i % 100]!, lookup, mediator.secrets), node: (i) => unpackEnvelope(anon[i % 100]!, lookup, mediator.secrets) },
  { operation: 'unpack an authcrypt forward', library: (i) => unpackWithLibrary(auth[i % 100]!, lookup, mediator.secrets), node: (i) => unpackEnvelope(auth[i % 100]!, lookup, mediator.secrets) },
  ...[1, 20, 100].map((n) => ({
    operation: `pack an authcrypt delivery of ${n} message${n > 1 ? 's' : ''}`,
    library: () => packWithLibrary(delivery(n), lookup, mediator.secrets),
    node: () => packEnvelope(delivery(n), lookup, mediator.secrets),
    per: n > 1 ? Math.max(10, Math.round(perRun / n) * 4) : perRun,
  })),
];

/** CPU µs per call of `op`, over `n` calls */
async function cpuPerCall(op: Op, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await op(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const unit = timeEd25519Verify();
const rows = [];
for (const c of cases) {
  const n = c.per ?? perRun;
  await cpuPerCall(c.library, Math.min(n, 30));
  await cpuPerCall(c.node, Math.min(n, 30));
  const lib: number[] = [];
  const ours: number[] = [];
  for (let r = 0; r < runs; r++) {
    lib.push(await cpuPerCall(c.library, n));
    ours.push(await cpuPerCall(c.node, n));
  }
  const l = median(lib);
  const o = median(ours);
  rows.push({ operation: c.operation, library_us: Math.round(l), node_us: Math.round(o), library_ed25519: +(l / unit.us).toFixed(1), node_ed25519: +(o / unit.us).toFixed(1), speedup: +(l / o).toFixed(1) });
}
console.table(rows.map((r) => ({ operation: r.operation, 'library µs (Ed25519)': `${r.library_us} (${r.library_ed25519})`, "Node's crypto µs (Ed25519)": `${r.node_us} (${r.node_ed25519})`, 'times cheaper': r.speedup })));
const loadAfter = loadavg();
console.log(`machine: ${machine().cpus} cores (${machine().model}), load ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after; one Ed25519 verification ${unit.us.toFixed(1)} µs of CPU; medians of ${runs} runs`);
const out = values.out ?? join(root, 'bench', 'results', 'didcomm.json');
await mkdir(join(out, '..'), { recursive: true });
await writeFile(out, JSON.stringify({ benchmark: 'didcomm', date: new Date().toISOString(), machine: { ...machine(), loadavg_before: loadBefore, loadavg_after: loadAfter }, ed25519_verify_us: unit.us, runs, per_run: perRun, method: 'CPU time of this process per call (user + system), the two implementations taking turns on the same envelopes; median over runs', rows }, null, 2) + '\n');
console.log(`wrote ${out}`);
