/**
 * bench/credentials: the issuance flow on a devnet of N validators (`ledger devnet --json`, no
 * plugins). Several issuers each send a run of KYC credential requests (pipelined, consecutive
 * nonces and revocation positions); every validator's attester attests the requests its VRF selects
 * it for. Reports, per credential, the time from sending the request to its receipt (inclusion)
 * and to its registration (the threshold of attestations committed), as p50/p90/p99, and the
 * registrations per second over the run.
 *
 *   npm run bench:credentials -- --validators 4 --credentials 200 --issuers 4
 *
 * Prints a table and writes bench/results/credentials-<N>v.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildCredentialRequest, buildDidCreate, RpcClient, signAndEncode, waitForReceipt } from '../node/client/index.js';
import { readKeyFile, type AccountKey } from '../node/config/keyfile.js';
import { fundSenders } from './lib/accounts.js';
import { startDevnet } from './lib/devnet.js';
import { scrape } from './lib/prometheus.js';
import { latencySummary, machine } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    validators: { type: 'string', default: '4' },
    credentials: { type: 'string', default: '200' },
    issuers: { type: 'string', default: '4' },
    out: { type: 'string' },
    'keep-dir': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(`bench/credentials: request-to-registration latency of credential issuance on a devnet

  npm run bench:credentials -- [--validators 4] [--credentials 200] [--issuers 4] [--out <file>] [--keep-dir]`);
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const n = Number(values.validators);
const total = Number(values.credentials);
const issuerCount = Math.min(Number(values.issuers), total);

interface Pending {
  id: string;
  sentMs: number;
  includedMs?: number;
  registeredMs?: number;
}

async function send(rpc: RpcClient, chainId: string, key: AccountKey, unsigned: Parameters<typeof signAndEncode>[1]): Promise<string> {
  const s = signAndEncode(chainId, unsigned, key.seed);
  await rpc.sendTransaction(s.json);
  return s.hash;
}

/** DIDs for the issuers and one subject, each created by its own key. */
async function createDids(rpc: RpcClient, chainId: string, keys: AccountKey[]): Promise<void> {
  const hashes = await Promise.all(keys.map((k) => send(rpc, chainId, k, buildDidCreate({ senderPubkey: k.publicKey, nonce: 0 }))));
  for (const h of hashes) {
    const r = await waitForReceipt(rpc, h, { timeoutMs: 60_000 });
    if (r.status !== 'success') throw new Error(`DidCreate failed: ${r.status}`);
  }
}

/** Polls every pending request until each is registered (or the deadline passes). */
async function watch(rpc: RpcClient, all: Pending[], timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (all.some((p) => p.registeredMs === undefined) && Date.now() < end) {
    const open = all.filter((p) => p.registeredMs === undefined);
    for (let at = 0; at < open.length; at += 100) {
      const chunk = open.slice(at, at + 100);
      const answers = await rpc.batch(chunk.map((p) => ({ method: 'ledger_getCredentialRequest', params: [p.id] })));
      const now = Date.now();
      answers.forEach((a, i) => {
        const status = a.ok ? (a.result as { status?: string } | null)?.status : undefined;
        if (status !== undefined) chunk[i]!.includedMs ??= now;
        if (status === 'registered') chunk[i]!.registeredMs = now;
      });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-credentials-'));
  const load = loadavg()[0];
  const net = await startDevnet(root, n, dir);
  try {
    const rpc = new RpcClient(net.rpcUrls[0]!);
    const { chain_id: chainId } = await rpc.chainInfo();
    const dev = await readKeyFile(net.devKey);
    const [subject, ...issuers] = await fundSenders(rpc, chainId, dev, issuerCount + 1, 1_000_000n);
    await createDids(rpc, chainId, [subject!, ...issuers]);

    const perIssuer = Math.ceil(total / issuerCount);
    const all: Pending[] = [];
    const started = Date.now();
    await Promise.all(
      issuers.map(async (issuer, k) => {
        const count = Math.min(perIssuer, total - k * perIssuer);
        for (let i = 0; i < count; i++) {
          const id = randomUUID();
          const unsigned = buildCredentialRequest({
            senderPubkey: issuer.publicKey,
            nonce: 1 + i,
            credentialId: id,
            credentialType: 'KYCCredential',
            kycLevel: 2,
            subjectDid: subject!.did,
            issuerDid: issuer.did,
            hash: new Uint8Array(32).fill(i & 0xff),
            evidenceDigest: new Uint8Array(32),
            statusList: 0,
            statusIndex: i,
          });
          const entry: Pending = { id, sentMs: Date.now() };
          all.push(entry);
          await send(rpc, chainId, issuer, unsigned);
        }
      }),
    );
    await watch(rpc, all, 120_000 + 500 * total);
    const finished = Math.max(...all.map((p) => p.registeredMs ?? 0));
    const registered = all.filter((p) => p.registeredMs !== undefined);
    const attestations = (await Promise.all(net.rpcUrls.map(scrape))).map((s) => s.get('ledger_attestations_total{result="sent"}') ?? 0);

    const result = {
      bench: 'credentials',
      validators: n,
      credentials: total,
      issuers: issuerCount,
      registered: registered.length,
      registered_per_s: Math.round((registered.length / ((finished - started) / 1000)) * 10) / 10,
      to_receipt_ms: latencySummary(all.filter((p) => p.includedMs !== undefined).map((p) => p.includedMs! - p.sentMs)),
      to_registration_ms: latencySummary(registered.map((p) => p.registeredMs! - p.sentMs)),
      attestations_sent_per_node: attestations,
      machine: { ...machine(), loadavg_1m_before: load },
      at: new Date().toISOString(),
    };
    console.table([
      {
        validators: n,
        credentials: total,
        registered: result.registered,
        'registered/s': result.registered_per_s,
        'receipt p50': result.to_receipt_ms.p50,
        'registration p50': result.to_registration_ms.p50,
        p90: result.to_registration_ms.p90,
        p99: result.to_registration_ms.p99,
      },
    ]);
    const out = values.out ?? join(root, 'bench/results', `credentials-${n}v.json`);
    await mkdir(join(out, '..'), { recursive: true });
    await writeFile(out, JSON.stringify(result, null, 1) + '\n');
    console.log(`wrote ${out}`);
  } finally {
    await net.stop();
    if (!values['keep-dir']) await rm(dir, { recursive: true, force: true });
  }
}

await main();
