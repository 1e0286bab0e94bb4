/**
 * bench/explorer-web: how fast the explorer's web app renders its first page in headless Chromium
 * over a 3,000-block chain (by default the chain of bench/explorer: 2,000 one-transfer blocks and
 * 1,000 blocks of 100, about 102k transactions, in a real LevelDB). After the plugin has caught up,
 * it opens the home page, a 100-transaction block, the address with the deepest history (its newest
 * and its oldest page) and the validators page, each `--runs` times in a fresh browser context (nothing cached: the cold first
 * visit) and as many times reloaded in the same one (the assets cached, the data fetched again).
 *
 * A run's figure is the app's `explorer:first-render` mark: the time from navigation start to the
 * page's content being in the DOM (the app sets it, and `main[data-page]` without `aria-busy`,
 * when its first render is done). The wall time of the whole navigation, as the driver sees it,
 * is kept beside it.
 *
 *   npm run bench:explorer-web -- [--small-blocks 2000] [--big-blocks 1000] [--txs-per-block 100] [--runs 15]
 *
 * Prints a table and writes bench/results/explorer-web.json. The target (under 1 s) is reported,
 * not enforced.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Browser } from 'playwright-core';
import { BenchChain, CHAIN_OPTIONS } from './lib/explorer-chain.js';
import { launchHeadlessChromium } from './lib/chromium.js';
import { latencySummary, machine } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    ...CHAIN_OPTIONS,
    runs: { type: 'string', default: '15' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('npm run bench:explorer-web -- [--small-blocks 2000] [--big-blocks 1000] [--txs-per-block 100] [--senders 50] [--runs 15] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url));
const TARGET_MS = 1000;
/** the app's page size for an address's history (plugins/explorer/web/chain-pages.js LIMIT) */
const APP_PAGE = 20;
const runs = Number(values.runs);

interface Sample {
  render: number;
  wall: number;
}

/** Opens `url` in `page` (navigating, or reloading when it is already there) and returns the app's first-render mark. */
async function visit(page: import('playwright-core').Page, url: string, kind: string, reload: boolean): Promise<Sample> {
  const t0 = performance.now();
  if (reload) await page.reload();
  else await page.goto(url);
  await page.waitForSelector(`main[data-page]:not([aria-busy])`, { timeout: 30_000 });
  const wall = performance.now() - t0;
  const shown = await page.evaluate('document.getElementById("main").dataset.page');
  if (shown !== kind) throw new Error(`${url} rendered the ${String(shown)} page, not the ${kind} page`);
  // every measured page lists items (blocks, transactions, validators) with links: an empty one measured nothing
  if ((await page.locator('main tbody tr a').count()) === 0) throw new Error(`${url} rendered no rows`);
  const render = (await page.evaluate("performance.getEntriesByName('explorer:first-render')[0]?.startTime ?? -1")) as number;
  if (!(render > 0)) throw new Error(`${url}: the app set no first-render mark`);
  return { render, wall };
}

async function measure(browser: Browser, url: string, kind: string) {
  const cold: Sample[] = [];
  const warm: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    cold.push(await visit(page, url, kind, false));
    warm.push(await visit(page, url, kind, true));
    await context.close();
  }
  const summary = (samples: Sample[]) => {
    const render = latencySummary(samples.map((s) => s.render));
    const wall = latencySummary(samples.map((s) => s.wall));
    return { median: render.p50, p90: render.p90, max: render.max, wall_median: wall.p50, wall_max: wall.max };
  };
  return { url, cold: summary(cold), warm: summary(warm), runs };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-explorer-web-'));
  const chain = await BenchChain.open(dir, Number(values.senders));
  const closers: Array<() => unknown> = [];
  try {
    const small = Number(values['small-blocks']);
    const big = Number(values['big-blocks']);
    const per = Number(values['txs-per-block']);
    await chain.build(small, big, per);
    const top = chain.store.head()!;

    const { url, stop } = await chain.startExplorer();
    closers.push(stop);
    const caughtUp = performance.now();
    for (;;) {
      const res = await fetch(`${url}/api/v1/blocks/latest`);
      if (res.ok && Number(((await res.json()) as { height: string | number }).height) === top.height) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`the explorer caught up in ${Math.round((performance.now() - caughtUp) / 1000)} s`);

    const address = chain.address(0);
    const history = (await (await fetch(`${url}/api/v1/addresses/${address}/txs?limit=1`)).json()) as { total: number };
    const block = top.height - 1;
    const browser = await launchHeadlessChromium();
    closers.push(() => browser.close());
    const load = loadavg();
    const pages = {
      home: await measure(browser, `${url}/`, 'home'),
      block: await measure(browser, `${url}/#/block/${block}`, 'block'),
      address: await measure(browser, `${url}/#/address/${address}`, 'address'),
      address_oldest_page: await measure(browser, `${url}/#/address/${address}?page=${Math.ceil(history.total / APP_PAGE)}`, 'address'),
      validators: await measure(browser, `${url}/#/validators`, 'validators'),
    };
    const loadAfter = loadavg();

    const result = {
      bench: 'explorer-web',
      chain: { blocks: top.seq + 1, transactions: chain.txCount, small_blocks: small, big_blocks: big, txs_per_big_block: per, block_page_txs: per, address_history: history.total },
      first_render_ms: pages,
      note: 'first_render_ms: from navigation start to the page content rendered (the app\'s explorer:first-render mark); cold: a fresh browser context, warm: a reload with the assets cached; wall_*: the whole navigation as the driver sees it',
      target_ms: TARGET_MS,
      browser: { name: 'chromium', version: browser.version(), headless: true, viewport: '1280x900' },
      machine: { ...machine(), loadavg_before: load.map((v) => Math.round(v * 100) / 100), loadavg_after: loadAfter.map((v) => Math.round(v * 100) / 100) },
      at: new Date().toISOString(),
    };
    console.table(
      Object.entries(pages).flatMap(([name, p]) =>
        (['cold', 'warm'] as const).map((how) => ({
          page: name,
          visit: how,
          'median ms': p[how].median,
          'p90 ms': p[how].p90,
          'max ms': p[how].max,
          'wall median ms': p[how].wall_median,
          target: `< ${TARGET_MS} ms`,
        })),
      ),
    );
    console.log(`load average (1, 5, 15 min) before ${result.machine.loadavg_before.join(', ')}, after ${result.machine.loadavg_after.join(', ')}; ${result.machine.cpus} cpus`);
    const out = values.out ?? join(root, 'bench/results/explorer-web.json');
    await mkdir(join(out, '..'), { recursive: true });
    await writeFile(out, JSON.stringify(result, null, 1) + '\n');
    console.log(`wrote ${out}`);
  } finally {
    for (const close of closers.reverse()) await close();
    await chain.db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
