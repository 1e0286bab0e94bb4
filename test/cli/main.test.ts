import t from 'tap';
import { runLedger } from './fixtures/io.js';
import { TX_KINDS } from '../../node/cli/commands/tx-kinds.js';
import { PAYLOAD_KINDS } from '../../node/protocol/payloads.js';

t.test('help for the tool and every command', async (t) => {
  const cwd = t.testdir({});
  const top = await runLedger(['--help'], { cwd });
  t.equal(top.code, 0);
  t.match(top.stdout, /Usage: ledger <command>/);
  for (const c of ['init', 'start', 'devnet', 'keys', 'tx', 'rpc', 'verify']) {
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

t.test('ledger --help lists every transaction kind; ledger tx <kind> --help is that kind', async (t) => {
  const cwd = t.testdir({});
  const top = (await runLedger(['--help'], { cwd })).stdout;
  t.match(top, /Transaction kinds \(ledger tx <kind>\):/);
  for (const [kind, info] of Object.entries(TX_KINDS)) {
    t.ok(PAYLOAD_KINDS.includes(info.payload), `${kind} signs a known payload (${info.payload})`);
    t.match(top, new RegExp(`\\n  ${kind} +${info.summary}`), `--help lists ${kind}`);
    const r = await runLedger(['tx', kind, '--help'], { cwd });
    t.equal(r.code, 0);
    t.match(r.stdout, new RegExp(`^ledger tx ${kind}: .*\\(a ${info.payload} transaction\\)\\n\\nUsage: ledger tx ${kind} --key <file>`), `${kind} has its own help`);
    t.match(r.stdout, new RegExp(`Example:\\n  ledger tx ${kind} `));
    t.match(r.stdout, /\n {2}--key <file>/);
    t.equal((await runLedger(['help', 'tx', kind], { cwd })).stdout, r.stdout, `help tx ${kind} says the same`);
  }
  const transfer = (await runLedger(['tx', 'transfer', '--help'], { cwd })).stdout;
  t.match(transfer, /--to <address>/);
  t.notMatch(transfer, /--guardian|--credential|Examples:/, 'no other kind\'s flags or examples');
  const recover = (await runLedger(['tx', 'did-recover', '--help'], { cwd })).stdout;
  t.match(recover, /--signature <did>=<hex>/);
  t.notMatch(recover, /--to |--amount/);
  t.match((await runLedger(['tx', '--help'], { cwd })).stdout, /^ledger tx: sign a transaction/, 'tx --help stays the general help');
  t.match((await runLedger(['tx', 'nonsense', '--help'], { cwd })).stdout, /^ledger tx: sign a transaction/);
});
