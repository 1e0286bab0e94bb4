import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RpcClient } from '../../node/client/index.js';
import { serviceKeyPath, serviceKeySecretPath } from '../../node/config/datadir.js';
import { openServiceKeyFile } from '../../node/config/service-key-file.js';
import { readSecretFile } from '../../node/config/service-key-secret.js';
import { prepareDevnet } from '../../node/devnet/layout.js';
import { freePortRange } from '../../node/devnet/ports.js';
import { LEDGER_BIN, runCli, tempDataDir } from '../e2e/harness.js';

/**
 * `ledger devnet` as a real process (the built bin: `npm test` builds first), on free ports in a
 * temp dir. Ctrl-C is sent as a terminal sends it: SIGINT to the whole process group.
 */

type Line = Record<string, unknown>;

class Devnet {
  readonly lines: Line[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private waiters: Array<() => void> = [];

  private constructor(readonly proc: ChildProcess) {
    this.exited = new Promise((r) => proc.on('exit', (code) => r(code)));
    let buf = '';
    proc.stdout!.on('data', (d) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        this.lines.push(JSON.parse(buf.slice(0, i)) as Line);
        buf = buf.slice(i + 1);
      }
      this.wake();
    });
    proc.stderr!.on('data', (d) => {
      this.stderr += d;
      this.wake();
    });
    proc.on('exit', () => this.wake());
  }

  static async start(t: { teardown(fn: () => unknown): void }, dir: string, validators: number, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Devnet> {
    const args = ['devnet', '--validators', String(validators), '--dir', dir, '--rpc-port', String(await freePortRange(validators)), '--p2p-port', String(await freePortRange(validators)), '--plugins', 'none', '--json', ...extra];
    // detached: a process group of its own, as a shell job has, so that Ctrl-C can go to the group
    const d = new Devnet(spawn(process.execPath, [LEDGER_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '', ...env }, detached: true }));
    t.teardown(() => {
      for (const pid of [d.proc.pid!, ...d.pids]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    await d.until(() => d.lines.some((l) => l.ready === true), 45_000, 'the ready line');
    return d;
  }

  get nodes(): Line[] {
    return this.lines.filter((l) => typeof l.index === 'number');
  }

  get pids(): number[] {
    return this.nodes.map((n) => n.pid as number);
  }

  get ready(): Line {
    return this.lines.find((l) => l.ready === true)!;
  }

  clients(): RpcClient[] {
    return this.nodes.map((n) => new RpcClient(n.rpc_url as string));
  }

  /** Ctrl-C in a terminal: SIGINT to every process in the foreground group */
  ctrlC(): void {
    process.kill(-this.proc.pid!, 'SIGINT');
  }

  async until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!cond()) {
      if (this.proc.exitCode !== null && !cond()) throw new Error(`devnet exited (${this.proc.exitCode}) before ${what}:\n${this.stderr}`);
      if (Date.now() > end) throw new Error(`no ${what} in ${timeoutMs} ms:\n${this.stderr}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

async function seqs(clients: RpcClient[]): Promise<number[]> {
  return Promise.all(clients.map(async (c) => (await c.canonHead())?.seq ?? 0));
}

async function waitForSeqs(clients: RpcClient[], atLeast: number[], timeoutMs: number): Promise<number[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await seqs(clients);
    if (s.every((x, i) => x >= atLeast[i]!)) return s;
    if (Date.now() > end) throw new Error(`seq ${JSON.stringify(s)} did not reach ${JSON.stringify(atLeast)} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const lastLog = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n').at(-1) ?? '';

t.test('one validator: layout, JSON lines, commits, Ctrl-C stops it cleanly, a second run resumes', async (t) => {
  const dir = join(await tempDataDir(t), 'net');
  // settings in the environment would override every node's config.json: the nodes must not see them
  const first = await Devnet.start(t, dir, 1, [], { LEDGER_RPC_PORT: '1', LEDGER_P2P_PORT: '1', LEDGER_PLUGINS: 'all' });
  const [node] = first.nodes;
  t.match(node, { index: 0, address: String, rpc_url: /^http:\/\/127\.0\.0\.1:\d+$/, p2p: /^\/ip4\/127\.0\.0\.1\/tcp\/\d+$/, log: join(dir, 'node-0', 'node.log'), pid: Number });
  t.match(first.ready, { ready: true, validators: 1, reused: false, dev_key: join(dir, 'genesis', 'keys', 'dev.json'), dir });
  t.equal(statSync(first.ready.dev_key as string).mode & 0o777, 0o600, 'dev key 0600');
  t.equal(statSync(join(dir, 'node-0', 'keys', 'validator.json')).mode & 0o777, 0o600, 'validator key 0600');
  const config = JSON.parse(readFileSync(join(dir, 'node-0', 'config.json'), 'utf8'));
  t.same(config.p2p.bootstrap, [], 'no peers to bootstrap from');
  t.equal(config.plugins.explorer.enabled, false, '--plugins none');

  const clients = first.clients();
  const [seq] = await waitForSeqs(clients, [2], 20_000);
  first.ctrlC();
  t.equal(await first.exited, 0, 'Ctrl-C: exit 0');
  t.notOk(alive(node!.pid as number), 'the node process is gone');
  t.match(lastLog(node!.log as string), /"msg":"stopped"/, 'the node shut down cleanly (it got one signal, not two)');

  const second = await Devnet.start(t, dir, 1);
  t.equal(second.ready.reused, true, 'same size: the devnet is reused');
  t.equal(second.nodes[0]!.address, node!.address, 'same validator');
  const [resumed] = await seqs(second.clients());
  t.ok(resumed! >= seq!, `the chain resumed at seq ${resumed} (was ${seq})`);

  process.kill(second.pids[0]!, 'SIGKILL');
  t.equal(await second.exited, 1, 'every node died: exit 1');
  t.match(second.stderr, /node 0 exited \(SIGKILL\); last lines of .*node-0\/node\.log:\n.*"msg":"node started"/s, 'the death is reported with the end of the log');
});

t.test('--exit-on-failure: one node dies, every node is stopped, exit 1', async (t) => {
  const dir = join(await tempDataDir(t), 'net');
  const net = await Devnet.start(t, dir, 2, ['--exit-on-failure']);
  process.kill(net.pids[1]!, 'SIGKILL');
  t.equal(await net.exited, 1);
  t.match(net.stderr, /node 1 exited \(SIGKILL\)/);
  t.match(net.stderr, /stopping every node \(a node failed/);
  t.same(net.pids.filter(alive), [], 'no node left');
  t.match(lastLog(join(dir, 'node-0', 'node.log')), /"msg":"stopped"/, 'node 0 stopped cleanly');
});

t.test('a dir that holds something else than a devnet is refused, and left alone', async (t) => {
  const dir = await tempDataDir(t);
  writeFileSync(join(dir, 'notes.txt'), 'mine');
  const r = await runCli(['devnet', '--validators', '1', '--dir', dir, '--plugins', 'none']);
  t.equal(r.code, 1);
  t.match(r.stderr, /is not empty and is not a devnet \(it holds notes\.txt\)/);
  t.ok(existsSync(join(dir, 'notes.txt')));
  t.notOk(existsSync(join(dir, 'genesis')), 'nothing written');
});

t.test('a reused devnet lays out again a node dir deleted by hand', async (t) => {
  const dir = join(await tempDataDir(t), 'net');
  const o = { dir, validators: 2, rpcPort: 9100, p2pPort: 9200, plugins: [] };
  const first = await prepareDevnet(o);
  const key = readFileSync(join(dir, 'node-1', 'keys', 'validator.json'), 'utf8');
  rmSync(join(dir, 'node-1'), { recursive: true });
  const again = await prepareDevnet(o);
  t.equal(again.reused, true);
  t.equal(readFileSync(join(dir, 'node-1', 'keys', 'validator.json'), 'utf8'), key, 'validator 1 key again');
  t.equal(statSync(join(dir, 'node-1', 'keys', 'validator.json')).mode & 0o777, 0o600);
  t.equal(readFileSync(join(dir, 'node-1', 'genesis.json'), 'utf8'), readFileSync(join(dir, 'genesis', 'genesis.json'), 'utf8'), 'the shared genesis');
  t.same(again.nodes.map((n) => n.address), first.nodes.map((n) => n.address));
});

t.test("every node gets the devnet's one service-key secret: a service key file from genesis/ opens in any node", async (t) => {
  const dir = join(await tempDataDir(t), 'net');
  const o = { dir, validators: 2, rpcPort: 9100, p2pPort: 9200, plugins: [] };
  const layout = await prepareDevnet(o);
  const secret = readFileSync(serviceKeySecretPath(join(dir, 'genesis')), 'utf8');
  for (const n of layout.nodes) {
    t.equal(readFileSync(serviceKeySecretPath(n.dir), 'utf8'), secret, `node ${n.index}: the genesis dir's secret`);
    t.equal(statSync(serviceKeySecretPath(n.dir)).mode & 0o777, 0o600);
    t.equal(statSync(join(n.dir, 'secrets')).mode & 0o777, 0o700);
    const opened = await openServiceKeyFile(serviceKeyPath(join(dir, 'genesis'), 'kyc'), 'kyc', await readSecretFile(serviceKeySecretPath(n.dir), 'data-dir'));
    t.ok(opened.sealed, `node ${n.index}: the KYC service key from genesis/ opens under it`);
  }
  writeFileSync(serviceKeySecretPath(layout.nodes[1]!.dir), 'a-secret-node-one-already-had\n', { mode: 0o600 });
  await prepareDevnet(o);
  t.equal(readFileSync(serviceKeySecretPath(layout.nodes[1]!.dir), 'utf8'), 'a-secret-node-one-already-had\n', 'a reused node keeps its own, which its plugins sealed under');
});

t.test('four validators commit on every node, survive one dead node, and Ctrl-C stops them all', async (t) => {
  const dir = join(await tempDataDir(t), 'net');
  const net = await Devnet.start(t, dir, 4);
  t.equal(net.nodes.length, 4);
  const ports = net.nodes.map((n) => Number(new URL(n.rpc_url as string).port));
  t.same(ports, ports.map((_, i) => ports[0]! + i), 'RPC ports base + i');
  for (const n of net.nodes) {
    const cfg = JSON.parse(readFileSync(join(n.dir as string, 'config.json'), 'utf8'));
    t.same(cfg.p2p.bootstrap, net.nodes.filter((x) => x !== n).map((x) => x.p2p), `node ${n.index} bootstraps from the other three`);
  }
  const clients = net.clients();
  const before = await waitForSeqs(clients, [3, 3, 3, 3], 40_000);
  t.pass(`every node committed: seq ${before.join(', ')}`);

  process.kill(net.pids[3]!, 'SIGKILL');
  await net.until(() => /node 3 exited/.test(net.stderr), 10_000, 'the report of node 3');
  const three = clients.slice(0, 3);
  const now = await seqs(three);
  await waitForSeqs(three, now.map((s) => s + 2), 30_000);
  t.pass('three of four keep committing');
  t.equal(net.proc.exitCode, null, 'the devnet keeps running without --exit-on-failure');

  net.ctrlC();
  t.equal(await net.exited, 0, 'Ctrl-C: exit 0');
  t.same(net.pids.filter(alive), [], 'no node process left');
  for (const n of net.nodes.slice(0, 3)) t.match(lastLog(n.log as string), /"msg":"stopped"/, `node ${n.index} stopped cleanly`);
});
