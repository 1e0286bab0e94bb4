import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateAccountKey } from '../../../node/config/keyfile.js';
import { startNodeProcess, tempDataDir } from '../../e2e/harness.js';

/**
 * The light client as a dApp gets it from the registry: `npm pack` of packages/client, installed
 * alone into a fresh project, counted, type-checked by a strict NodeNext project and run against
 * a real node process with the explorer. Needs the build (`npm test` builds first) and the npm
 * registry (the package's dependencies are downloaded like a dApp's would be).
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const pkgDir = join(root, 'packages/client');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };
const MAX_PACKAGES = 10;

const dapp = `import { createAccount, formatTokens, loadKeyFile, parseTokens, RpcClient, subscribeBlocks, type ExplorerBlock, type KeyFile, type Receipt, type SentTransaction } from '${pkg.name}';
import { WebSocket } from 'ws';

const [rpcUrl, explorerUrl, keyPath, to] = process.argv.slice(2) as [string, string, string, string];
const key: KeyFile = await loadKeyFile(keyPath);
const client = new RpcClient(rpcUrl);
const account = createAccount(client, key.seed);

let height = '';
let resolveBlock!: (b: ExplorerBlock) => void;
const seen = new Promise<ExplorerBlock>((resolve) => (resolveBlock = resolve));
const blocks: ExplorerBlock[] = [];
const check = () => blocks.filter((b) => b.height === height).forEach(resolveBlock);
// Node.js 20 has no global WebSocket: the dApp passes ws's
const feed = subscribeBlocks(explorerUrl, (b) => (blocks.push(b), check()), { WebSocket });
await feed.ready;

const sent: SentTransaction = await account.sendTransaction({ to, value: parseTokens('1.5') });
const receipt: Receipt = await sent.wait({ timeoutMs: 30_000 });
height = String(receipt.block_height);
check();
const block = await seen;
feed.close();
await feed.done;
const balance: bigint = await client.getBalance(to);
console.log(JSON.stringify({ status: receipt.status, balance: formatTokens(balance), same: receipt.tx_hash === sent.hash, txCount: block.tx_count, from: key.address === account.address }));
`;

// each line a mistake the declarations must catch
const bad = `import { createAccount, RpcClient, subscribeBlocks } from '${pkg.name}';
const account = createAccount(new RpcClient('http://127.0.0.1:8545'), new Uint8Array(32));
export const a = account.sendTransaction({ to: 'x', value: 1 });
export const b = subscribeBlocks('http://127.0.0.1:8081', (block) => block.height.toFixed());
`;

const credentials = `try {
  await import('${pkg.name}/credentials');
  console.log('loaded');
} catch (err) {
  console.log(JSON.stringify({ code: err.code, message: err.message }));
}
`;

function tsconfig(include: string) {
  return JSON.stringify({
    compilerOptions: { target: 'ES2022', lib: ['ES2023'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, types: ['node'], outDir: 'out' },
    include: [include],
  });
}

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 170_000, env: { ...process.env, NODE_OPTIONS: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

t.setTimeout(600_000);

t.test('packed alone, installed alone: at most 10 packages, a strict dApp type-checks and runs against a real node', async (t) => {
  t.ok(existsSync(join(pkgDir, 'dist/node/client/core.d.ts')), 'packages/client is built (npm run build)');
  // outside the checkout: Node.js and tsc would otherwise find the node's own node_modules
  const dir = mkdtempSync(join(tmpdir(), 'ledger-dapp-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const project = {
    'package.json': JSON.stringify({ name: 'dapp', private: true, type: 'module' }),
    'tsconfig.json': tsconfig('index.ts'),
    'tsconfig.bad.json': tsconfig('bad.ts'),
    'index.ts': dapp,
    'bad.ts': bad,
    'credentials.mjs': credentials,
  };
  for (const [name, text] of Object.entries(project)) writeFileSync(join(dir, name), text);

  const packed = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], pkgDir);
  t.equal(packed.code, 0, packed.err);
  const [info] = JSON.parse(packed.out) as [{ filename: string; files: { path: string }[] }];
  const files = info.files.map((f) => f.path);
  t.ok(files.includes('dist/node/client/core.js') && files.includes('dist/node/client/credentials.d.ts') && files.includes('README.md'), 'ships both entries and the README');
  t.same(files.filter((f) => !/^(package\.json|README\.md|dist\/.*\.(js|d\.ts))$/.test(f)), [], 'nothing but the build, package.json and README');
  t.same(files.filter((f) => /crypto\/(bbs|ecvrf)|consensus\/|rpc\/|state\//.test(f)), [], 'no node internals the client does not import');

  const installed = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', join(dir, info.filename)], dir);
  t.equal(installed.code, 0, installed.err);
  const lock = JSON.parse(readFileSync(join(dir, 'node_modules/.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  const names = Object.keys(lock.packages).map((p) => p.replace(/^.*node_modules\//, '')).sort();
  t.ok(names.length <= MAX_PACKAGES, `${names.length} packages installed: ${names.join(', ')}`);
  t.same(names, [pkg.name, ...Object.keys(pkg.dependencies)].sort(), 'the package and its dependencies, none of the optional peers');

  // the dApp's own tools, beside what npm installed (counted above without them)
  for (const name of ['typescript', '@types/node', 'ws', '@types/ws']) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  }
  const tsc = join(dir, 'node_modules/typescript/bin/tsc');
  const compiled = run(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
  t.equal(compiled.code, 0, compiled.out + compiled.err);
  const refused = run(process.execPath, [tsc, '-p', 'tsconfig.bad.json'], dir);
  t.match(refused.out, /bad\.ts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'bigint'/);
  t.match(refused.out, /bad\.ts\(4,\d+\): error TS2551: Property 'toFixed' does not exist on type 'string'/);
  t.equal(refused.out.match(/error TS/g)?.length, 2, refused.out);

  const noPeers = run(process.execPath, ['credentials.mjs'], dir);
  t.match(JSON.parse(noPeers.out), { code: 'MISSING_PEER_DEPENDENCY', message: /needs the package jsonld, which is not installed: npm install jsonld / }, 'the credentials entry names what to install');

  const data = await tempDataDir(t);
  const node = await startNodeProcess(t, data, { plugins: { explorer: 0 }, logLevel: 'warn' });
  const to = generateAccountKey('testnet').address;
  const ran = run(process.execPath, ['out/index.js', node.url, node.plugins.explorer!, join(data, 'keys/dev.json'), to], dir);
  t.equal(ran.code, 0, ran.err);
  t.same(JSON.parse(ran.out), { status: 'success', balance: '1.5', same: true, txCount: 1, from: true });
});
