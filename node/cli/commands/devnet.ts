import { resolve } from 'node:path';
import { parsePluginList } from '../../config/resolve.js';
import { defaultConfig } from '../../config/schema.js';
import { MAX_DEVNET_VALIDATORS, prepareDevnet, type DevnetLayout } from '../../devnet/layout.js';
import { runDevnet as startChildren, tailLines } from '../../devnet/run.js';
import { intFlag, parseCommandArgs, stringFlag, UsageError, type CliIo } from '../io.js';
import { DEFAULT_EPOCH_LENGTH, MAX_EPOCH_LENGTH, MIN_EPOCH_LENGTH } from '../../protocol/params.js';

export const devnetHelp = `ledger devnet: run a local network of several validators on this machine

Usage: ledger devnet [options]

Generates one genesis for N validators and a data directory per node under <dir>
(reused on the next run with the same N, so the chain resumes; --reset starts over),
then runs one "ledger start" process per node. Node i serves JSON-RPC on
127.0.0.1:<rpc-port + i>, libp2p on 127.0.0.1:<p2p-port + i> and its plugins on their
default ports + 10 i; every node bootstraps from all the others. Each node logs to
<dir>/node-<i>/node.log. A node that dies is reported with the end of its log and the
others keep running. Ctrl-C (SIGINT) or SIGTERM stops every node and exits 0.

Options:
  --validators <n>   number of validators, 1-${MAX_DEVNET_VALIDATORS} (default: 4)
  --epoch-length <n> blocks per epoch, ${MIN_EPOCH_LENGTH}-${MAX_EPOCH_LENGTH} (default: ${DEFAULT_EPOCH_LENGTH}); short epochs
                     let you watch validators join and leave through Stake and Unstake
  --dir <dir>        where the devnet lives (default: ./data/devnet); a dir that holds
                     anything else than a devnet is refused
  --rpc-port <port>  JSON-RPC port of node 0 (default: 8545)
  --p2p-port <port>  libp2p port of node 0 (default: 30333)
  --plugins <list>   plugins on every node: all, none or a comma-separated list of
                     explorer,relay,kyc,wallet (default: all, as "ledger start")
  --reset            delete the devnet in <dir> and generate a new one
  --exit-on-failure  stop the whole devnet (exit 1) when one node dies
  --json             print one JSON line per node (index, address, rpc_url, p2p, log,
                     dir, pid), then {"ready":true,...} once every node answers
  -h, --help         show this help

The developer account funded at genesis is <dir>/genesis/keys/dev.json; use it with
"ledger tx ... --key <file> --rpc <node rpc url>".

Examples:
  ledger devnet
  ledger devnet --validators 7 --plugins none --reset
  ledger devnet --validators 4 --rpc-port 9000 --p2p-port 40000 --json`;

export async function runDevnet(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs('devnet', argv, {
    validators: { type: 'string' },
    'epoch-length': { type: 'string' },
    dir: { type: 'string' },
    'rpc-port': { type: 'string' },
    'p2p-port': { type: 'string' },
    plugins: { type: 'string' },
    reset: { type: 'boolean' },
    'exit-on-failure': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const validators = intFlag(p, 'validators', 'devnet', 1, MAX_DEVNET_VALIDATORS) ?? 4;
  const rpcPort = intFlag(p, 'rpc-port', 'devnet', 1, 65535 - validators) ?? defaultConfig().rpc.port;
  const p2pPort = intFlag(p, 'p2p-port', 'devnet', 1, 65535 - validators) ?? defaultConfig().p2p.port;
  const { plugins, unknown } = parsePluginList(stringFlag(p, 'plugins') ?? 'all');
  if (unknown !== undefined) throw new UsageError(`--plugins names an unknown plugin ${JSON.stringify(unknown)}`, 'devnet');
  const json = p.values.json === true;
  const exitOnFailure = p.values['exit-on-failure'] === true;

  const layout = await prepareDevnet({ dir: resolve(io.cwd, stringFlag(p, 'dir') ?? './data/devnet'), validators, epochLength: intFlag(p, 'epoch-length', 'devnet', MIN_EPOCH_LENGTH, MAX_EPOCH_LENGTH), rpcPort, p2pPort, plugins, reset: p.values.reset === true });
  let exitCode = 0;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((r) => (finish = r));
  let dead = 0;
  const net = startChildren(layout, {
    onExit: (node, code, signal) => {
      dead++;
      io.stderr(`ledger devnet: node ${node.index} exited (${signal ?? `code ${code}`}); last lines of ${node.log}:\n${tailLines(node.log, 15)}\n`);
      if (exitOnFailure) void shutdown('a node failed, and --exit-on-failure', 1);
      else if (dead === layout.nodes.length) void shutdown('every node has exited', 1);
    },
  });
  let closing = false;
  const shutdown = async (why: string, code: number) => {
    if (closing) return;
    closing = true;
    exitCode = code;
    io.stderr(`ledger devnet: stopping every node (${why})\n`);
    await net.stop();
    finish(exitCode);
  };
  const onSignal = (signal: NodeJS.Signals) => void shutdown(signal, 0);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  try {
    printNodes(io, layout, json, net.children.map((c) => c.proc.pid));
    await Promise.race([net.ready, done]);
    if (closing) {
      // stopped (a signal, or a node died with --exit-on-failure) before every node answered
    } else if (json) io.stdout(JSON.stringify({ ready: true, validators, reused: layout.reused, chain_id: layout.chainId, dev_key: layout.devKeyFile, dir: layout.dir }) + '\n');
    else {
      io.stdout(`\nAll ${validators} nodes answer ledger_canonHead. Ctrl-C stops them. Try:\n`);
      io.stdout(`  ledger tx transfer --key ${layout.devKeyFile} --rpc ${layout.nodes[0]!.rpcUrl} --to <address> --amount 1 --wait\n`);
    }
  } catch (err) {
    if (!closing) {
      io.stderr(`ledger devnet: ${(err as Error).message}\n`);
      void shutdown('start failed', 1);
    }
  }
  const code = await done;
  for (const s of signals) process.off(s, onSignal);
  return code;
}

function printNodes(io: CliIo, layout: DevnetLayout, json: boolean, pids: Array<number | undefined>): void {
  if (json) {
    for (const n of layout.nodes) io.stdout(JSON.stringify({ index: n.index, address: n.address, rpc_url: n.rpcUrl, p2p: n.p2p, log: n.log, dir: n.dir, pid: pids[n.index] }) + '\n');
    return;
  }
  io.stdout(`${layout.reused ? 'Resuming' : 'Created'} devnet ${layout.chainId} in ${layout.dir}\n`);
  io.stdout(`Developer account key: ${layout.devKeyFile}\n\n`);
  const rows = [['node', 'validator', 'rpc', 'p2p', 'log'], ...layout.nodes.map((n) => [String(n.index), n.address, n.rpcUrl, n.p2p, n.log])];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) io.stdout(r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd() + '\n');
}
