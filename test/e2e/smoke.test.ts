import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runProcess, type ProcessResult } from './harness.js';

/**
 * The smoke run CI also does on a second Node.js major (scripts/smoke.ts, from the build): here on
 * the default Node.js. It must pass without a single process warning, and a warning must fail it.
 */
const SMOKE = fileURLToPath(new URL('../../dist/scripts/smoke.js', import.meta.url));

function runSmoke(flags: string[]): Promise<ProcessResult> {
  return runProcess(process.execPath, [...flags, SMOKE]);
}

t.test('start with every plugin, KYC and wallet health ok, a transfer, a DID, the explorer: ok, with no warning', async (t) => {
  const run = await runSmoke([]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, new RegExp(`^node ${process.versions.node.split('.')[0]} smoke: ok`));
  t.equal(run.stderr, '', 'nothing on stderr: no process warning from the smoke run');
});

t.test('a process warning in the node fails the smoke run', async (t) => {
  // a preload that warns as a deprecated API would; the smoke hands its flags to the node it starts
  const warn = `--import=data:text/javascript,process.emitWarning("a deprecated call","DeprecationWarning","DEP0999")`;
  const run = await runSmoke([warn]);
  t.equal(run.code, 1);
  t.match(run.stderr, /smoke: FAILED: .*process warning: .*DeprecationWarning: a deprecated call/);
  t.notMatch(run.stdout, /smoke: ok/);
});
