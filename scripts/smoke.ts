/**
 * The end-to-end smoke run: a real one-validator node from the build (bin/ledger.js, dist/),
 * started by the Node.js that runs this script, with every plugin on and their defaults, as `npm
 * start` runs it. Right after the start, the KYC service and the wallet answer health `ok`. It
 * sends a transfer, creates a DID, reads both back over JSON-RPC, the DID resolver and the
 * explorer API, stops the node with SIGTERM, and fails on any error or on any process warning
 * (DeprecationWarning, ExperimentalWarning, ...) from the node or from this script. CI runs it on
 * a second Node.js major: `node dist/scripts/smoke.js` (after `npm run build`);
 * test/e2e/smoke.test.ts runs it on the default one. Prints `node <major> smoke: ok` and exits 0,
 * or the failure and exits 1.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDidCreate, buildTransfer, RpcClient, signAndEncode, waitForReceipt } from '../node/client/index.js';
import { generateAccountKey, readKeyFile } from '../node/config/keyfile.js';

const LEDGER_BIN = fileURLToPath(new URL('../../bin/ledger.js', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const RECEIPT_TIMEOUT_MS = 20_000;
/** how Node.js prints a process warning: `(node:123) [DEP0040] DeprecationWarning: ...` */
const PROCESS_WARNING = /^\(node:\d+\) (?:\[[A-Z]+\d+\] )?\w*Warning: .*$/m;

class SmokeFailure extends Error {
  override name = 'SmokeFailure';
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new SmokeFailure(what);
}

async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.json() };
}

