import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../../node/cli/package-root.js';

/**
 * The hosted page's one string catalogue (static/strings.en.js): every key the page uses — in
 * index.html's data-i18n attributes, in the modules' t('…') calls, in messages.js's tables, and
 * the keys built from a step, side or document type — is in it; every translation has the same
 * keys and placeholders; and no visible English is left in the HTML or the modules.
 */

const root = packageRoot();
const dir = join(root, 'plugins/kyc/hosted/static');
const read = (name: string) => readFileSync(join(dir, name), 'utf8');
const load = async (name: string) => (await import(new URL(name, `file://${dir}/`).href)) as Record<string, unknown>;
const en = (await load('strings.en.js'))['default'] as Record<string, string>;
const messages = await load('messages.js');
const NAMESPACES = new Set(Object.keys(en).map((k) => k.split('.')[0]!));
const MODULES = ['app.js', 'steps.js', 'media.js', 'messages.js', 'brand.js', 'i18n.js'];

/** Keys the modules build at run time, from the values they are built from. */
const BUILT = [
  ...['document', 'liveness', 'address'].map((s) => `step.${s}`),
  ...['front', 'back'].map((s) => `doc.sideName.${s}`),
];

function usedKeys(): Map<string, string> {
  const used = new Map<string, string>();
  for (const m of read('index.html').matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g)) used.set(m[1]!, 'index.html');
  for (const name of MODULES) {
    const src = read(name);
    for (const m of src.matchAll(/\bt\(\s*'([^']+)'/g)) used.set(m[1]!, name);
    for (const m of src.matchAll(/new UserError\(\s*'([^']+)'/g)) used.set(m[1]!, name);
    for (const m of src.matchAll(/cameraError\(\s*'([^']+)'/g)) used.set(m[1]!, name);
    // a key chosen among several (`t(a ? 'x.one' : 'x.two')`, a returned key): any literal in a catalogue namespace
    for (const m of src.matchAll(/'([a-z]+)\.([A-Za-z0-9_.]+)'/g)) if (NAMESPACES.has(m[1]!)) used.set(`${m[1]}.${m[2]}`, name);
  }
  for (const key of Object.values(messages['ERROR_KEYS'] as Record<string, string>)) used.set(key, 'messages.js ERROR_KEYS');
  for (const key of Object.values(messages['REASON_KEYS'] as Record<string, unknown>)) {
    for (const k of typeof key === 'function' ? [1, 2, 3].map((level) => key(level) as string) : [key as string]) used.set(k, 'messages.js REASON_KEYS');
  }
  used.set(messages['GENERAL_REASON_KEY'] as string, 'messages.js');
  for (const key of BUILT) used.set(key, 'built at run time');
  for (const m of read('index.html').matchAll(/value="([a-z_]+)"/g)) if (read('index.html').includes(`data-i18n="doc.type.${m[1]}"`)) used.set(`doc.type.${m[1]}`, 'index.html');
  return used;
}

t.test('every key the page uses is in the catalogue', async (t) => {
  const used = usedKeys();
  t.ok(used.size > 100, `the scan finds the keys (${used.size})`);
  for (const [key, where] of used) t.ok(Object.hasOwn(en, key), `${key} (${where}) is in strings.en.js`);
  const unused = Object.keys(en).filter((k) => !used.has(k));
  t.same(unused, [], 'and the catalogue has no key nothing uses');
});

t.test('the scan fails on a key that is not there', async (t) => {
  t.notOk(Object.hasOwn(en, 'doc.nonexistent'));
  const i18n = await load('i18n.js');
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args.join(' '));
  try {
    t.equal((i18n['t'] as (k: string) => string)('doc.nonexistent'), '', 'people see nothing rather than a key');
  } finally {
    console.error = original;
  }
  t.same(errors, ['hosted page: no string doc.nonexistent'], 'and the console says which');
  t.equal((i18n['t'] as (k: string, p: object) => string)('doc.sideUploaded', { side: 'front', next: 'back' }), 'The front was uploaded. Now photograph the back.');
});

t.test('every translation has the same keys and placeholders as English', async (t) => {
  const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  const files = readdirSync(dir).filter((f) => /^strings\.[a-z]{2,3}\.js$/.test(f));
  t.ok(files.includes('strings.en.js'));
  const i18n = read('i18n.js');
  const serve = readFileSync(join(root, 'plugins/kyc/hosted/serve.ts'), 'utf8');
  for (const file of files) {
    t.match(i18n, `from './${file}'`, `i18n.js imports ${file}`);
    t.match(serve, `'${file}'`, `serve.ts serves ${file}`);
    const strings = (await load(file))['default'] as Record<string, string>;
    t.same(Object.keys(strings).sort(), Object.keys(en).sort(), `${file} has the same keys`);
    for (const [key, text] of Object.entries(strings)) {
      t.equal(typeof text, 'string', `${file} ${key}`);
      t.same(placeholders(text), placeholders(en[key] ?? ''), `${file} ${key} keeps its placeholders`);
    }
  }
});

t.test('no visible English outside the catalogue', async (t) => {
  const body = read('index.html').replace(/^[\s\S]*<body>/, '').replace(/<[^>]+>/g, '\n');
  t.same(body.split('\n').map((l) => l.trim()).filter(Boolean), [], 'index.html elements are filled from the catalogue');
  for (const attr of ['alt', 'aria-label', 'title', 'placeholder']) t.notMatch(read('index.html'), new RegExp(`\\s${attr}="[^"]+"`), `no ${attr} text in index.html`);
  for (const name of MODULES.filter((n) => n !== 'i18n.js')) {
    const code = read(name).replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const sentences = [...code.matchAll(/(['"`])([A-Z][a-z]+ [a-z]+[^'"`]*)\1/g)].map((m) => m[2]);
    t.same(sentences, [], `${name} has no sentence of its own`);
  }
});
