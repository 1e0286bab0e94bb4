import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { LEDGER_BIN, runProcess, startNodeProcess, tempDataDir } from './harness.js';

/**
 * The README's "Try it" block, run as written against a real node whose data is in ./data of the
 * working folder, as `npm start` leaves it. Only the node's address changes (an ephemeral port),
 * and `npx ledger` runs this build's CLI.
 */
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const GITIGNORE = fileURLToPath(new URL('../../.gitignore', import.meta.url));
const DEFAULT_RPC = 'http://127.0.0.1:8545';

async function tryItBlock(): Promise<string> {
  const text = await readFile(README, 'utf8');
  const section = text.slice(text.indexOf('\n## Try it'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README has no sh block under "## Try it"');
  return block[1]!;
}

t.test("README's quick start runs as written and leaves no key outside data/", async (t) => {
  const block = await tryItBlock();
  t.match(block, DEFAULT_RPC, 'the block talks to the default RPC address');
  const work = await tempDataDir(t);
  const node = await startNodeProcess(t, join(work, 'data'));
  const rpcUrl = node.url.replace(/\/$/, '');

  const script = [
    'set -euo pipefail',
    `npx() { [ "$1" = ledger ] || { echo "npx $1 is not this project's CLI" >&2; return 97; }; shift; "${process.execPath}" "${LEDGER_BIN}" "$@"; }`,
    block.replaceAll(DEFAULT_RPC, rpcUrl),
  ].join('\n');
  const run = await runProcess('bash', ['-c', script], { cwd: work, env: { LEDGER_RPC_URL: rpcUrl } });
  t.equal(run.code, 0, run.stderr);

  const dev = JSON.parse(await readFile(join(work, 'data', 'keys', 'dev.json'), 'utf8')) as { address: string };
  const alice = JSON.parse(await readFile(join(work, 'data', 'keys', 'alice.json'), 'utf8')) as { address: string };
  t.match(run.stdout, /^150000000$/m, "Alice's balance is printed in units: 1.5 LGR");
  t.match(run.stdout, `"to": "${alice.address}"`, 'the transfer went to the new key');
  t.match(run.stdout, `"id":"did:ledger:testnet:${dev.address}"`, 'the resolver answers the new DID document');
  t.same(await readdir(work), ['data'], 'everything the quick start wrote is under data/');
  t.match(await readFile(GITIGNORE, 'utf8'), /^data\/$/m, 'and git ignores data/');
  await node.stop();
});
