import type { Test } from 'tap';
import type { ServiceKeySecret } from '../../../../../node/config/service-key-secret.js';
import type { RelaySecretSource } from '../../../../../plugins/relay/store/secrets.js';
import type { NewMessage, RelayStore } from '../../../../../plugins/relay/store/types.js';
import { testSecret } from '../../../common/secrets/fixtures.js';

/**
 * A relay store backend as the contract suite (index.ts) sees it: how to make a fresh store, how
 * to open another on the same records, and the backend's own checks of what it stored.
 */

let shared: Promise<ServiceKeySecret> | undefined;

/** the service-key secret of the relay's tests: one, so that its scrypt key is derived once per process */
export const testSecrets: RelaySecretSource = { serviceKeySecret: () => (shared ??= testSecret('the-relay-tests-service-key-secret')) };

/** `secret` as a PluginContext hands it over, its log lines kept in `logs` */
export function secretSource(secret: ServiceKeySecret, logs: string[] = []): RelaySecretSource {
  return { serviceKeySecret: async () => secret, log: { info: (_, message) => void logs.push(message), warn: (_, message) => void logs.push(`warn: ${message}`) } };
}

export interface StoreOptions {
  /** default testSecrets */
  secrets?: RelaySecretSource;
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
