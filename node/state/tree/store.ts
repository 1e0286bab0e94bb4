/**
 * Node sources for the state tree. The tree itself never writes: an update returns its new nodes
 * (hex hash -> encoded node) and the caller persists them in its own atomic batch.
 */
import { toHex } from '../../protocol/bytes.js';
import type { TreeNodeReader } from './node.js';

/** New nodes produced by an update, keyed by the lowercase hex of their hash. */
export type TreeNodes = ReadonlyMap<string, Uint8Array>;

/** A Map-backed node store, for tests and tools. */
export class MemoryNodeStore implements TreeNodeReader {
  private readonly nodes = new Map<string, Uint8Array>();

  async getNode(hash: Uint8Array): Promise<Uint8Array | undefined> {
    return this.nodes.get(toHex(hash));
  }

  peekNode(hash: Uint8Array, key = toHex(hash)): Uint8Array | undefined {
    return this.nodes.get(key);
  }

  put(nodes: TreeNodes): void {
    for (const [hash, encoded] of nodes) this.nodes.set(hash, encoded);
  }

  get size(): number {
    return this.nodes.size;
  }
}

/**
 * Reads `nodes` first, then `base`. Lets a speculative block read the nodes of its uncommitted
 * parents: overlayReader(overlayReader(committed, parentNodes), grandchildNodes) and so on.
 */
export function overlayReader(base: TreeNodeReader, nodes: TreeNodes): TreeNodeReader {
  return {
    async getNode(hash: Uint8Array): Promise<Uint8Array | undefined> {
      return nodes.get(toHex(hash)) ?? base.getNode(hash);
    },
    peekNode(hash: Uint8Array, key = toHex(hash)): Uint8Array | undefined {
      return nodes.get(key) ?? base.peekNode?.(hash, key);
    },
  };
}

/**
 * Keeps recently used nodes in memory in front of a slower reader (LevelDB). Nodes are immutable
 * and content-addressed, so a cached node is never stale. Eviction is generational: when the
 * young generation reaches half the capacity it becomes the old one and the previous old one is
 * dropped; a hit in the old generation moves the node back to the young one.
 */
export class CachedNodeReader implements TreeNodeReader {
  private young = new Map<string, Uint8Array>();
  private old = new Map<string, Uint8Array>();

  constructor(
    private readonly base: TreeNodeReader,
    private readonly capacity: number,
  ) {}

  async getNode(hash: Uint8Array): Promise<Uint8Array | undefined> {
    const key = toHex(hash);
    const hit = this.peekNode(hash, key);
    if (hit !== undefined) return hit;
    const node = await this.base.getNode(hash);
    if (node !== undefined) this.remember(key, node);
    return node;
  }

  peekNode(hash: Uint8Array, key = toHex(hash)): Uint8Array | undefined {
    const hit = this.young.get(key) ?? this.old.get(key);
    if (hit !== undefined) this.remember(key, hit);
    return hit;
  }

  /** Adds nodes that were just committed: the next block reads many of them. */
  add(nodes: TreeNodes): void {
    for (const [key, node] of nodes) this.remember(key, node);
  }

  private remember(key: string, node: Uint8Array): void {
    if (this.young.has(key)) return;
    if (this.young.size >= this.capacity / 2) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, node);
  }
}
