import { RpcClient } from '../../client/rpc-client.js';
import { parseJson } from '../../protocol/json.js';
import { DEFAULT_RPC_URL, parseCommandArgs, printJson, rpcUrlFlag, UsageError, type CliIo } from '../io.js';

export const rpcHelp = `ledger rpc: call one JSON-RPC method and print its result as JSON

Usage: ledger rpc <method> [param ...] [--rpc <url>]

Each param is parsed as JSON if it parses (numbers, true, null, arrays, objects,
"quoted strings"), else passed as a plain string. Big integers stay exact. A JSON-RPC
error prints its code and message on stderr and exits 1. Put params that start with
"-" after "--".

Options:
  --rpc <url>   node JSON-RPC URL (default: $LEDGER_RPC_URL or ${DEFAULT_RPC_URL})

Examples:
  ledger rpc ledger_chainInfo
  ledger rpc ledger_getBalance 3JQmMsGbVaLaZTtzMmPd41x8mrVb
  ledger rpc ledger_getBlock 12
  ledger rpc ledger_getReceipt '"0123abcd..."'`;

export function parseParam(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

export async function runRpc(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs('rpc', argv, { rpc: { type: 'string' } }, true);
  const [method, ...params] = p.positionals;
  if (method === undefined) throw new UsageError('rpc needs a method name, e.g. ledger_chainInfo', 'rpc');
  const client = new RpcClient(rpcUrlFlag(p, io));
  printJson(io, await client.call(method, params.map(parseParam)));
  return 0;
}
