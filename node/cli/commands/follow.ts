import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { buildGenesisBlock } from '../../chain/genesis-block.js';
import { RpcClient } from '../../client/rpc-client.js';
import { dataPaths } from '../../config/datadir.js';
import { generateValidatorKey, readValidatorKeyFile, secureKeysDir, writeKeyFile } from '../../config/keyfile.js';
import { LedgerError } from '../../errors.js';
import { addressBytesFromPublicKey, formatAddress } from '../../protocol/address.js';
import { bytesEqual, toHex } from '../../protocol/bytes.js';
import { genesisToJson, parseGenesis, type Genesis } from '../../protocol/genesis.js';
import { parseJson } from '../../protocol/json.js';
import { writeFileAtomic } from './init.js';

/**
 * `ledger start --follow <rpc url>`: a node that follows a network without voting, for a relay or
 * explorer instance beside the validators (docs/operators.md, "Following a network"). Before the
 * node starts, this asks the followed node for its genesis and its libp2p addresses, checks the
 * genesis against the hash the node reports, writes it (or checks the one already there), makes a
 * node key that no genesis lists, and returns the addresses to dial.
 */

export interface FollowPlan {
  chainId: string;
  genesisHash: string;
  /** the followed node's multiaddrs, with an unspecified host replaced by the URL's */
  bootstrap: string[];
  /** what this run wrote: `genesis.json` and the node key, on the first run only */
  wrote: string[];
}

export async function prepareFollower(dataDir: string, rpcUrl: string, opts: { fetch?: typeof fetch } = {}): Promise<FollowPlan> {
  const client = new RpcClient(rpcUrl, { timeoutMs: 10_000, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
  const reach = <T>(what: string, call: () => Promise<T>): Promise<T> =>
    call().catch((err: unknown) => {
      throw new LedgerError('FOLLOW_UNREACHABLE', `--follow ${rpcUrl}: ${what} failed: ${(err as Error).message}`, 'invalid', { url: rpcUrl });
    });
  const [info, node, genesisJson] = await Promise.all([
    reach('ledger_chainInfo', () => client.chainInfo()),
    reach('ledger_nodeInfo', () => client.nodeInfo()),
    reach('ledger_getGenesis', () => client.call<unknown>('ledger_getGenesis')),
  ]);
  const genesis = parseGenesis(genesisJson);
  const hash = toHex((await buildGenesisBlock(genesis)).block.hash);
  if (hash !== info.genesis_hash) {
    throw new LedgerError('FOLLOW_GENESIS_MISMATCH', `--follow ${rpcUrl}: the genesis it serves hashes to ${hash}, but it reports ${info.genesis_hash}`, 'conflict');
  }
  if (genesis.chainId !== info.chain_id) {
    throw new LedgerError('FOLLOW_GENESIS_MISMATCH', `--follow ${rpcUrl}: its genesis names chain ${genesis.chainId}, but it reports ${info.chain_id}`, 'conflict');
  }
  if (!node.p2p || node.p2p.addresses.length === 0) {
    throw new LedgerError('FOLLOW_UNREACHABLE', `--follow ${rpcUrl}: the node reports no libp2p address to dial`, 'invalid');
  }

  const paths = dataPaths(dataDir);
  const wrote: string[] = [];
  if (existsSync(paths.genesis)) {
    const local = parseGenesis(parseJson(await readFile(paths.genesis, 'utf8')));
    const localHash = toHex((await buildGenesisBlock(local)).block.hash);
    if (localHash !== hash) {
      throw new LedgerError('FOLLOW_GENESIS_MISMATCH', `${paths.genesis} is the genesis of another chain (${local.chainId}, ${localHash}) than ${rpcUrl} runs (${genesis.chainId}, ${hash}); use another --data-dir`, 'conflict');
    }
  }
  if (!existsSync(paths.validatorKey)) {
    await secureKeysDir(paths.keysDir);
    await writeKeyFile(paths.validatorKey, generateValidatorKey(genesis.network));
    wrote.push(paths.validatorKey);
  }
  await refuseValidatorKey(genesis, paths.validatorKey);
  if (!existsSync(paths.genesis)) {
    // written last: its presence marks the data dir as initialized (as `ledger init` does)
    await writeFileAtomic(paths.genesis, JSON.stringify(genesisToJson(genesis), null, 2) + '\n');
    wrote.push(paths.genesis);
  }
  return { chainId: genesis.chainId, genesisHash: hash, bootstrap: dialable(node.p2p.addresses, new URL(rpcUrl).hostname), wrote };
}

/** A follower signing with a validator's key would vote beside that validator: never. */
async function refuseValidatorKey(genesis: Genesis, file: string): Promise<void> {
  const key = await readValidatorKeyFile(file);
  const address = addressBytesFromPublicKey(key.publicKey);
  if (genesis.validators.some((v) => bytesEqual(v.address, address))) {
    throw new LedgerError('FOLLOW_VALIDATOR_KEY', `${file} is the key of genesis validator ${formatAddress(address)}: a follower must not vote; use another --data-dir`, 'conflict', { file });
  }
}

/**
 * The addresses to dial: a node listening on every interface (0.0.0.0 or ::) lists its own
 * interface addresses, which may include ones this host cannot reach, so each unspecified or
 * loopback host of a remote node is replaced by the host the RPC URL names.
 */
export function dialable(addresses: readonly string[], rpcHost: string): string[] {
  const host = rpcHost.replace(/^\[|\]$/g, '');
  const family = isIP(host) === 6 ? 'ip6' : isIP(host) === 4 ? 'ip4' : 'dns';
  const remote = !['localhost', '127.0.0.1', '::1'].includes(host);
  const out = new Set<string>();
  for (const addr of addresses) {
    const m = /^\/(ip4|ip6|dns|dns4|dns6)\/([^/]+)(\/.*)$/.exec(addr);
    if (!m) continue;
    const [, proto, h, rest] = m as unknown as [string, string, string, string];
    const unspecified = h === '0.0.0.0' || h === '::';
    const loopback = h === '127.0.0.1' || h === '::1' || h === 'localhost';
    if (unspecified || (loopback && remote)) out.add(`/${family}/${host}${rest}`);
    else if (!remote || !loopback) out.add(`/${proto}/${h}${rest}`);
  }
  return [...out];
}
