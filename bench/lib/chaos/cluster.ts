import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcClient } from '../../../node/client/index.js';
import { packageRoot } from '../../../node/cli/package-root.js';
import { dataPaths } from '../../../node/config/datadir.js';
import { readKeyFile, type AccountKey } from '../../../node/config/keyfile.js';
import { prepareDevnet, type DevnetNode } from '../../../node/devnet/layout.js';
import { freePortRange } from '../../../node/devnet/ports.js';
import { parsePrometheus, type Samples } from '../prometheus.js';
import { tailLines } from '../../../node/devnet/run.js';
import { spawnNode, type NodeProcess } from './node-process.js';

export interface LocalNode extends DevnetNode {
  /** the running process; undefined while the node is down */
  proc: NodeProcess | undefined;
  client: RpcClient;
}

export interface LocalClusterOptions {
  validators: number;
  /** an empty dir to lay the devnet out in; default a fresh temp dir, which destroy() removes */
  dir?: string;
  epochLength?: number;
  /** the nodes' log level (default warn) */
  logLevel?: string;
  /** per request, for every node's client (default 10 s: a dead node must not hold a check for 30 s) */
  rpcTimeoutMs?: number;
}

interface Prepared {
  dir: string;
  ownsDir: boolean;
  nodes: LocalNode[];
  chainId: string;
  dev: AccountKey;
  logLevel: string;
}

/**
 * N validator processes on this machine, laid out as `ledger devnet` does (one genesis; per node a
 * data dir with its key and a config naming fixed ports and the others as bootstrap peers, so a
 * restarted node is found again), but each started, killed and restarted on its own. Each node's
 * output is appended to node.log in its data dir, one marker line per start.
 */
export class LocalCluster {
  readonly dir: string;
  readonly nodes: LocalNode[];
  readonly chainId: string;
  /** the devnet's funded developer account */
  readonly dev: AccountKey;
  private readonly ownsDir: boolean;
  private readonly logLevel: string;
  private readonly bin = join(packageRoot(), 'bin', 'ledger.js');
  /** the plugins enablePlugin turned on, by node */
  private readonly plugins = new Map<number, string[]>();
  private static readonly opened = new Set<LocalCluster>();
  // Should the driver die without destroy() (an uncaught error, process.exit), take the nodes along.
  private readonly onExit = () => this.kill();

  protected constructor(p: Prepared) {
    this.dir = p.dir;
    this.ownsDir = p.ownsDir;
    this.nodes = p.nodes;
    this.chainId = p.chainId;
    this.dev = p.dev;
    this.logLevel = p.logLevel;
    process.once('exit', this.onExit);
    LocalCluster.opened.add(this);
  }

  /** Every node of every cluster of this process killed, and gone (a Ctrl-C handler's first step). */
  static async killAll(): Promise<void> {
    const procs = [...LocalCluster.opened].flatMap((c) => c.nodes.map((n) => n.proc).filter((p) => p !== undefined));
    for (const p of procs) if (p.alive()) p.proc.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
  }

  static async open(o: LocalClusterOptions): Promise<LocalCluster> {
    return new LocalCluster(await LocalCluster.prepare(o));
  }

  protected static async prepare(o: LocalClusterOptions): Promise<Prepared> {
    const dir = o.dir ?? (await mkdtemp(join(tmpdir(), 'ledger-chaos-')));
    const n = o.validators;
    const layout = await prepareDevnet({ dir, validators: n, epochLength: o.epochLength, rpcPort: await freePortRange(n), p2pPort: await freePortRange(n), plugins: [], reset: true });
    const nodes = layout.nodes.map((x) => ({ ...x, proc: undefined, client: new RpcClient(x.rpcUrl, { timeoutMs: o.rpcTimeoutMs ?? 10_000 }) }));
    return { dir: layout.dir, ownsDir: o.dir === undefined, nodes, chainId: layout.chainId, dev: await readKeyFile(layout.devKeyFile), logLevel: o.logLevel ?? 'warn' };
  }