async function run(): Promise<void> {
  const ownWarnings: string[] = [];
  process.on('warning', (w) => ownWarnings.push(`${w.name}: ${w.message}`));
  const dataDir = await mkdtemp(join(tmpdir(), 'ledger-smoke-'));
  // a wildcard host on the explorer: the flag must reach the bind (the start line reports it)
  const args = ['start', '--data-dir', dataDir, '--rpc-port', '0', '--p2p-host', '127.0.0.1', '--p2p-port', '0', '--plugins', 'explorer,relay,kyc,wallet', '--explorer-host', '0.0.0.0', '--explorer-port', '0', '--relay-port', '0', '--kyc-port', '0', '--wallet-port', '0', '--log-level', 'info'];
  // the node runs under this script's Node.js and its flags (a --trace-warnings, a preload)
  const node = spawn(process.execPath, [...process.execArgv, LEDGER_BIN, ...args], { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  node.stdout.on('data', (d) => (stdout += d));
  node.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => node.on('exit', (code) => resolve(code)));
  try {
    const started = await new Promise<{ rpc_url: string; plugins: Array<{ name: string; state: string; url?: string }> }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new SmokeFailure(`the node did not start in ${START_TIMEOUT_MS / 1000} s:\n${stderr}`)), START_TIMEOUT_MS);
      // the start report is one pretty-printed JSON object, complete once it parses
      node.stdout.on('data', () => {
        let report: unknown;
        try {
          report = JSON.parse(stdout);
        } catch {
          return;
        }
        clearTimeout(timer);
        resolve(report as { rpc_url: string; plugins: Array<{ name: string; state: string; url?: string }> });
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new SmokeFailure(`the node exited with ${code} before starting:\n${stderr}`));
      });
    });
    const explorerState = started.plugins.find((p) => p.name === 'explorer');
    check(explorerState?.state === 'running' && /^http:\/\/0\.0\.0\.0:\d+$/.test(explorerState.url ?? ''), `the explorer runs, bound to 0.0.0.0: ${JSON.stringify(explorerState)}`);
    const explorer = `http://127.0.0.1:${new URL(explorerState!.url!).port}`;
    const rpc = new RpcClient(started.rpc_url);

    check((await getJson(`${started.rpc_url}/health`)).body.status === 'ok', 'RPC /health answers ok');
    // a fresh node with the defaults is healthy: what it leaves unset is a warning, not a fault
    for (const name of ['kyc', 'wallet']) {
      const url = started.plugins.find((p) => p.name === name && p.state === 'running')?.url;
      check(url !== undefined, `the ${name} plugin runs: ${JSON.stringify(started.plugins)}`);
      const health = await getJson(`${url}/v1/health`);
      check(health.status === 200 && health.body.status === 'ok', `${name} /v1/health answers ok right after the start: ${JSON.stringify(health.body)}`);
    }
    const { chain_id: chainId } = await rpc.chainInfo();
    const dev = await readKeyFile(join(dataDir, 'keys', 'dev.json'));
    const bob = generateAccountKey('testnet');

    const transfer = signAndEncode(chainId, buildTransfer({ senderPubkey: dev.publicKey, nonce: await rpc.getNonce(dev.address), to: bob.address, amount: 12_345n }), dev.seed);
    check((await rpc.sendTransaction(transfer.json)) === transfer.hash, 'the transfer is accepted under its hash');
    const sent = await waitForReceipt(rpc, transfer.hash, { timeoutMs: RECEIPT_TIMEOUT_MS });
    check(sent.status === 'success', `the transfer commits: ${sent.status}`);
    check((await rpc.getBalance(bob.address)) === 12_345n, 'the recipient holds the amount');

    const didCreate = signAndEncode(chainId, buildDidCreate({ senderPubkey: dev.publicKey, nonce: await rpc.getNonce(dev.address), service: [{ id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example/smoke' }] }), dev.seed);
    await rpc.sendTransaction(didCreate.json);
    check((await waitForReceipt(rpc, didCreate.hash, { timeoutMs: RECEIPT_TIMEOUT_MS })).status === 'success', 'the DID is created');
    const resolved = (await rpc.didResolve(dev.did)) as { id?: string; active?: boolean } | null;
    check(resolved?.id === dev.did && resolved.active === true, `ledger_didResolve: ${JSON.stringify(resolved)}`);
    const universal = await getJson(`${started.rpc_url}/1.0/identifiers/${dev.did}`, { headers: { accept: 'application/did+ld+json' } });
    // this media type asks for the bare DID document (docs/rpc.md, "DID resolver")
    check(universal.status === 200 && universal.body?.id === dev.did, `the DID resolver endpoint: ${universal.status} ${JSON.stringify(universal.body).slice(0, 300)}`);

    check((await getJson(`${explorer}/health`)).body.status === 'ok', 'explorer /health answers ok');
    // the explorer indexes committed blocks behind the chain: poll until it has the transfer
    let indexed: { status: number; body: any } | undefined;
    for (let i = 0; i < 200 && indexed?.status !== 200; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      indexed = await getJson(`${explorer}/api/v1/txs/${transfer.hash}`);
    }
    check(indexed?.status === 200 && indexed.body.hash === transfer.hash && indexed.body.recipient === bob.address, `the explorer indexes the transfer: ${JSON.stringify(indexed)}`);
    const blocks = await getJson(`${explorer}/api/v1/blocks`);
    check(blocks.status === 200 && blocks.body.total >= sent.block_height, `the explorer lists blocks: ${JSON.stringify(blocks.body.total)}`);

    node.kill('SIGTERM');
    check((await exited) === 0, `SIGTERM stops the node cleanly:\n${stderr}`);
    const warning = PROCESS_WARNING.exec(stderr);
    check(warning === null, `the node printed a process warning: ${warning?.[0]}`);
    check(ownWarnings.length === 0, `the smoke run got a process warning: ${ownWarnings.join('; ')}`);
  } finally {
    if (node.exitCode === null && node.signalCode === null) node.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}

const began = Date.now();
run().then(
  () => console.log(`node ${process.versions.node.split('.')[0]} smoke: ok (node ${process.version}, ${((Date.now() - began) / 1000).toFixed(1)} s)`),
  (err: unknown) => {
    console.error(`node ${process.versions.node.split('.')[0]} smoke: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
