import { pathToFileURL } from 'node:url';
import type { Plugin } from '../plugins/types.js';
import { isLedgerError } from '../errors.js';
import { RpcError, RpcTransportError } from '../client/errors.js';
import { devnetHelp, runDevnet } from './commands/devnet.js';
import { initHelp, runInit } from './commands/init.js';
import { keysHelp, runKeys } from './commands/keys.js';
import { recoveryHelp, runRecovery } from './commands/recovery.js';
import { reindexHelp, runReindex } from './commands/reindex.js';
import { rpcHelp, runRpc } from './commands/rpc.js';
import { runStart, startHelp } from './commands/start.js';
import { runTx, TX_KINDS, txHelp, txKindHelp } from './commands/tx.js';
import { packageVersion } from './package-root.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliIo } from './io.js';

interface Command {
  summary: string;
  help: string;
  /** help on a subject of the command (`ledger tx transfer --help`), if argv names one */
  helpFor?(argv: string[]): string | undefined;
  run(argv: string[], io: CliIo): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  init: { summary: 'create a data directory: genesis, validator and developer keys', help: initHelp, run: runInit },
  start: { summary: 'run the node (initializes ./data on first start)', help: startHelp, run: runStart },
  devnet: { summary: 'run N validators on this machine', help: devnetHelp, run: runDevnet },
  keys: { summary: 'create (keys new) and inspect (keys show) key files', help: keysHelp, run: runKeys },
  tx: { summary: 'sign and send a transaction (kinds below)', help: txHelp, helpFor: txKindHelp, run: runTx },
  rpc: { summary: 'call a JSON-RPC method and print the result', help: rpcHelp, run: runRpc },
  reindex: { summary: "drop a plugin's data (such as the explorer index) so it rebuilds", help: reindexHelp, run: runReindex },
  recovery: { summary: "sign a guardian's recovery of a DID (recovery sign)", help: recoveryHelp, run: runRecovery },
};

export const mainHelp = `ledger: a full node for a decentralized-identity blockchain

Usage: ledger <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`)
  .join('\n')}

Transaction kinds (ledger tx <kind>):
${Object.entries(TX_KINDS)
  .map(([kind, k]) => `  ${kind.padEnd(20)} ${k.summary}`)
  .join('\n')}

Run "ledger <command> --help" for a command's options and examples, "ledger tx <kind> --help" for a kind's.

Examples:
  ledger start
  ledger keys new --out alice.json
  ledger tx transfer --key data/keys/dev.json --to <address> --amount 10 --wait
  ledger rpc ledger_chainInfo`;

function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** Runs one command; never throws. Exit codes: 0 ok, 1 the command failed, 2 bad usage. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? rest[0] : undefined;
    const command = topic === undefined ? undefined : COMMANDS[topic];
    if (name === undefined) {
      io.stderr(mainHelp + '\n');
      return EXIT_USAGE;
    }
    io.stdout((command?.helpFor?.(rest.slice(1)) ?? command?.help ?? mainHelp) + '\n');
    return EXIT_OK;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${packageVersion()}\n`);
    return EXIT_OK;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr(`ledger: unknown command ${JSON.stringify(name)}. Commands: ${Object.keys(COMMANDS).join(', ')}. Run "ledger --help".\n`);
    return EXIT_USAGE;
  }
  if (wantsHelp(rest)) {
    io.stdout((command.helpFor?.(rest) ?? command.help) + '\n');
    return EXIT_OK;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`ledger ${name}: ${err.message}\nRun "ledger ${name} --help" for usage.\n`);
      return EXIT_USAGE;
    }
    if (err instanceof RpcError) {
      io.stderr(`ledger ${name}: JSON-RPC error ${err.code}${err.method ? ` from ${err.method}` : ''}: ${err.message}\n`);
      return EXIT_FAILURE;
    }
    if (err instanceof RpcTransportError || isLedgerError(err)) {
      io.stderr(`ledger ${name}: ${err.message}\n`);
      return EXIT_FAILURE;
    }
    io.stderr(`ledger ${name}: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT_FAILURE;
  }
}

export function processIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** The bin entry point, given the plugins of this build. `start` exits explicitly once the node has closed. */
export async function runCli(argv = process.argv.slice(2), plugins: readonly Plugin[] = []): Promise<void> {
  const code = await main(argv, { ...processIo(), plugins });
  if (argv[0] === 'start') process.exit(code);
  process.exitCode = code;
}

// Run directly (node --import <ts loader> node/cli/main.ts ...), not only through bin/ledger.js.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runCli();
