import { Gauge } from 'prom-client';
import { LedgerError } from '../../node/errors.js';
import type { Plugin, PluginContext } from '../../node/plugins/types.js';
import { mountApi } from './api/chain.js';
import { mountIdentityApi } from './api/identity.js';
import { mountSearchApi } from './api/search.js';
import { mountStatsApi } from './api/stats.js';
import { mountValidatorsApi } from './api/validators.js';
import { mountVerificationApi } from './api/verification.js';
import { Feed } from './feed.js';
import { indexBlocks } from './indexing.js';
import { configuredStore, type ExplorerStore, type StoreFactory } from './store/open.js';
import { INDEX_MOVED } from './store/sql/writer.js';
import { mountWebApp } from './web.js';

const NEXT_SEQ = 'ledger_explorer_next_seq';

/** How far the index is: compare with ledger_seq (the committed head) to see the lag. One per registry. */
function nextSeqGauge(ctx: PluginContext): Gauge {
  const existing = ctx.metrics.getSingleMetric(NEXT_SEQ);
  return (existing as Gauge | undefined) ?? new Gauge({ name: NEXT_SEQ, help: 'the next committed block seq the explorer will index', registers: [ctx.metrics] });
}

export interface ExplorerOptions {
  /** where the index is kept; default: the plugin's config (store/open.ts) */
  store?: StoreFactory;
  /** with a shared index: how often an instance renews or tries the writer lease, and how often a reading one follows the writer's progress */
  leaseRenewMs?: number;
  followMs?: number;
  /** after an index that cannot be reached, the wait before indexing again */
  retryMs?: number;
}

/** a database that cannot be reached, or another writer that moved the cursor: worth trying again later */
function transient(err: unknown): boolean {
  return err instanceof LedgerError && (err.kind === 'unavailable' || err.code === INDEX_MOVED);
}

/**
 * The explorer (seed 002): indexes committed blocks from the plugin context's block stream into
 * its index (store/open.ts: LevelDB, PGlite or Postgres), serves the REST API, the WebSocket feed
 * and the web app (`/`) on its own port (default 8081). On a shared Postgres index one instance
 * writes, holding the lease; the others serve reads, push what the writer indexed to their own
 * feed, and take the lease over when it lapses.
 * Docs: docs/explorer.md.
 */
export function createExplorer(opts: ExplorerOptions = {}): Plugin {
  const abort = new AbortController();
  const tasks: Array<Promise<void>> = [];
  let feed: Feed | undefined;
  let store: ExplorerStore | undefined;
  let timer: NodeJS.Timeout | undefined;
  const retryMs = opts.retryMs ?? 5_000;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      abort.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });

  return {
    name: 'explorer',
    async start(ctx: PluginContext) {
      const s = await (opts.store ?? configuredStore)(ctx);
      store = s;
      const index = s.reader;
      mountApi(ctx, index);
      mountValidatorsApi(ctx, index);
      mountIdentityApi(ctx, index);
      mountStatsApi(ctx, index);
      mountSearchApi(ctx, index);
      mountVerificationApi(ctx, index);
      mountWebApp(ctx.http);
      const live = new Feed(ctx.http.server, ctx.log);
      feed = live;
      const progress = nextSeqGauge(ctx);
      const from = await s.reader.cursor();
      progress.set(from);

      /** Indexes from the stored cursor until `stop` aborts; a transient failure ends it too, to be started again. */
      const write = async (stop: AbortSignal): Promise<void> => {
        const start = await s.writer.cursor();
        const behind = (seq: number) => seq < (ctx.chain.head()?.seq ?? 0);
        await indexBlocks(s.writer, ctx.blocks(start, stop), behind, (indexed, next) => {
          live.publish(indexed);
          progress.set(next);
        });
      };

      if (!s.shared) {
        tasks.push(
          (async () => {
            while (!abort.signal.aborted) {
              try {
                await write(abort.signal);
                return;
              } catch (err) {
                if (!transient(err)) throw err;
                ctx.log.warn({ err: (err as Error).message }, `the explorer index cannot be written; trying again in ${retryMs} ms`);
                await sleep(retryMs);
              }
            }
          })().catch((err: unknown) => ctx.log.error({ err }, 'the explorer indexer stopped')),
        );
        ctx.log.info({ from_seq: from, store: s.kind }, 'explorer indexing');
        return;
      }

      // a shared index: write while holding the lease, else follow the writer
      const { lease, indexedSince } = s.shared;
      let writing: { stop: AbortController; done: Promise<void> } | undefined;
      let followed = from;
      let busy = false;
      const startWriting = () => {
        const stop = new AbortController();
        const signal = AbortSignal.any([stop.signal, abort.signal]);
        const done = write(signal)
          .catch((err: unknown) => {
            if (transient(err)) ctx.log.warn({ err: (err as Error).message }, 'the explorer stopped writing; it tries the lease again');
            else ctx.log.error({ err }, 'the explorer indexer stopped');
          })
          .finally(() => {
            if (writing?.stop === stop) writing = undefined;
          });
        writing = { stop, done };
        ctx.log.info({ holder: lease.holder, store: s.kind }, 'this explorer instance holds the writer lease and indexes');
      };
      const stopWriting = async () => {
        const w = writing;
        writing = undefined;
        w?.stop.abort();
        await w?.done;
      };
      const follow = async () => {
        const cursor = await s.reader.cursor();
        // a follower that fell far behind skips ahead rather than replaying the backlog
        const fromSeq = Math.max(followed, cursor - 64);
        if (cursor > fromSeq) for (const i of await indexedSince(fromSeq, cursor)) live.publish(i);
        followed = cursor;
        progress.set(cursor);
      };
      const leaseTick = async () => {
        const held = await lease.acquire();
        if (held && !writing && !abort.signal.aborted) startWriting();
        if (!held && writing) {
          ctx.log.warn({ holder: lease.holder }, 'this explorer instance lost the writer lease; it serves reads');
          await stopWriting();
          followed = await s.reader.cursor();
        }
      };
      const renewMs = opts.leaseRenewMs ?? 5_000;
      const followMs = opts.followMs ?? 500;
      let lastLease = 0;
      const tick = async () => {
        if (busy || abort.signal.aborted) return;
        busy = true;
        try {
          if (Date.now() - lastLease >= renewMs) {
            lastLease = Date.now();
            await leaseTick();
          }
          if (!writing) await follow();
          else followed = await s.reader.cursor();
        } catch (err) {
          ctx.log.warn({ err: (err as Error).message }, 'the explorer cannot reach its index; trying again');
        } finally {
          busy = false;
        }
      };
      await tick();
      timer = setInterval(() => void tick(), Math.min(renewMs, followMs));
      tasks.push(
        new Promise<void>((resolve) =>
          abort.signal.addEventListener(
            'abort',
            () => {
              clearInterval(timer);
              void (async () => {
                const wasWriting = writing !== undefined;
                await stopWriting();
                if (wasWriting) await lease.release().catch(() => {});
              })().finally(resolve);
            },
            { once: true },
          ),
        ),
      );
      ctx.log.info({ from_seq: from, store: s.kind, holder: lease.holder }, 'explorer on a shared index');
    },
    async stop() {
      abort.abort();
      await Promise.all(tasks);
      await feed?.close();
      await store?.close();
    },
  };
}
