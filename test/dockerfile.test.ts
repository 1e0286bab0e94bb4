import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PLUGIN_NAMES, SETTINGS } from '../node/config/schema.js';
import { runCli, startNodeProcess, tempDataDir } from './e2e/harness.js';

/**
 * The Dockerfile's promises, checked without a container engine: what it copies exists and is not
 * ignored, every listener is opened to the network through a setting the node knows, and its
 * HEALTHCHECK command tells a serving node from a dead one. docs/operators.md ("Container image")
 * records a real build and run.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
/** Instructions with their continuation lines joined, comments dropped. */
const instructions = readFileSync(`${root}Dockerfile`, 'utf8')
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const ignored = readFileSync(`${root}.dockerignore`, 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const runtime = instructions.slice(instructions.findLastIndex((l) => l.startsWith('FROM ')));

t.test('what the build stage copies exists and is not ignored', async (t) => {
  const sources = instructions
    .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
    .flatMap((l) => l.split(/\s+/).slice(1, -1).filter((w) => !w.startsWith('--')));
  t.ok(sources.length > 5);
  for (const s of sources) {
    t.ok(existsSync(`${root}${s}`), `${s} exists`);
    t.notOk(ignored.includes(s), `${s} is not in .dockerignore`);
  }
});

t.test('the runtime stage opens every listener through settings the node reads', async (t) => {
  const env = new Map(
    runtime
      .filter((l) => l.startsWith('ENV '))
      .flatMap((l) => l.slice(4).trim().split(/\s+/))
      .map((kv) => kv.split('=') as [string, string]),
  );
  const known = new Set(SETTINGS.map((s) => s.env));
  for (const name of ['RPC', 'P2P', ...PLUGIN_NAMES.map((p) => p.toUpperCase())]) {
    const key = `LEDGER_${name}_HOST`;
    t.equal(env.get(key), '0.0.0.0', `${key} is 0.0.0.0`);
    t.ok(known.has(key), `the node reads ${key}`);
  }
});

t.test('the HEALTHCHECK passes on a serving node and fails when nothing answers', async (t) => {
  const line = runtime.find((l) => l.startsWith('HEALTHCHECK '));
  t.ok(line, 'the image has a HEALTHCHECK');
  const command = JSON.parse(line!.slice(line!.indexOf('CMD ') + 4)) as string[];
  t.equal(command[0], 'node', 'it needs nothing but node (slim images have no curl)');
  const probe = (port: number) =>
    new Promise<number | null>((resolve) => {
      const p = spawn(process.execPath, command.slice(1), { env: { ...process.env, LEDGER_RPC_PORT: String(port) }, stdio: 'ignore' });
      p.on('exit', resolve);
    });
  const dir = await tempDataDir(t);
  t.equal((await runCli(['init', '--data-dir', dir])).code, 0);
  const node = await startNodeProcess(t, dir);
  const port = Number(new URL(node.url).port);
  t.equal(await probe(port), 0, 'healthy while the node serves');
  await node.stop();
  t.equal(await probe(port), 1, 'unhealthy once it is gone');
});
