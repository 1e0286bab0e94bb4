import { resolve } from 'node:path';
import { guardianSignature } from '../../client/builder.js';
import { RpcClient } from '../../client/rpc-client.js';
import { readKeyFile } from '../../config/keyfile.js';
import { fromHex } from '../../protocol/bytes.js';
import { parseDid } from '../../protocol/did.js';
import { DEFAULT_RPC_URL, intFlag, parseCommandArgs, printJson, requireFlag, rpcUrlFlag, stringFlag, UsageError, type CliIo } from '../io.js';
import { usage } from './recovery-tx.js';

/** `ledger recovery sign`: a guardian's signature for a DidRecover, made offline or with the node's help. */

export const recoveryHelp = `ledger recovery: social recovery of a DID

Usage: ledger recovery sign --key <file> --did <did> --new-public-key <hex> [options]

recovery sign makes a guardian's signature for moving <did> to a new key, with the guardian's
key file. It prints the --signature argument of "ledger tx did-recover". The signature covers
the chain id and the DID's current version_id: it is void once the DID changes. Both are read
from the node unless given, so with --chain-id and --version-id it works offline.

Options:
  --key <file>             the guardian's key file (required)
  --did <did>              the DID being recovered (required)
  --new-public-key <hex>   the Ed25519 public key that is to control it (required)
  --guardian <did>         the guardian's DID (default: the key file's DID)
  --version-id <n>         the DID's version_id (default: from ledger_didResolve)
  --chain-id <id>          the chain id (default: from ledger_chainInfo)
  --rpc <url>              node JSON-RPC URL (default: $LEDGER_RPC_URL or ${DEFAULT_RPC_URL})

Examples:
  ledger recovery sign --key guardian.json --did did:ledger:testnet:3JQm... --new-public-key 3d40...660c
  ledger recovery sign --key guardian.json --did did:ledger:testnet:3JQm... --new-public-key 3d40...660c \\
    --version-id 2 --chain-id ledger-testnet-1`;

async function recoverySign(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs('recovery', argv, {
    key: { type: 'string' },
    did: { type: 'string' },
    'new-public-key': { type: 'string' },
    guardian: { type: 'string' },
    'version-id': { type: 'string' },
    'chain-id': { type: 'string' },
    rpc: { type: 'string' },
  });
  const did = usage('recovery', () => parseDid(requireFlag(p, 'did', 'recovery')).did);
  const newPublicKey = usage('recovery', () => fromHex(requireFlag(p, 'new-public-key', 'recovery'), 32, '--new-public-key'));
  const guardianFlag = stringFlag(p, 'guardian');
  if (guardianFlag !== undefined) usage('recovery', () => parseDid(guardianFlag));
  let versionId = intFlag(p, 'version-id', 'recovery', 1, Number.MAX_SAFE_INTEGER);
  let chainId = stringFlag(p, 'chain-id');
  const key = await readKeyFile(resolve(io.cwd, requireFlag(p, 'key', 'recovery')));
  if (chainId === undefined || versionId === undefined) {
    const client = new RpcClient(rpcUrlFlag(p, io));
    chainId ??= (await client.chainInfo()).chain_id;
    if (versionId === undefined) {
      const doc = await client.didResolve(did);
      if (!doc) throw new UsageError(`the node does not know ${did}`, 'recovery');
      versionId = Number(doc.version_id);
    }
  }
  const guardian = guardianFlag ?? key.did;
  const signature = guardianSignature({ chainId, did, newPublicKey, versionId, guardianSeed: key.seed });
  printJson(io, { guardian, signature, did, version_id: versionId, chain_id: chainId, signature_arg: `${guardian}=${signature}` });
  return 0;
}

export async function runRecovery(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'sign') return recoverySign(rest, io);
  throw new UsageError(sub === undefined ? 'recovery needs a subcommand: sign' : `unknown recovery subcommand ${JSON.stringify(sub)}; use sign`, 'recovery');
}
