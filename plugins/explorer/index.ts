import { Gauge } from 'prom-client';
import type { Plugin, PluginContext } from '../../node/plugins/types.js';
import { mountApi } from './api.js';
import { Feed } from './feed.js';
import { mountIdentityApi } from './identity-api.js';
import { indexBlocks, Indexer } from './indexer.js';
import { mountSearchApi } from './search-api.js';
import { mountStatsApi } from './stats-api.js';
import { mountValidatorsApi } from './validators-api.js';
import { mountVerificationApi } from './verification-api.js';
import { mountWebApp } from './web.js';

const NEXT_SEQ = 'ledger_explorer_next_seq';

/** How far the index is: compare with ledger_seq (the committed head) to see the lag. One per registry. */
function nextSeqGauge(ctx: PluginContext): Gauge {
  const existing = ctx.metrics.getSingleMetric(NEXT_SEQ);
  return (existing as Gauge | undefined) ?? new Gauge({ name: NEXT_SEQ, help: 'the next committed block seq the explorer will index', registers: [ctx.metrics] });
}

/**
 * The explorer (seed 002): indexes committed blocks from the plugin context's block stream into
 * its own namespace, serves the REST API, the WebSocket feed and the web app (`/`) on its own
 * port (default 8081).
 * Docs: docs/explorer.md.
 */
export function createExplorer(): Plugin {
  let loop: Promise<void> | undefined;
  let feed: Feed | undefined;
  const abort = new AbortController();
  return {
    name: 'explorer',
    async start(ctx: PluginContext) {
      const indexer = new Indexer({ store: ctx.store, network: ctx.network, credential: (id) => ctx.chain.credential(id) });
      mountApi(ctx);
      mountValidatorsApi(ctx);
      mountIdentityApi(ctx);
      mountStatsApi(ctx);
      mountSearchApi(ctx);
      mountVerificationApi(ctx);
      mountWebApp(ctx.http);
      const live = new Feed(ctx.http.server, ctx.log);
      feed = live;
      const from = await indexer.cursor();
      const progress = nextSeqGauge(ctx);
      progress.set(from);
      loop = (async () => {
        const behind = (seq: number) => seq < (ctx.chain.head()?.seq ?? 0);
        await indexBlocks(indexer, ctx.blocks(from, abort.signal), behind, (indexed, next) => {
          live.publish(indexed);
          progress.set(next);
        });
      })().catch((err: unknown) => ctx.log.error({ err }, 'the explorer indexer stopped'));
      ctx.log.info({ from_seq: from }, 'explorer indexing');
    },
    async stop() {
      abort.abort();
      await loop;
      await feed?.close();
    },
  };
}
