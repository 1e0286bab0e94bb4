import type { Registry } from 'prom-client';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serviceKeyPath } from '../config/datadir.js';
import { PLUGIN_DEFAULT_MAX_CONNECTIONS, type PluginConfig, type PluginName } from '../config/schema.js';
import { openServiceKeyFile, sealServiceKeyFile } from '../config/service-key-file.js';
import { resolveServiceKeySecret, type ServiceKeySecret } from '../config/service-key-secret.js';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../http/connections.js';
import { HttpServer } from '../http/server.js';
import type { Logger } from '../logging.js';
import type { Mempool } from '../mempool/index.js';
import type { ChainStore } from '../state/chain-store.js';
import type { Database } from '../state/db.js';
import { committedBlocks, type HeadSignal } from './block-stream.js';
import { chainView } from './chain-view.js';
import type { Plugin, PluginContext } from './types.js';

/**
 * Starts the enabled plugins in order, each with its own PluginContext and HTTP port, and stops
 * them in reverse order. A plugin that fails to start is logged with its error, its port is
 * closed, and the node runs on without it: a plugin can only read chain state, write its own
 * namespace and submit signed transactions, so a failed one leaves nothing of the node's behind.
 */

/** a plugin route may read less with readBody(max); this is the cap of its HTTP server */
const PLUGIN_MAX_BODY_BYTES = 1024 * 1024;

export interface PluginHostDeps {
  chainId: string;
  network: string;
  store: ChainStore;
  db: Database;
  mempool: Mempool;
  head: HeadSignal;
  metrics: Registry;
  log: Logger;
  /** the data directory, where `ledger init` leaves the plugins' service keys (sealed: config/service-key-file.ts) */
  dataDir?: string;
  /** what the plugins' own keys are encrypted under; `ledger start` resolves it (config/service-key-secret.ts), else the data directory's or one in memory */
  serviceKeySecret?: ServiceKeySecret;
}

export type PluginState = { name: string; state: 'running'; url: string } | { name: string; state: 'failed'; error: string };

interface Running {
  plugin: Plugin;
  http: HttpServer;
  abort: AbortController;
}

export class PluginHost {
  private readonly running: Running[] = [];
  private readonly started: PluginState[] = [];
  private secret: Promise<ServiceKeySecret> | undefined;

  constructor(private readonly d: PluginHostDeps) {}

  /** Starts each plugin whose config section is enabled; `available` are the plugins that exist. */
  async start(available: readonly Plugin[], config: Readonly<Record<string, PluginConfig>>): Promise<PluginState[]> {
    const known = new Set(available.map((p) => p.name));
    for (const [name, section] of Object.entries(config)) {
      if (section.enabled && !known.has(name)) this.d.log.warn({ plugin: name }, `plugin ${name} is enabled in the config but not available in this version; the node runs without it`);
    }
    for (const plugin of available) {
      const section = config[plugin.name];
      if (section?.enabled) this.started.push(await this.startOne(plugin, section));
    }
    return this.states();
  }

  private async startOne(plugin: Plugin, section: PluginConfig): Promise<PluginState> {
    const log = this.d.log.child({ plugin: plugin.name });
    const http = new HttpServer({ host: section.host, port: section.port, maxBodyBytes: PLUGIN_MAX_BODY_BYTES, connections: connectionLimits(plugin.name, section), log });
    const abort = new AbortController();
    const ctx = this.context(plugin, section, http, abort.signal, log);
    try {
      await this.sealServiceKeyFile(plugin.name, log);
      await plugin.start(ctx);
      const bound = await http.listen();
      const url = `http://${bound.host.includes(':') ? `[${bound.host}]` : bound.host}:${bound.port}`;
      this.running.push({ plugin, http, abort });
      log.info({ url }, `plugin ${plugin.name} started`);
      return { name: plugin.name, state: 'running', url };
    } catch (err) {
      log.error({ err }, `plugin ${plugin.name} failed to start; the node runs without it`);
      abort.abort();
      await plugin.stop().catch((stopErr: unknown) => log.warn({ err: stopErr }, `plugin ${plugin.name} failed to stop after a failed start`));
      await http.close();
      return { name: plugin.name, state: 'failed', error: (err as Error).message };
    }
  }

