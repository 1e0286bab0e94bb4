/**
 * bench/wallet: the wallet plugin on a real one-validator node process (`ledger init`, then
 * `ledger start --plugins wallet`, data in a temp dir, free ports), driven over HTTP exactly as a
 * wallet app would:
 *   1. onboarding: N users each sign a DidCreate on the device and register with it; the
 *      wallet's sponsor funds the account and submits the DidCreate; each user polls
 *      GET /v1/users/me until its DID is `active`;
 *   2. load: C of them for S seconds, each in a loop: prepare a send to another user, sign the
 *      signing bytes locally, relay the signed transaction, and poll `ledger_getReceipt` until it
 *      is committed (prepare answers the committed nonce, so a user's next send must wait).
 *
 * Reported: round trips per second (completed iterations / wall seconds), the latency of
 * prepare → sign → send and of send → committed receipt (p50, p90, p99, max), the onboarding
 * latency (register → active), errors by code, the node's and the bench's CPU, the machine and
 * its load.
 *
 *   npm run bench:wallet -- [--users 20] [--concurrency 10] [--duration 30] [--poll-ms 25]
 *   npm run bench:wallet -- --profile /tmp/wallet-prof   (V8 CPU profile of the node, summarized)
 *
 * Prints tables and writes bench/results/wallet.json. Figures are reported, never asserted.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RpcClient, type Receipt } from '../node/client/index.js';
import { freePortRange } from '../node/devnet/ports.js';
import { spawnNode, type NodeProcess } from './lib/chaos/node-process.js';
import { printProfiles } from './lib/cpuprofile.js';
import { cpuBetween, procSample } from './lib/relay/proc-stats.js';
import { latencySummary, machine, pool } from './lib/stats.js';
import { WalletApiError, WalletUser } from './lib/wallet/client.js';

const { values } = parseArgs({ options: { users: { type: 'string', default: '20' }, concurrency: { type: 'string', default: '10' }, duration: { type: 'string', default: '30' }, 'poll-ms': { type: 'string', default: '25' }, profile: { type: 'string' } } });
const profileDir = values.profile === undefined ? undefined : resolve(values.profile);
const USERS = Number(values.users);
const CONCURRENCY = Number(values.concurrency);
const DURATION_S = Number(values.duration);
const POLL_MS = Number(values['poll-ms']);
for (const [name, v] of Object.entries({ users: USERS, concurrency: CONCURRENCY, duration: DURATION_S, 'poll-ms': POLL_MS })) {
  if (!Number.isInteger(v) || v < 1) {
    console.error(`--${name} must be a positive integer`);
    process.exit(2);
  }
}
// a user sends one transaction at a time (the next nonce is the committed one), and to someone else
if (USERS < 2 || CONCURRENCY > USERS) {
  console.error('--users must be at least 2 and at least --concurrency (each concurrent sender is its own user)');
  process.exit(2);
}

/** smallest units: 1 LGR per user covers thousands of 1000-unit sends and their fees */
const FUND_AMOUNT = 100_000_000;
const SEND_AMOUNT = 1000;
const ACTIVE_TIMEOUT_MS = 60_000;
const RECEIPT_TIMEOUT_MS = 30_000;

const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const bin = join(root, 'bin', 'ledger.js');
const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-wallet-'));
let node: NodeProcess | undefined;
let cleaned: Promise<void> | undefined;
const cleanup = (): Promise<void> =>
  (cleaned ??= (async () => {
    await node?.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  })());
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup().finally(() => process.exit(130)));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const errors = { onboarding: new Map<string, number>(), load: new Map<string, number>() };
/** counts `err` under its code; the first of each code is printed in full */
function countError(phase: keyof typeof errors, err: unknown): void {
  const e = err as { code?: unknown; name?: string; message?: string };
  const code = err instanceof WalletApiError ? err.code : typeof e.code === 'string' ? e.code : typeof e.code === 'number' ? `RPC ${e.code}` : (e.name ?? 'Error');
  const seen = errors[phase].get(code) ?? 0;
  if (seen === 0) console.error(`${phase}: ${code}: ${e.message ?? String(err)}`);
  errors[phase].set(code, seen + 1);
}

