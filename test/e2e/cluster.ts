import { copyFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { initDataDir } from '../../node/cli/commands/init.js';
import { dataPaths, validatorKeyPath } from '../../node/config/datadir.js';
import { readKeyFile, type AccountKey } from '../../node/config/keyfile.js';
import { RpcClient } from '../../node/client/index.js';
import { startNodeProcess, tempDataDir, type NodeProcess } from './harness.js';

/** A free TCP port on 127.0.0.1 (bound and released; good enough for tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ClusterNode {
  index: number;
  dir: string;
  rpcPort: number;
  p2pPort: number;
  address: string;
  proc: NodeProcess | undefined;
  client: RpcClient;
}

/**
 * N validator processes on this machine: one genesis, one data dir and key per node, fixed ports
 * (so a restarted node is found again by its peers), each bootstrapping from all the others.
 */
export class Cluster {
  private constructor(
    private readonly t: { teardown(fn: () => unknown): void },
    readonly nodes: ClusterNode[],
    readonly chainId: string,
    readonly dev: AccountKey,
  ) {}

  static async create(t: { teardown(fn: () => unknown): void }, n: number): Promise<Cluster> {
    const root = await tempDataDir(t);
    const template = join(root, 'template');
    const summary = await initDataDir({ dataDir: template, validators: n });
    const nodes: ClusterNode[] = [];
    for (let i = 0; i < n; i++) {
      const dir = join(root, `node-${i}`);
      await mkdir(dataPaths(dir).keysDir, { recursive: true, mode: 0o700 });
      await copyFile(dataPaths(template).genesis, dataPaths(dir).genesis);
      await copyFile(validatorKeyPath(template, i), dataPaths(dir).validatorKey);
      const rpcPort = await freePort();
      nodes.push({ index: i, dir, rpcPort, p2pPort: await freePort(), address: summary.validators[i]!.address, proc: undefined, client: new RpcClient(`http://127.0.0.1:${rpcPort}`) });
    }
    return new Cluster(t, nodes, summary.chain_id, await readKeyFile(dataPaths(template).devKey));
  }

  async start(i: number, env: NodeJS.ProcessEnv = {}): Promise<NodeProcess> {
    const node = this.nodes[i]!;
    const bootstrap = this.nodes.filter((x) => x !== node).map((x) => `/ip4/127.0.0.1/tcp/${x.p2pPort}`);
    node.proc = await startNodeProcess(this.t, node.dir, { rpcPort: node.rpcPort, p2pPort: node.p2pPort, bootstrap, env, logLevel: 'warn' });
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
