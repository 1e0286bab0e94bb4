import t from 'tap';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/**
 * The CLI as a real process, from source through the TypeScript loader tap uses (the built
 * bin/ledger.js runs the same main()). test/e2e/ covers `start` against a real node.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const loader = join(root, 'node_modules/@isaacs/ts-node-temp-fork-for-pr-2009/import.mjs');
const entry = join(root, 'node/cli/main.ts');

function ledger(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--import', loader, entry, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: join(root, 'tsconfig.json'), ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

t.test('ledger init then keys new, as processes', async (t) => {
  const cwd = t.testdir({});
  const init = ledger(['init', '--validators', '2'], cwd);
  t.equal(init.code, 0, init.stderr);
  const summary = JSON.parse(init.stdout);
  t.equal(summary.chain_id, 'ledger-testnet-1');
  t.equal(summary.validators.length, 2);
  t.equal(statSync(join(cwd, 'data', 'keys', 'validator-1.json')).mode & 0o777, 0o600);

  const again = ledger(['init'], cwd);
  t.equal(again.code, 1);
  t.match(again.stderr, /refusing to re-initialize/);

  const keys = ledger(['keys', 'new', '--out', 'k.json'], cwd, { LEDGER_DATA_DIR: 'elsewhere' });
  t.equal(keys.code, 0, keys.stderr);
  const out = JSON.parse(keys.stdout);
  t.equal(out.file, join(cwd, 'k.json'));
  t.equal(statSync(out.file).mode & 0o777, 0o600);
  t.equal(keys.stderr, '', 'nothing on stderr');
});

t.test('usage errors exit 2 as processes', async (t) => {
  const cwd = t.testdir({});
  const unknown = ledger(['nope'], cwd);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown command "nope"/);
  const devnet = ledger(['devnet', '--validators', '99'], cwd);
  t.equal(devnet.code, 2);
  t.match(devnet.stderr, /--validators must be an integer from 1 to 32/);
});
