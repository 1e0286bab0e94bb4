import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LEDGER_BIN, runCli, startNodeProcess, tempDataDir } from '../e2e/harness.js';

/**
 * The built CLI loads only what a command needs: a quick command never imports a plugin, libp2p
 * or LevelDB, and `start` imports only the plugins it runs. Each run records the module URLs
 * the process resolves through a loader hook (fixtures/record-imports.mjs).
 */
const recorder = fileURLToPath(new URL('./fixtures/record-imports.mjs', import.meta.url));
const LEDGER_BIN_URL = pathToFileURL(LEDGER_BIN).href;

const PLUGIN_MODULE = /\/dist\/plugins\/(?!index\.js$)/;
const LIBP2P = /\/node_modules\/(libp2p|@libp2p\/[^/]+|@chainsafe\/libp2p-[^/]+)\//;
const LEVELDB = /\/node_modules\/(level|classic-level|abstract-level|memory-level)\//;

function recordingEnv(file: string): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--import ${recorder}`, RECORD_IMPORTS_TO: file };
}

/** What the process resolved from the entry point on (the test runner preloads its own hooks). */
function recorded(file: string): string[] {
  const urls = readFileSync(file, 'utf8').split('\n');
  const from = urls.indexOf(LEDGER_BIN_URL);
  return from < 0 ? [] : [...new Set(urls.slice(from).filter((u) => u !== ''))];
}

t.test('ledger --help loads no package at all, only the CLI itself', async (t) => {
  const dir = await tempDataDir(t);
  const file = join(dir, 'imports.txt');
  const r = await runCli(['--help'], recordingEnv(file));
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /Transaction kinds \(ledger tx <kind>\):\n {2}transfer /);
  const urls = recorded(file);
  t.ok(urls.some((u) => u.endsWith('/dist/node/cli/main.js')), 'the recorder saw the CLI load');
  t.same(urls.filter((u) => u.includes('/node_modules/')), [], 'no package');
  t.same(urls.filter((u) => /\/dist\/node\/cli\/commands\/(?!tx-kinds\.js$)/.test(u)), [], 'no command module');
  t.same(urls.filter((u) => PLUGIN_MODULE.test(u)), [], 'no plugin');
});

t.test('ledger keys new and the other quick commands load no plugin, libp2p or LevelDB module', async (t) => {
  const dir = await tempDataDir(t);
  const runs: Array<{ argv: string[]; loads: RegExp }> = [
    { argv: ['keys', 'new', '--out', join(dir, 'k.json')], loads: /\/node_modules\/@noble\/curves\// },
    { argv: ['tx', 'transfer', '--help'], loads: /\/dist\/node\/cli\/commands\/tx\.js$/ },
    { argv: ['rpc', '--help'], loads: /\/dist\/node\/client\/rpc-client\.js$/ },
  ];
  for (const [i, run] of runs.entries()) {
    const file = join(dir, `imports-${i}.txt`);
    const r = await runCli(run.argv, recordingEnv(file));
    t.equal(r.code, 0, r.stderr);
    const urls = recorded(file);
    const name = run.argv.slice(0, 2).join(' ');
    t.ok(urls.some((u) => run.loads.test(u)), `${name}: the recorder saw what the command needs`);
    t.same(urls.filter((u) => PLUGIN_MODULE.test(u) || LIBP2P.test(u) || LEVELDB.test(u)), [], `${name}: no plugin, libp2p or LevelDB`);
  }
});

t.test('ledger start imports the plugins it runs and no other', async (t) => {
  const dir = await tempDataDir(t);
  const file = join(dir, 'imports.txt');
  const node = await startNodeProcess(t, join(dir, 'data'), { plugins: { explorer: 0 }, env: recordingEnv(file) });
  t.ok(node.plugins.explorer, 'the explorer runs');
  const health = await fetch(`${node.url}/health`);
  t.equal(health.status, 200);
  t.match(await health.json(), { status: 'ok' });
  t.equal(await node.stop(), 0, 'stops cleanly');
  const plugins = new Set(recorded(file).flatMap((u) => /\/dist\/plugins\/([a-z]+)\//.exec(u)?.[1] ?? []));
  t.ok(plugins.has('explorer'), 'the explorer module loaded');
  t.same([...plugins].filter((p) => ['relay', 'kyc', 'wallet'].includes(p)), [], 'no plugin that is off');
});
