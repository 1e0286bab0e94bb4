import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The layout rules of the project, checked on the source: node/ never imports plugins/, no two
 * modules import each other (directly or around a circle), and the pure core (execution/ and the
 * consensus safety and pacing rules) reads no clock, no randomness and no I/O.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Relative imports and re-exports of a file, type-only ones included, as absolute .ts paths. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)\s[^'";]*?from\s+'(\.{1,2}\/[^']+)'/g)].map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
}

/** Strongly connected groups of more than one file (Tarjan). */
function circles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, imports(f).filter((d) => d !== f)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(relative(root, w));
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

const nodeFiles = sources(join(root, 'node'));
const pluginFiles = sources(join(root, 'plugins'));

t.test('node/ never imports from plugins/', async (t) => {
  const plugins = join(root, 'plugins');
  const offenders = nodeFiles.filter((f) => imports(f).some((d) => d.startsWith(plugins + '/')));
  t.same(offenders.map((f) => relative(root, f)), []);
});

t.test('no import circles in node/ or plugins/', async (t) => {
  t.same(circles([...nodeFiles, ...pluginFiles]), []);
});

t.test('the pure core reads no clock, no randomness and no I/O', async (t) => {
  const core = [...sources(join(root, 'node/execution')), join(root, 'node/consensus/safety.ts'), join(root, 'node/consensus/pacing.ts')];
  t.ok(core.length > 5, `${core.length} files checked`);
  const forbidden = [/from 'node:/, /\bDate\.now\(/, /\bnew Date\(/, /\bperformance\.now\(/, /\bMath\.random\(/, /\bprocess\./, /\bsetTimeout\(/, /\bsetInterval\(/];
  for (const file of core) {
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const re of forbidden) t.notOk(re.test(code), `${relative(root, file)} has no ${re.source}`);
  }
});
