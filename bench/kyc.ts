/**
 * bench/kyc: verification sessions of the KYC plugin on a real one-validator node process
 * (`ledger init`, then `ledger start --plugins kyc`, data in a temp dir, free ports), driven over
 * HTTP as an integrator would: an organization, a sandbox key and a webhook endpoint; subjects
 * with DIDs on chain; then N level-1 sandbox sessions with `sandboxOutcome: pass`, C at a time,
 * each created, given a final document (a real JPEG), and waited for until its signed
 * `credential.issued` webhook arrives (the credential then is registered on chain by the
 * validator's VRF attester).
 *
 * Reported: sessions completed per second of wall time, and the latency from creation to
 * `credential.issued` (p50, p90, p99, max), with the machine and its load.
 *
 *   npm run bench:kyc -- [--sessions 200] [--concurrency 20] [--image-threads N]
 *   npm run bench:kyc -- --profile /tmp/kyc-prof     (V8 CPU profile of the node, summarized)
 *
 * Prints a table and writes bench/results/kyc.json. Figures are reported, never asserted.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RpcClient } from '../node/client/index.js';
import { freePortRange } from '../node/devnet/ports.js';
import { spawnNode } from './lib/chaos/node-process.js';
import { printProfiles } from './lib/cpuprofile.js';
import { KycClient } from './lib/kyc/client.js';
import { subjectsOnChain } from './lib/kyc/subjects.js';
import { testJpeg } from './lib/kyc/images.js';
import { WebhookReceiver } from './lib/kyc/receiver.js';
import { latencySummary, machine, pool } from './lib/stats.js';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '200' }, concurrency: { type: 'string', default: '20' }, subjects: { type: 'string', default: '10' }, profile: { type: 'string' }, 'image-threads': { type: 'string' } } });
const profileDir = values.profile === undefined ? undefined : resolve(values.profile);
const SESSIONS = Number(values.sessions);
const CONCURRENCY = Number(values.concurrency);
const SUBJECTS = Number(values.subjects);
for (const [name, v] of Object.entries({ sessions: SESSIONS, concurrency: CONCURRENCY, subjects: SUBJECTS })) {
  if (!Number.isInteger(v) || v < 1) {
    console.error(`--${name} must be a positive integer`);
    process.exit(2);
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const bin = join(root, 'bin', 'ledger.js');
const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-kyc-'));
const rpcPort = await freePortRange(3);
const [p2pPort, kycPort] = [rpcPort + 1, rpcPort + 2];
execFileSync(process.execPath, [bin, 'init', '--data-dir', dir], { stdio: 'ignore' });
const imageThreads = values['image-threads'] === undefined ? {} : { imageThreads: Number(values['image-threads']) };
await writeFile(join(dir, 'config.json'), JSON.stringify({ plugins: { kyc: { enabled: true, ...imageThreads } } }));
const node = await spawnNode({ bin, dataDir: dir, rpcPort, p2pPort, logFile: join(dir, 'node.log'), plugins: 'kyc', args: ['--kyc-port', String(kycPort)], nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });
if (profileDir) await mkdir(profileDir, { recursive: true });
const receiver = new WebhookReceiver();
try {
  const hookUrl = await receiver.start();
  const rpc = new RpcClient(node.url);
  const api = new KycClient(`http://127.0.0.1:${kycPort}`);
  await api.register('bench@example.org', 'a bench passphrase of length', 'Bench');
  await api.createKey('sandbox');
  receiver.secret = (await api.addWebhook(hookUrl, ['credential.issued'])).secret;

  // subjects with DIDs on chain, funded from the dev account
  const subjects = await subjectsOnChain(rpc, dir, SUBJECTS);

  const image = testJpeg(1000, 700, 1);
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  await pool(
    Array.from({ length: SESSIONS }, (_, i) => i),
    CONCURRENCY,
    async (i) => {
      const t0 = performance.now();
      try {
        const { session } = await api.createSession({ level: 1, sandbox: true, sandboxOutcome: 'pass', subjectDid: subjects[i % SUBJECTS], metadata: { i: String(i) } });
        await api.uploadDocument(session.id, image, { type: 'passport', side: 'front', final: true });
        // the session's id is not in credential.issued; its credential id is, once set
        let credentialId: string | undefined;
        while (credentialId === undefined) {
          const s = (await api.getSession(session.id)).session;
          if (s.status === 'failed' || s.status === 'expired') throw new Error(`session ${session.id} ended ${s.status}`);
          if (s.credentialId) credentialId = s.credentialId as string;
          else await new Promise((r) => setTimeout(r, 50));
        }
        await receiver.waitFor((e) => e.data.credentialId === credentialId, 120_000);
        latencies.push(performance.now() - t0);
      } catch (err) {
        failures++;
        console.error(`session ${i}: ${(err as Error).message}`);
      }
    },
  );
  const wallS = (performance.now() - started) / 1000;
  const result = {
    bench: 'kyc',
    at: new Date().toISOString(),
    machine: machine(),
    load_before: loadavg(),
    sessions: SESSIONS,
    concurrency: CONCURRENCY,
    image_threads: values['image-threads'] === undefined ? 'default (1)' : Number(values['image-threads']),
    document: '1000x700 JPEG, level 1 sandbox pass',
    completed: latencies.length,
    failures,
    wall_s: Math.round(wallS * 10) / 10,
    sessions_per_s: Math.round((latencies.length / wallS) * 100) / 100,
    creation_to_credential_issued_ms: latencySummary(latencies),
  };
  console.table([{ sessions: result.completed, failures, 'wall s': result.wall_s, 'sessions/s': result.sessions_per_s, ...Object.fromEntries(Object.entries(result.creation_to_credential_issued_ms).map(([k, v]) => [`${k} ms`, v])) }]);
  await mkdir(join(root, 'bench', 'results'), { recursive: true });
  await writeFile(join(root, 'bench', 'results', 'kyc.json'), JSON.stringify(result, null, 2) + '\n');
} finally {
  await receiver.close();
  await node.stop();
  await rm(dir, { recursive: true, force: true });
}
if (profileDir) {
  // the whole run, setup included: the sessions dominate it
  await printProfiles(profileDir);
}
