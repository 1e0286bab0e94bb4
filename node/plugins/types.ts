import type { Registry } from 'prom-client';
import type { CommittedBlock } from '../chain/app.js';
import type { PluginConfig } from '../config/schema.js';
import type { ServiceKeySecret } from '../config/service-key-secret.js';
import type { HttpServer } from '../http/server.js';
import type { Logger } from '../logging.js';
import type { BinarySublevel } from '../state/db.js';
import type { ChainView } from './chain-view.js';

/**
 * The plugin contract (ARCHITECTURE.md, "The plugin host"). A plugin touches the node only
 * through its PluginContext; `node/` never imports a plugin: the entry point hands the host the
 * plugins that exist.
 */

export interface Plugin {
  /** its config section, namespace and log name: 1-64 of a-z, 0-9, _ and - */
  readonly name: string;
  start(ctx: PluginContext): Promise<void>;
  stop(): Promise<void>;
}

export interface PluginContext {
  readonly name: string;
  readonly chainId: string;
  readonly network: string;
  /** read-only committed state */
  readonly chain: ChainView;
  /**
   * Committed blocks from `fromSeq` on, then each new one as it commits; ends when `signal`
   * aborts or the plugin stops. An indexer stores its cursor with its data and resumes from it.
   */
  blocks(fromSeq: number, signal?: AbortSignal): AsyncIterable<CommittedBlock>;
  /** Admits the JSON text of a signed transaction to the local mempool (the node never signs); returns its hash. */
  submit(txJson: string): Promise<string>;
  /** the plugin's own LevelDB namespace; no other plugin or the chain shares its keys */
  readonly store: BinarySublevel;
  /**
   * The plugin's own folder, <dataDir>/plugins/<name>, for data that is not LevelDB keys (an
   * embedded database); the plugin creates it. Undefined when the node runs without a data
   * directory (an in-memory node in tests and benches).
   */
  readonly dataDir?: string;
  /** the plugin's own HTTP server (its own port): mount routes in start(), raise its 1 MiB body limit for larger uploads; the host listens after */
  readonly http: Pick<HttpServer, 'route' | 'server' | 'raiseBodyLimit'>;
  readonly log: Logger;
  /** the node's registry, served at /metrics: name metrics `ledger_<plugin>_...` */
  readonly metrics: Registry;
  /** the plugin's section of the node config (enabled, host, port and its own options) */
  readonly config: Readonly<PluginConfig>;
  /**
   * The seed of the account `ledger init` made and funded at genesis for this plugin
   * (keys/service-<name>.json, sealed under the service-key secret), or undefined when the data
   * directory has none; SERVICE_KEY_SECRET_WRONG when the file does not open. A plugin that
   * sends transactions adopts it as its own key on first start.
   */
  serviceKey(): Promise<Uint8Array | undefined>;
  /**
   * The node's service-key secret, which a plugin's own keys are encrypted under in its store
   * (plugins/common/secrets): the same object on every call, for every plugin.
   */
  serviceKeySecret(): Promise<ServiceKeySecret>;
}