async function waitForHealth(base: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the wallet at ${base} did not answer /health within 15 s`);
    await sleep(100);
  }
}

async function receiptOf(rpc: RpcClient, hash: string): Promise<{ receipt: Receipt; polls: number }> {
  const deadline = performance.now() + RECEIPT_TIMEOUT_MS;
  for (let polls = 1; ; polls++) {
    const receipt = await rpc.getReceipt(hash);
    if (receipt) return { receipt, polls };
    if (performance.now() > deadline) throw Object.assign(new Error(`no receipt for ${hash} within ${RECEIPT_TIMEOUT_MS} ms`), { code: 'RECEIPT_TIMEOUT' });
    await sleep(POLL_MS);
  }
}

/** registers (waiting out a 429 as an app would); performance.now() when the accepted request was sent */
async function register(user: WalletUser, chainId: string): Promise<number> {
  for (;;) {
    const t0 = performance.now();
    try {
      await user.register(chainId);
      return t0;
    } catch (err) {
      if (!(err instanceof WalletApiError && err.status === 429)) throw err;
      countError('onboarding', err);
      await sleep((err.retryAfterS ?? 5) * 1000);
    }
  }
}

/** polls GET /v1/users/me until the DID is active; ms from `t0` */
async function untilActive(user: WalletUser, t0: number): Promise<number> {
  for (;;) {
    const me = await user.me();
    if (me.didStatus === 'active') return performance.now() - t0;
    if (me.didStatus === 'failed' || me.didStatus === 'missing') throw Object.assign(new Error(`DID ${me.didStatus}: ${me.didStatusReason}`), { code: `DID_${me.didStatus.toUpperCase()}` });
    if (performance.now() - t0 > ACTIVE_TIMEOUT_MS) throw Object.assign(new Error(`not active after ${ACTIVE_TIMEOUT_MS} ms (${me.didStatus}: ${me.didStatusReason})`), { code: 'ACTIVE_TIMEOUT' });
    await sleep(POLL_MS);
  }
}

const ms = (v: number) => Math.round(v * 10) / 10;
try {
  const rpcPort = await freePortRange(3);
  const [p2pPort, walletPort] = [rpcPort + 1, rpcPort + 2];
  execFileSync(process.execPath, [bin, 'init', '--data-dir', dir], { stdio: 'ignore' });
  await writeFile(join(dir, 'config.json'), JSON.stringify({ plugins: { wallet: { enabled: true, sponsor: { perHour: 100_000, fundAmount: FUND_AMOUNT } } } }));
  node = await spawnNode({ bin, dataDir: dir, rpcPort, p2pPort, logFile: join(dir, 'node.log'), plugins: 'wallet', args: ['--wallet-port', String(walletPort)], nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });
  const base = `http://127.0.0.1:${walletPort}`;
  await waitForHealth(base);
  const rpc = new RpcClient(node.url);
  const { chain_id: chainId } = await rpc.chainInfo();

  // 1. onboarding: C registrations at a time
  const loadBefore = loadavg();
  const users = Array.from({ length: USERS }, () => new WalletUser(base));
  const onboarding: number[] = [];
  const active: WalletUser[] = [];
  const polls: Promise<void>[] = [];
  const onboardStart = performance.now();
  // the pool paces the registrations only; each user's wait for `active` runs beside it
  await pool(users, CONCURRENCY, async (user) => {
    try {
      const t0 = await register(user, chainId);
      polls.push(
        untilActive(user, t0).then(
          (t) => {
            onboarding.push(t);
            active.push(user);
          },
          (err: unknown) => countError('onboarding', err),
        ),
      );
    } catch (err) {
      countError('onboarding', err);
    }
  });
  await Promise.all(polls);
  const onboardWallS = (performance.now() - onboardStart) / 1000;
  if (active.length < Math.max(2, CONCURRENCY)) throw new Error(`only ${active.length} of ${USERS} users became active; the load needs ${Math.max(2, CONCURRENCY)}`);

  // 2. load: C senders, each to the next active users in turn
  const samples = { prepare: [] as number[], sign: [] as number[], send: [] as number[], roundTrip: [] as number[], toReceipt: [] as number[], total: [] as number[] };
  let receiptPolls = 0;
  const heights = new Map<number, number>();
  const nodeCpuBefore = procSample(node.proc.pid!);
  const benchCpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + DURATION_S * 1000;
  await Promise.all(
    active.slice(0, CONCURRENCY).map(async (user, i) => {
      for (let k = 0; performance.now() < deadline; k++) {
        const to = active[(i + 1 + (k % (active.length - 1))) % active.length]!; // never itself
        try {
          const t0 = performance.now();
          const prepared = await user.prepareSend(to.address, SEND_AMOUNT);
          const t1 = performance.now();
          const signed = user.signPrepared(prepared);
          const t2 = performance.now();
          const hash = await user.send(signed);
          const t3 = performance.now();
          const { receipt, polls: n } = await receiptOf(rpc, hash);
          const t4 = performance.now();
          if (receipt.status !== 'success') throw Object.assign(new Error(`${hash} committed and failed: ${receipt.status}`), { code: 'TX_FAILED' });
          samples.prepare.push(t1 - t0);
          samples.sign.push(t2 - t1);
          samples.send.push(t3 - t2);
          samples.roundTrip.push(t3 - t0);
          samples.toReceipt.push(t4 - t3);
          samples.total.push(t4 - t0);
          receiptPolls += n;
          heights.set(receipt.block_height, (heights.get(receipt.block_height) ?? 0) + 1);
        } catch (err) {
          countError('load', err);
          await sleep(100); // no hot loop on a persistent error
        }
      }
    }),
  );
  const wallMs = performance.now() - started;
  const nodeCpu = cpuBetween(nodeCpuBefore, procSample(node.proc.pid!), wallMs);
  const benchUsage = process.cpuUsage(benchCpuBefore);
  const benchCpu = { cpu_ms: Math.round((benchUsage.user + benchUsage.system) / 1000), cores_busy: Math.round(((benchUsage.user + benchUsage.system) / 1000 / wallMs) * 100) / 100 };
  const completed = samples.total.length;
  const summary = (v: number[]) => latencySummary(v);
  const precise = (v: number[]) => {
    const s = latencySummary(v.map((x) => x * 10));
    return { p50: s.p50 / 10, p90: s.p90 / 10, p99: s.p99 / 10, max: s.max / 10 };
  };
  const result = {
    bench: 'wallet',
    at: new Date().toISOString(),
    machine: machine(),
    load_before: loadBefore,
    load_after: loadavg(),
    users: USERS,
    concurrency: CONCURRENCY,
    duration_s: DURATION_S,
    receipt_poll_ms: POLL_MS,
    send_amount_units: SEND_AMOUNT,
    sponsor_fund_amount_units: FUND_AMOUNT,
    onboarding: { active: active.length, wall_s: ms(onboardWallS), register_to_active_ms: summary(onboarding), errors: Object.fromEntries(errors.onboarding) },
    completed,
    load_errors: Object.fromEntries(errors.load),
    wall_s: ms(wallMs / 1000),
    round_trips_per_s: Math.round((completed / (wallMs / 1000)) * 100) / 100,
    prepare_ms: precise(samples.prepare),
    sign_ms: precise(samples.sign),
    send_ms: precise(samples.send),
    prepare_to_send_ms: precise(samples.roundTrip),
    send_to_receipt_ms: summary(samples.toReceipt),
    total_ms: summary(samples.total),
    receipt_polls_per_tx: completed === 0 ? null : ms(receiptPolls / completed),
    blocks: heights.size,
    txs_per_block: heights.size === 0 ? null : ms(completed / heights.size),
    node_cpu: nodeCpu,
    bench_cpu: benchCpu,
  };
  console.table([{ users: active.length, concurrency: CONCURRENCY, 'round trips': completed, errors: [...errors.load.values()].reduce((a, b) => a + b, 0), 'wall s': result.wall_s, 'round trips/s': result.round_trips_per_s, blocks: result.blocks, 'txs/block': result.txs_per_block }]);
  console.table({
    'register → active': result.onboarding.register_to_active_ms,
    prepare: result.prepare_ms,
    'sign (local)': result.sign_ms,
    send: result.send_ms,
    'prepare → send': result.prepare_to_send_ms,
    'send → receipt': result.send_to_receipt_ms,
    total: result.total_ms,
  });
  if (errors.onboarding.size + errors.load.size > 0) console.table({ onboarding: result.onboarding.errors, load: result.load_errors });
  console.log(`node cpu ${JSON.stringify(nodeCpu)}; bench cpu ${JSON.stringify(benchCpu)}; load ${result.load_before.map((l) => l.toFixed(2)).join(' ')} → ${result.load_after.map((l) => l.toFixed(2)).join(' ')} (${result.machine.cpus} cpus)`);
  // a profiled node is slower: its figures do not replace the recorded ones
  if (profileDir) console.log('profiled run: bench/results/wallet.json is left as it was');
  else {
    await mkdir(join(root, 'bench', 'results'), { recursive: true });
    await writeFile(join(root, 'bench', 'results', 'wallet.json'), JSON.stringify(result, null, 2) + '\n');
  }
} finally {
  await cleanup();
}
if (profileDir) {
  // the whole run, onboarding included: the load dominates it
  await printProfiles(profileDir);
}
