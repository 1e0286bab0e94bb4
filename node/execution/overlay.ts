import { toHex } from '../protocol/bytes.js';

/** Read access to chain state: committed state, or committed state under pending blocks. */
export interface StateReader {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
}

export interface StateChange {
  key: Uint8Array;
  /** null deletes the entry */
  value: Uint8Array | null;
}

/** An in-memory layer of writes over a reader; execution never touches storage directly. */
export class StateOverlay implements StateReader {
  private readonly writes = new Map<string, StateChange>();

  constructor(private readonly base: StateReader) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const w = this.writes.get(toHex(key));
    if (w) return w.value ?? undefined;
    return this.base.get(key);
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.writes.set(toHex(key), { key, value });
  }

  delete(key: Uint8Array): void {
    this.writes.set(toHex(key), { key, value: null });
  }

  /** The writes, sorted by key so that every node derives the same list. */
  changes(): StateChange[] {
    return [...this.writes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
  }
}

/** A reader over a fixed list of changes on top of another reader (a pending block's writes). */
export function layeredReader(base: StateReader, changes: StateChange[]): StateReader {
  const map = new Map(changes.map((c) => [toHex(c.key), c.value]));
  return {
    async get(key) {
      const hex = toHex(key);
      if (map.has(hex)) return map.get(hex) ?? undefined;
      return base.get(key);
    },
  };
}
