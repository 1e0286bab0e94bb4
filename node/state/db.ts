import type { AbstractBatchOperation, AbstractLevel, AbstractSublevel } from 'abstract-level';
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { invalid } from '../errors.js';

/**
 * The node's LevelDB and its namespaces. Every namespace is a sublevel with binary (Uint8Array)
 * keys and values, so that one `root.batch()` can write to several of them atomically. The key
 * layout of each namespace is in docs/storage.md.
 */

export type BinaryLevel = AbstractLevel<any, Uint8Array, Uint8Array>;
export type BinarySublevel = AbstractSublevel<BinaryLevel, any, Uint8Array, Uint8Array>;

/** One write of an atomic batch on the root database; `sublevel` says which namespace. */
export type StoreOp = AbstractBatchOperation<BinaryLevel, Uint8Array, Uint8Array>;

export const NAMESPACES = {
  /** state key (records.ts: prefix byte || id) -> canonical record encoding */
  state: 'state',
  /** 32-byte node hash -> encoded tree node */
  tree: 'tree',
  /** 32-byte block hash -> encodeBlock */
  blocks: 'blocks',
  /** u64 seq (big-endian) -> block hash */
  seq: 'seq',
  /** u64 height (big-endian) -> block hash */
  height: 'height',
  /** 32-byte tx hash -> encodeReceipt */
  receipts: 'receipts',
  /** 32-byte tx hash -> u64 seq || u64 index */
  txIndex: 'txindex',
  /** utf-8 name -> value: chain id, genesis hash, head */
  meta: 'meta',
  /** u64 epoch (big-endian) -> encodeValidatorSet: every epoch's set, as state held it */
  epochs: 'epochs',
  /** owned by the consensus engine (LevelConsensusStore) */
  consensus: 'consensus',
} as const;

export type Namespace = keyof typeof NAMESPACES;

const PLUGIN_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const BINARY = { keyEncoding: 'view', valueEncoding: 'view' } as const;

export interface Database {
  readonly root: BinaryLevel;
  readonly state: BinarySublevel;
  readonly tree: BinarySublevel;
  readonly blocks: BinarySublevel;
  readonly seq: BinarySublevel;
  readonly height: BinarySublevel;
  readonly receipts: BinarySublevel;
  readonly txIndex: BinarySublevel;
  readonly meta: BinarySublevel;
  readonly epochs: BinarySublevel;
  readonly consensus: BinarySublevel;
  /** A plugin's own namespace `plugin:<name>`: plugins share no keys with each other or the chain. */
  pluginStore(name: string): BinarySublevel;
  close(): Promise<void>;
}

/** Opens (creating if needed) the database at `location`, or an in-memory one for tests. */
export async function openDatabase(location: string | 'memory'): Promise<Database> {
  const root: BinaryLevel =
    location === 'memory' ? new MemoryLevel<Uint8Array, Uint8Array>(BINARY) : new Level<Uint8Array, Uint8Array>(location, BINARY);
  await root.open();
  const sub = (name: string): BinarySublevel => root.sublevel<Uint8Array, Uint8Array>(name, BINARY);
  const plugins = new Map<string, BinarySublevel>();
  return {
    root,
    state: sub(NAMESPACES.state),
    tree: sub(NAMESPACES.tree),
    blocks: sub(NAMESPACES.blocks),
    seq: sub(NAMESPACES.seq),
    height: sub(NAMESPACES.height),
    receipts: sub(NAMESPACES.receipts),
    txIndex: sub(NAMESPACES.txIndex),
    meta: sub(NAMESPACES.meta),
    epochs: sub(NAMESPACES.epochs),
    consensus: sub(NAMESPACES.consensus),
    pluginStore(name) {
      if (!PLUGIN_NAME.test(name)) throw invalid('BAD_PLUGIN_NAME', 'a plugin name is 1 to 64 of a-z, 0-9, _ and -, starting with a letter or digit');
      let store = plugins.get(name);
      if (!store) {
        store = sub(`plugin:${name}`);
        plugins.set(name, store);
      }
      return store;
    },
    close: () => root.close(),
  };
}
