import { readKeyFile, type AccountKey } from '../../node/config/keyfile.js';
import { prepareDevnet, type DevnetNode } from '../../node/devnet/layout.js';
import { freePortRange } from '../../node/devnet/ports.js';
import { RpcClient } from '../../node/client/index.js';
import { startNodeProcess, tempDataDir, type NodeProcess } from './harness.js';

export interface ClusterNode extends DevnetNode {
  proc: NodeProcess | undefined;
  client: RpcClient;
}

/**
 * N validator processes on this machine, laid out as `ledger devnet` does (one genesis, one data
 * dir, key and config per node, fixed ports so a restarted node is found again by its peers),
 * but started one by one so tests can kill and restart each.
 */
export class Cluster {
  private constructor(
    private readonly t: { teardown(fn: () => unknown): void },
    readonly nodes: ClusterNode[],
    readonly chainId: string,
    readonly dev: AccountKey,
  ) {}

  static async create(t: { teardown(fn: () => unknown): void }, n: number, o: { epochLength?: number } = {}): Promise<Cluster> {
    const layout = await prepareDevnet({ dir: await tempDataDir(t), validators: n, epochLength: o.epochLength, rpcPort: await freePortRange(n), p2pPort: await freePortRange(n), plugins: [] });
    const nodes = layout.nodes.map((x) => ({ ...x, proc: undefined, client: new RpcClient(x.rpcUrl) }));
    return new Cluster(t, nodes, layout.chainId, await readKeyFile(layout.devKeyFile));
  }

  /** Starts node i from its devnet data dir (its config holds its ports and bootstrap peers). */
  async start(i: number, env: NodeJS.ProcessEnv = {}): Promise<NodeProcess> {
    const node = this.nodes[i]!;
    node.proc = await startNodeProcess(this.t, node.dir, { rpcPort: node.rpcPort, p2pPort: node.p2pPort, env, logLevel: 'warn' });
    return node.proc;
  }

  async startAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => this.start(n.index)));
  }

  async kill9(i: number): Promise<void> {
    await this.nodes[i]!.proc?.kill9();
    this.nodes[i]!.proc = undefined;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.proc?.stop()));
    for (const n of this.nodes) n.proc = undefined;
  }

  async seq(i: number): Promise<number> {
    return (await this.nodes[i]!.client.canonHead())?.seq ?? 0;
  }

  /** Polls until `cond` holds; fails with `what` after `timeoutMs`. */
  async waitFor(cond: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      try {
        if (await cond()) return;
      } catch {
        // a node still starting refuses connections: try again
      }
      if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Waits until every node in `which` has committed at least `seq`. */
  waitForSeq(which: number[], seq: number, timeoutMs: number): Promise<void> {
    return this.waitFor(async () => (await Promise.all(which.map((i) => this.seq(i)))).every((s) => s >= seq), timeoutMs, `seq ${seq} on nodes ${which.join(', ')}`);
  }

  /** A Prometheus sample from node i's /metrics (undefined when absent). */
  async metric(i: number, name: string): Promise<number | undefined> {
    const res = await fetch(`http://127.0.0.1:${this.nodes[i]!.rpcPort}/metrics`);
    const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  }
}
