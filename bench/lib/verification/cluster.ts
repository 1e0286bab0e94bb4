import { join } from 'node:path';
import { packageRoot } from '../../../node/cli/package-root.js';
import { LocalCluster, type LocalClusterOptions } from '../chaos/cluster.js';
import { spawnNode, type NodeProcess } from '../chaos/node-process.js';

/**
 * The chaos harness's LocalCluster (one `ledger start` process per validator, no plugins), whose
 * nodes may also take flags for node itself, such as --cpu-prof (which NODE_OPTIONS refuses).
 */
export class BenchCluster extends LocalCluster {
  private nodeArgs: string[] = [];
  private static readonly LOG_LEVEL = 'warn';

  static async openWith(o: LocalClusterOptions & { nodeArgs?: string[] }): Promise<BenchCluster> {
    const c = new BenchCluster(await LocalCluster.prepare({ ...o, logLevel: BenchCluster.LOG_LEVEL }));
    c.nodeArgs = o.nodeArgs ?? [];
    return c;
  }

  /** Each node's process id (undefined while it is down). */
  pids(): number[] {
    return this.nodes.map((n) => n.proc?.proc.pid).filter((p): p is number => p !== undefined);
  }

  override async start(i: number, env: NodeJS.ProcessEnv = {}): Promise<NodeProcess> {
    if (this.nodeArgs.length === 0) return super.start(i, env);
    const node = this.nodes[i]!;
    if (node.proc?.alive()) throw new Error(`node ${i} is already running`);
    const proc = await spawnNode({
      bin: join(packageRoot(), 'bin', 'ledger.js'),
      dataDir: node.dir,
      rpcPort: node.rpcPort,
      p2pPort: node.p2pPort,
      logFile: node.log,
      env,
      logLevel: BenchCluster.LOG_LEVEL,
      nodeArgs: this.nodeArgs,
    });
    node.proc = proc;
    void proc.exited.then(() => {
      if (node.proc === proc) node.proc = undefined;
    });
    return proc;
  }
}