  /** Starts node i from its data dir; resolves once it serves RPC (NodeStartError if it exits first). */
  async start(i: number, env: NodeJS.ProcessEnv = {}): Promise<NodeProcess> {
    const node = this.nodes[i]!;
    if (node.proc?.alive()) throw new Error(`node ${i} is already running`);
    node.proc = undefined;
    const plugins = this.plugins.get(i);
    // a node with plugins gets room to load them on a busy machine
    const withPlugins = plugins ? { plugins: plugins.join(','), readyTimeoutMs: 120_000 } : {};
    const proc = await spawnNode({ bin: this.bin, dataDir: node.dir, rpcPort: node.rpcPort, p2pPort: node.p2pPort, logFile: node.log, env, logLevel: this.logLevel, ...withPlugins });
    node.proc = proc;
    // A node that dies on its own (a crash hook, a fatal error) counts as down from then on.
    void proc.exited.then(() => {
      if (node.proc === proc) node.proc = undefined;
    });
    return proc;
  }

  /**
   * Turns plugin `name` on in node i's config, with `section` and a free port, for the node's
   * next start; the plugin's URL.
   */
  async enablePlugin(i: number, name: string, section: Record<string, unknown> = {}): Promise<string> {
    const port = await freePortRange(1);
    const file = dataPaths(this.nodes[i]!.dir).config;
    const config = JSON.parse(await readFile(file, 'utf8')) as { plugins: Record<string, Record<string, unknown>> };
    config.plugins[name] = { ...config.plugins[name], ...section, enabled: true, host: '127.0.0.1', port };
    await writeFile(file, JSON.stringify(config, null, 2));
    this.plugins.set(i, [...(this.plugins.get(i) ?? []), name]);
    return `http://127.0.0.1:${port}`;
  }

  async startAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => this.start(n.index)));
  }

  async kill9(i: number): Promise<void> {
    const proc = this.nodes[i]!.proc;
    this.nodes[i]!.proc = undefined;
    await proc?.kill9();
  }

  async stopAll(graceMs?: number): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.proc?.stop(graceMs)));
    for (const n of this.nodes) n.proc = undefined;
  }

  /** SIGKILL to every node still running, at once (for teardown and exit paths). */
  kill(): void {
    for (const n of this.nodes) if (n.proc?.alive()) n.proc.proc.kill('SIGKILL');
  }

  /** Stops every node (SIGKILL after `graceMs`) and removes the dir if this cluster made it. */
  async destroy(o: { keepDir?: boolean; graceMs?: number } = {}): Promise<void> {
    await this.stopAll(o.graceMs ?? 5_000);
    process.off('exit', this.onExit);
    LocalCluster.opened.delete(this);
    if (this.ownsDir && !o.keepDir) await rm(this.dir, { recursive: true, force: true });
  }

  isUp(i: number): boolean {
    return this.nodes[i]!.proc?.alive() ?? false;
  }

  /** indexes of the nodes running now */
  up(): number[] {
    return this.nodes.filter((n) => this.isUp(n.index)).map((n) => n.index);
  }

  async seq(i: number): Promise<number> {
    return (await this.nodes[i]!.client.canonHead())?.seq ?? 0;
  }

  /** Polls until `cond` holds; fails with `what` after `timeoutMs`. */
  async waitFor(cond: () => Promise<boolean>, timeoutMs: number, what: string, pollMs = 200): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      try {
        if (await cond()) return;
      } catch {
        // a node still starting refuses connections: try again
      }
      if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /** Waits until every node in `which` has committed at least `seq`. */
  waitForSeq(which: number[], seq: number, timeoutMs: number): Promise<void> {
    return this.waitFor(async () => (await Promise.all(which.map((i) => this.seq(i)))).every((s) => s >= seq), timeoutMs, `seq ${seq} on nodes ${which.join(', ')}`);
  }

  /** Node i's /metrics. */
  async metrics(i: number): Promise<Samples> {
    const res = await fetch(`http://127.0.0.1:${this.nodes[i]!.rpcPort}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return parsePrometheus(await res.text());
  }

  /** A Prometheus sample from node i's /metrics (undefined when absent). */
  async metric(i: number, name: string): Promise<number | undefined> {
    return (await this.metrics(i)).get(name);
  }

  /** The last `lines` lines of node i's log file. */
  logTail(i: number, lines = 30): string {
    return tailLines(this.nodes[i]!.log, lines);
  }
}
