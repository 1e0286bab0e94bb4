import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { initDataDir } from '../cli/commands/init.js';
import { dataPaths, serviceKeySecretPath, validatorKeyPath } from '../config/datadir.js';
import { secureKeysDir } from '../config/keyfile.js';
import { LedgerError } from '../errors.js';
import { PLUGIN_DEFAULT_PORTS, PLUGIN_NAMES, type PluginName } from '../config/schema.js';
import { DEFAULT_EPOCH_LENGTH } from '../protocol/params.js';

/**
 * A local network of N validators on this machine:
 *   <dir>/devnet.json      what was generated (validators, chain id, dev key), to reuse the dir
 *   <dir>/genesis/         the `ledger init --validators N` output: genesis and every key
 *   <dir>/node-<i>/        node i's data dir: genesis.json, keys/validator.json (validator i),
 *                          secrets/service-keys.secret (the devnet's one service-key secret),
 *                          config.json with its ports and the others as bootstrap peers
 * Node i listens on rpcPort + i and p2pPort + i; its plugins on their default ports + 10 i.
 * Regenerating deletes only those entries, and a non-empty dir that holds anything else is refused,
 * so that a mistyped --dir never wipes someone's files.
 */

export interface DevnetOptions {
  dir: string;
  validators: number;
  /** blocks per epoch (default 100) */
  epochLength?: number;
  rpcPort: number;
  p2pPort: number;
  /** plugins to turn on in every node */
  plugins: PluginName[];
  /** regenerate even if the dir holds a devnet of the same size */
  reset?: boolean;
}

export interface DevnetNode {
  index: number;
  dir: string;
  address: string;
  rpcUrl: string;
  rpcPort: number;
  p2pPort: number;
  p2p: string;
  log: string;
}

export interface DevnetLayout {
  dir: string;
  chainId: string;
  devKeyFile: string;
  /** true when an existing devnet was reused (its chains resume) */
  reused: boolean;
  nodes: DevnetNode[];
}

interface Manifest {
  chain_id: string;
  validators: string[];
  epoch_length?: number;
}

const MANIFEST = 'devnet.json';
export const DEVNET_CHAIN_ID = 'ledger-devnet-1';
export const MAX_DEVNET_VALIDATORS = 32;

export async function prepareDevnet(o: DevnetOptions): Promise<DevnetLayout> {
  const dir = resolve(o.dir);
  const genesisDir = join(dir, 'genesis');
  let manifest = await readManifest(dir);
  const epochLength = o.epochLength ?? DEFAULT_EPOCH_LENGTH;
  const reused = !o.reset && manifest?.validators.length === o.validators && (manifest.epoch_length ?? DEFAULT_EPOCH_LENGTH) === epochLength;
  if (!reused) {
    await clearDevnetDir(dir);
    await mkdir(dir, { recursive: true });
    const summary = await initDataDir({ dataDir: genesisDir, validators: o.validators, chainId: DEVNET_CHAIN_ID, epochLength });
    manifest = { chain_id: summary.chain_id, validators: summary.validators.map((v) => v.address), epoch_length: epochLength };
    await writeFile(join(dir, MANIFEST), JSON.stringify(manifest, null, 2) + '\n');
  }
  const nodes = manifest!.validators.map((address, index) => nodeOf(dir, o, index, address));
  for (const n of nodes) {
    const paths = dataPaths(n.dir);
    // A node dir removed by hand is laid out again (its chain then syncs from the others): without
    // its genesis, `ledger start` would initialize a one-validator chain of its own.
    await mkdir(n.dir, { recursive: true });
    await secureKeysDir(paths.keysDir);
    if (!existsSync(paths.genesis)) await copyFile(dataPaths(genesisDir).genesis, paths.genesis);
    if (!existsSync(paths.validatorKey)) await copyPrivateFile(validatorKeyPath(genesisDir, n.index), paths.validatorKey);
    // One service-key secret for the devnet, the one init sealed genesis/keys/service-*.json
    // under: a service key file copied from there into a node opens in it. A node that already
    // has a secret keeps it, since what its plugins stored is sealed under it.
    const secret = serviceKeySecretPath(genesisDir);
    if (existsSync(secret) && !existsSync(serviceKeySecretPath(n.dir))) await copyPrivateFile(secret, serviceKeySecretPath(n.dir));
    // Ports and plugins follow this run's flags, so the config is written every time.
    await writeFile(paths.config, JSON.stringify(nodeConfig(o, n, nodes), null, 2) + '\n');
  }
  return { dir, chainId: manifest!.chain_id, devKeyFile: dataPaths(genesisDir).devKey, reused, nodes };
}

/** A copy private to the node's user: 0600 in a 0700 directory, as a start checks a secret file. */
async function copyPrivateFile(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true, mode: 0o700 });
  await copyFile(from, to);
  await chmod(to, 0o600);
}

function nodeOf(dir: string, o: DevnetOptions, index: number, address: string): DevnetNode {
  const nodeDir = join(dir, `node-${index}`);
  const rpcPort = o.rpcPort + index;
  const p2pPort = o.p2pPort + index;
  return { index, dir: nodeDir, address, rpcUrl: `http://127.0.0.1:${rpcPort}`, rpcPort, p2pPort, p2p: `/ip4/127.0.0.1/tcp/${p2pPort}`, log: join(nodeDir, 'node.log') };
}

function nodeConfig(o: DevnetOptions, n: DevnetNode, all: DevnetNode[]) {
  const plugins = Object.fromEntries(
    PLUGIN_NAMES.map((p) => [p, { enabled: o.plugins.includes(p), host: '127.0.0.1', port: PLUGIN_DEFAULT_PORTS[p] + 10 * n.index }]),
  );
  return {
    rpc: { host: '127.0.0.1', port: n.rpcPort },
    p2p: { host: '127.0.0.1', port: n.p2pPort, bootstrap: all.filter((x) => x !== n).map((x) => x.p2p) },
    plugins,
  };
}

const OWN_ENTRY = /^(devnet\.json|genesis|node-\d+)$/;

/** Deletes a previous devnet in `dir`; refuses when `dir` holds anything a devnet does not write. */
async function clearDevnetDir(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const foreign = entries.filter((e) => !OWN_ENTRY.test(e));
  if (foreign.length > 0) {
    throw new LedgerError('NOT_A_DEVNET_DIR', `${dir} is not empty and is not a devnet (it holds ${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}); pick another --dir`, 'conflict', { dir });
  }
  for (const e of entries) await rm(join(dir, e), { recursive: true, force: true });
}

async function readManifest(dir: string): Promise<Manifest | undefined> {
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) return undefined;
  try {
    const m = JSON.parse(await readFile(file, 'utf8')) as Manifest;
    return typeof m.chain_id === 'string' && Array.isArray(m.validators) ? m : undefined;
  } catch {
    return undefined;
  }
}