  private context(plugin: Plugin, config: PluginConfig, http: HttpServer, stopped: AbortSignal, log: Logger): PluginContext {
    const { store, head, mempool } = this.d;
    return {
      name: plugin.name,
      chainId: this.d.chainId,
      network: this.d.network,
      chain: chainView(store, this.d.network),
      blocks: (fromSeq, signal) => committedBlocks(store, head, fromSeq, signal ? AbortSignal.any([signal, stopped]) : stopped),
      submit: async (txJson) => (await mempool.admitJson(txJson)).hash,
      store: this.d.db.pluginStore(plugin.name),
      ...(this.d.dataDir === undefined ? {} : { dataDir: join(this.d.dataDir, 'plugins', plugin.name) }),
      http,
      log,
      metrics: this.d.metrics,
      config: pluginOptions(config),
      serviceKey: async () => {
        const path = this.serviceKeyFile(plugin.name);
        return path === undefined ? undefined : (await openServiceKeyFile(path, plugin.name, await this.serviceKeySecret())).key.seed;
      },
      serviceKeySecret: () => this.serviceKeySecret(),
    };
  }

  private serviceKeySecret(): Promise<ServiceKeySecret> {
    return (this.secret ??= this.d.serviceKeySecret ? Promise.resolve(this.d.serviceKeySecret) : resolveServiceKeySecret({ env: {}, dataDir: this.d.dataDir }));
  }

  /** the plugin's service key file (keys/service-<name>.json), if the data directory has one */
  private serviceKeyFile(name: string): string | undefined {
    if (this.d.dataDir === undefined) return undefined;
    const path = serviceKeyPath(this.d.dataDir, name);
    return existsSync(path) ? path : undefined;
  }

  /**
   * A service key file an older `ledger init` wrote in plaintext is sealed before its plugin
   * starts, whether or not the plugin still reads it, so upgrading needs no step.
   */
  private async sealServiceKeyFile(name: string, log: Logger): Promise<void> {
    const path = this.serviceKeyFile(name);
    if (path === undefined) return;
    const secret = await this.serviceKeySecret();
    if (await sealServiceKeyFile(path, name, secret)) log.info({ file: path, service_key_secret: secret.source }, 'the service key file held its seed in plaintext: it is now encrypted under the service-key secret');
  }

  /** the running plugins' HTTP servers, for /metrics */
  servers(): Array<{ name: string; http: HttpServer }> {
    return this.running.map((r) => ({ name: r.plugin.name, http: r.http }));
  }

  states(): PluginState[] {
    return [...this.started];
  }

  /** Stops the running plugins, last started first; each plugin's streams end before its stop(). */
  async stop(): Promise<void> {
    for (const r of this.running.splice(0).reverse()) {
      r.abort.abort();
      try {
        await r.plugin.stop();
      } catch (err) {
        this.d.log.warn({ err, plugin: r.plugin.name }, `plugin ${r.plugin.name} failed to stop cleanly`);
      }
      await r.http.close();
    }
  }
}

/** A section's connection caps, or the defaults of a plugin of that name. */
function connectionLimits(name: string, section: PluginConfig): ConnectionLimits {
  const fallback = PLUGIN_DEFAULT_MAX_CONNECTIONS[name as PluginName] ?? DEFAULT_CONNECTION_LIMITS.maxConnections;
  return { maxConnections: section.maxConnections ?? fallback, maxConnectionsPerIp: section.maxConnectionsPerIp ?? DEFAULT_CONNECTION_LIMITS.maxConnectionsPerIp };
}

/** The section without the host's own connection caps: a plugin refuses options it does not know. */
export function pluginOptions(section: PluginConfig): PluginConfig {
  const { maxConnections: _total, maxConnectionsPerIp: _perIp, ...own } = section;
  return own;
}
