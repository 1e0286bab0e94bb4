import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCluster, type LocalNode } from '../../bench/lib/chaos/cluster.js';

export type ClusterNode = LocalNode;

/**
 * The bench's LocalCluster tied to a tap test: laid out in a temp dir, and every node killed and
 * the dir removed at teardown, in that order.
 */
export class Cluster extends LocalCluster {
  static async create(t: { teardown(fn: () => unknown): void }, n: number, o: { epochLength?: number } = {}): Promise<Cluster> {
    const dir = await mkdtemp(join(tmpdir(), 'ledger-e2e-'));
    const c = new Cluster(await LocalCluster.prepare({ dir, validators: n, epochLength: o.epochLength }));
    t.teardown(async () => {
      await c.destroy({ graceMs: 0 });
      await rm(dir, { recursive: true, force: true });
    });
    return c;
  }
}
