import type { Test } from 'tap';
import type { NewMessage, RelayStore } from '../../../../../plugins/relay/store/types.js';

/**
 * A relay store backend as the contract suite (index.ts) sees it: how to make a fresh store, how
 * to open another on the same records, and the backend's own checks of what it stored.
 */

export interface StoreOptions {
  now?: () => number;
  counterFlushMs?: number;
  onError?: (err: unknown) => void;
}

export interface Backend {
  /** what the stores report as `backend` */
  readonly name: string;
  /** a store on fresh, empty storage, closed at teardown */
  make(t: Test, opts?: StoreOptions): Promise<RelayStore>;
  /** another store on the records of `store` (a second instance, or it reopened once closed), closed at teardown */
  again(t: Test, store: RelayStore, opts?: StoreOptions): Promise<RelayStore>;
  /** every broken invariant of what the backend stored for the messages, [] when none */
  inconsistencies(store: RelayStore): Promise<string[]>;
  /** everything stored for messages (keys, rows), as text holding the message ids */
  traces(store: RelayStore): Promise<string[]>;
}

export const newMessage = (over: Partial<NewMessage> = {}): NewMessage => ({
  tenantId: 'tenant-a',
  mediationId: 'med-1',
  recipient: 'did:key:z6MkA',
  sender: null,
  size: 3,
  expiresAt: 100_000,
  ...over,
});

export const body = (n: number, size = 3): Uint8Array => new Uint8Array(size).fill(n & 0xff);
