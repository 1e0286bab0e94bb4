import { pathToFileURL } from 'node:url';
import { isLedgerError } from '../errors.js';
import { RpcError, RpcTransportError } from '../client/errors.js';
import { TX_KINDS } from './commands/tx-kinds.js';
import { packageVersion } from './package-root.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliIo, type PluginEntry } from './io.js';

interface CommandModule {
  help: string;
  /** help on a subject of the command (`ledger tx transfer --help`), if argv names one */
  helpFor?(argv: string[]): string | undefined;
  run(argv: string[], io: CliIo): Promise<number>;
}

/** A command's module is imported only when that command runs, so each call loads only what it needs. */
interface Command {
  summary: string;
  load(): Promise<CommandModule>;
}

const COMMANDS: Record<string, Command> = {
  init: { summary: 'create a data directory: genesis, validator and developer keys', load: () => import('./commands/init.js').then((m) => ({ help: m.initHelp, run: m.runInit })) },
  start: { summary: 'run the node (initializes ./data on first start)', load: () => import('./commands/start.js').then((m) => ({ help: m.startHelp, run: m.runStart })) },
  devnet: { summary: 'run N validators on this machine', load: () => import('./commands/devnet.js').then((m) => ({ help: m.devnetHelp, run: m.runDevnet })) },
  keys: { summary: 'create (keys new) and inspect (keys show) key files', load: () => import('./commands/keys.js').then((m) => ({ help: m.keysHelp, run: m.runKeys })) },
  tx: { summary: 'sign and send a transaction (kinds below)', load: () => import('./commands/tx.js').then((m) => ({ help: m.txHelp, helpFor: m.txKindHelp, run: m.runTx })) },
  rpc: { summary: 'call a JSON-RPC method and print the result', load: () => import('./commands/rpc.js').then((m) => ({ help: m.rpcHelp, run: m.runRpc })) },
  reindex: { summary: "drop a plugin's data (such as the explorer index) so it rebuilds", load: () => import('./commands/reindex.js').then((m) => ({ help: m.reindexHelp, run: m.runReindex })) },
  'service-keys': { summary: "the plugins' service keys' secret: new-secret, rotate", load: () => import('./commands/service-keys.js').then((m) => ({ help: m.serviceKeysHelp, run: m.runServiceKeys })) },
  recovery: { summary: "sign a guardian's recovery of a DID (recovery sign)", load: () => import('./commands/recovery.js').then((m) => ({ help: m.recoveryHelp, run: m.runRecovery })) },
  verify: { summary: 'request a verification, present for one, read its response', load: () => import('./commands/verify.js').then((m) => ({ help: m.verifyHelp, run: m.runVerify })) },
};

function helpOf(command: CommandModule, argv: string[]): string {
  return command.helpFor?.(argv) ?? command.help;
}

export const mainHelp = `ledger: a full node for a decentralized-identity blockchain

Usage: ledger <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`)
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
    if (name === undefined) {
      io.stderr(mainHelp + '\n');
      return EXIT_USAGE;
    }
    const topic = name === 'help' && rest[0] !== undefined && Object.hasOwn(COMMANDS, rest[0]) ? COMMANDS[rest[0]] : undefined;
    io.stdout((topic ? helpOf(await topic.load(), rest.slice(1)) : mainHelp) + '\n');
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
  try {
    const loaded = await command.load();
    if (wantsHelp(rest)) {
      io.stdout(helpOf(loaded, rest) + '\n');
      return EXIT_OK;
    }
    return await loaded.run(rest, io);
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
export async function runCli(argv = process.argv.slice(2), plugins: readonly PluginEntry[] = []): Promise<void> {
  const code = await main(argv, { ...processIo(), plugins });
  if (argv[0] === 'start') process.exit(code);
  process.exitCode = code;
}

// Run directly (node --import <ts loader> node/cli/main.ts ...), not only through bin/ledger.js.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runCli();
