import t from 'tap';
import { runLedger } from './fixtures/io.js';

t.test('help for the tool and every command', async (t) => {
  const cwd = t.testdir({});
  const top = await runLedger(['--help'], { cwd });
  t.equal(top.code, 0);
  t.match(top.stdout, /Usage: ledger <command>/);
  for (const c of ['init', 'start', 'devnet', 'keys', 'tx', 'rpc']) {
    t.match(top.stdout, new RegExp(`\\n  ${c} `), `lists ${c}`);
    const r = await runLedger([c, '--help'], { cwd });
    t.equal(r.code, 0, `${c} --help exits 0`);
    t.match(r.stdout, new RegExp(`^ledger ${c}: `), `${c} has its own help`);
    t.match(r.stdout, /Examples:\n  ledger /, `${c} help has examples`);
  }
  t.match((await runLedger(['help', 'tx'], { cwd })).stdout, /^ledger tx: /);
  const none = await runLedger([], { cwd });
  t.equal(none.code, 2, 'no command is a usage error');
  t.match(none.stderr, /Usage: ledger <command>/);
});

t.test('unknown commands and flags exit 2 with a clear message', async (t) => {
  const cwd = t.testdir({});
  const cmd = await runLedger(['frobnicate'], { cwd });
  t.equal(cmd.code, 2);
  t.match(cmd.stderr, /unknown command "frobnicate".*Commands: init, start, devnet, keys, tx, rpc/);
  t.equal((await runLedger(['toString'], { cwd })).code, 2, 'no prototype keys as commands');
  const flag = await runLedger(['init', '--colour', 'red'], { cwd });
  t.equal(flag.code, 2);
  t.match(flag.stderr, /ledger init: Unknown option '--colour'.*\nRun "ledger init --help" for usage\./s);
  const keys = await runLedger(['keys', 'rotate'], { cwd });
  t.equal(keys.code, 2);
  t.match(keys.stderr, /unknown keys subcommand "rotate"/);
  const n = await runLedger(['init', '--validators', 'many'], { cwd });
  t.equal(n.code, 2);
  t.match(n.stderr, /--validators must be an integer from 1 to 100/);
});

t.test('devnet rejects bad flags before it creates anything', async (t) => {
  const cwd = t.testdir({});
  const r = await runLedger(['devnet', '--validators', '0'], { cwd });
  t.equal(r.code, 2);
  t.match(r.stderr, /--validators must be an integer from 1 to 32/);
  const p = await runLedger(['devnet', '--plugins', 'mailer'], { cwd });
  t.equal(p.code, 2);
  t.match(p.stderr, /unknown plugin "mailer"/);
});

t.test('--version prints the package version', async (t) => {
  const r = await runLedger(['--version'], { cwd: t.testdir({}) });
  t.equal(r.code, 0);
  t.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
});
