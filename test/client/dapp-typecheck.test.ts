import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The client as a dApp sees it once installed: a separate TypeScript project (strict, NodeNext,
 * declarations checked too) imports the package by its name and is compiled with `tsc`. Needs
 * the build (`npm test` builds first).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, { types: string; import: string }>;
  dependencies: Record<string, string>;
  files: string[];
};
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const clientTypes = join(root, pkg.exports['./client']!.types);

const good = `import { RpcClient, RpcError, createAccount, parseTokens, formatTokens, buildTransfer, signAndEncode, generateSeed, keyPairFromSeed, addressFromPublicKey, type Receipt, type SendingAccount } from '${pkg.name}/client';

const client = new RpcClient('http://127.0.0.1:8545', { timeoutMs: 5_000 });
const seed: Uint8Array = generateSeed();
const { publicKey } = keyPairFromSeed(seed);
const address: string = addressFromPublicKey(publicKey);
const account: SendingAccount = createAccount(client, seed);
const amount: bigint = parseTokens(1.5) + parseTokens('0.25');
export const text: string = formatTokens(amount);

export async function pay(to: string): Promise<Receipt | null> {
  const hash: string = await account.send((b) => buildTransfer({ ...b, to, amount }));
  return client.getReceipt(hash);
}

export async function balance(): Promise<bigint> {
  return client.getBalance(address);
}

export function offline(nonce: bigint): string {
  return signAndEncode('ledger-testnet-1', buildTransfer({ senderPubkey: publicKey, nonce, to: address, amount }), seed).json;
}

export function rpcCode(err: unknown): number | undefined {
  return err instanceof RpcError ? err.code : undefined;
}
`;

// each line a mistake that only real declarations catch: with `any` types all three compile
const bad = `import { RpcClient, parseTokens, buildTransfer } from '${pkg.name}/client';
export const balance: number = await new RpcClient('http://127.0.0.1:8545').getBalance('x');
export const amount = parseTokens(true);
export const tx = buildTransfer({ to: 'x', amount: 1n });
`;

function tsconfig(include: string) {
  return JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: false,
      types: ['node'],
      outDir: 'out',
    },
    include: [include],
  });
}

/** A dApp directory whose node_modules holds this package (the checkout itself) and its own tools. */
function dapp(t: Test): string {
  const dir = t.testdir({
    'package.json': JSON.stringify({ name: 'dapp', private: true, type: 'module', dependencies: { [pkg.name]: '*' } }),
    'tsconfig.json': tsconfig('index.ts'),
    'tsconfig.bad.json': tsconfig('bad.ts'),
    'index.ts': good,
    'bad.ts': bad,
    'check.mjs': `import * as dapp from './out/index.js';\nimport * as client from '${pkg.name}/client';\nconsole.log(JSON.stringify({ text: dapp.text, RpcClient: typeof client.RpcClient, createAccount: typeof client.createAccount }));\n`,
  });
  const link = (name: string, target: string) => {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(dir, 'node_modules', name), 'dir');
  };
  link(pkg.name, root);
  link('typescript', join(root, 'node_modules/typescript'));
  link('@types/node', join(root, 'node_modules/@types/node'));
  return dir;
}

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout + r.stderr };
}

t.test('a strict TypeScript dApp type-checks against the package, and runs', async (t) => {
  t.ok(existsSync(clientTypes), `${relative(root, clientTypes)} exists (npm run build)`);
  const dir = dapp(t);
  const ok = run([tsc, '-p', 'tsconfig.json'], dir);
  t.equal(ok.code, 0, ok.out);
  const check = run(['check.mjs'], dir);
  t.equal(check.code, 0, check.out);
  t.same(JSON.parse(check.out), { text: '1.75', RpcClient: 'function', createAccount: 'function' });
});

t.test('a dApp that misuses the client gets the type errors', async (t) => {
  const dir = dapp(t);
  const r = run([tsc, '-p', 'tsconfig.bad.json'], dir);
  t.not(r.code, 0);
  t.match(r.out, /bad\.ts\(2,\d+\): error TS2322: Type 'bigint' is not assignable to type 'number'/);
  t.match(r.out, /bad\.ts\(3,\d+\): error TS2345: Argument of type 'boolean'/);
  t.match(r.out, /bad\.ts\(4,\d+\): error TS2345:.*\n.*missing the following properties from type 'TxBase': senderPubkey, nonce/);
  t.equal(r.out.match(/error TS/g)?.length, 3, r.out);
});

t.test("the client's declarations import only the package's own files and its dependencies", async (t) => {
  const seen = new Set<string>();
  const external = new Map<string, string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\(\s*|import\s+|reference\s+types=)["']([^"']+)["']/g)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec.replace(/\.js$/, '.d.ts')));
      else external.set(spec, relative(root, file));
    }
  };
  walk(clientTypes);
  t.ok(seen.size > 10, `${seen.size} declaration files`);
  const packageName = (spec: string) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
  const foreign = [...external].filter(([spec]) => !(packageName(spec) in pkg.dependencies));
  t.same(foreign, [], 'every package they import is a dependency of this one');
});

t.test('npm pack ships the build, the CLI and the genesis template, not the sources or tests', async (t) => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  t.equal(r.status, 0, r.stderr);
  const [packed] = JSON.parse(r.stdout) as [{ name: string; files: { path: string }[] }];
  t.equal(packed.name, pkg.name);
  const files = packed.files.map((f) => f.path);
  for (const f of ['package.json', 'README.md', 'bin/ledger.js', 'genesis/testnet.json', 'dist/node/client/index.js', 'dist/node/client/index.d.ts', 'dist/node/cli/main.js', 'dist/plugins/index.js']) {
    t.ok(files.includes(f), `ships ${f}`);
  }
  t.same(files.filter((f) => /^(test|node|plugins|bench|scripts)\//.test(f) || /\.map$/.test(f) || (/\.ts$/.test(f) && !/\.d\.ts$/.test(f))), [], 'no sources, tests or source maps');
});
