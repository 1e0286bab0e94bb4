import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import t, { type Test } from 'tap';
import { pluginOptions } from '../../../../../node/plugins/host.js';
import { CONFIG_FLAGS } from '../../../../../node/cli/commands/start.js';
import { parseCommandArgs } from '../../../../../node/cli/io.js';
import { resolveConfig } from '../../../../../node/config/resolve.js';
import { isLedgerError } from '../../../../../node/errors.js';
import { parseRelayConfig } from '../../../../../plugins/relay/config.js';
import { didKeyFromSeed } from '../../../../../plugins/relay/wire/dids/did-key.js';
import { encodeMultikey } from '../../../../../plugins/relay/wire/dids/document.js';
import { mediatorKeysFileText, parseMediatorKeys, readMediatorKeysFile } from '../../../../../plugins/relay/wire/dids/mediator-keys.js';

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const HEX = Buffer.from(SEED).toString('hex');
const B64 = Buffer.from(SEED).toString('base64url');
const WHERE = 'plugins.relay.keys';

/** the error's message and field; the check that no secret is in it is made on every one */
function refusal(t: Test, fn: () => unknown): { message: string; field: unknown } {
  try {
    fn();
  } catch (err) {
    if (!isLedgerError(err)) throw err;
    t.equal(err.code, 'CONFIG_INVALID');
    t.notOk(err.message.includes(HEX) || err.message.includes(B64) || JSON.stringify(err.data).includes(HEX), 'the secret is not in the error');
    return { message: err.message, field: err.data['field'] };
  }
  throw new Error('no error');
}

t.test('a keys object: the seed as hex or base64url, checked fields', async (t) => {
  for (const encoded of [HEX, B64]) {
    const keys = parseMediatorKeys({ ed25519: encoded }, WHERE);
    t.same(keys.ed25519Seed, SEED, `${encoded.length} characters decode to the seed`);
    t.equal(keys.source, WHERE);
    t.notOk(JSON.stringify(keys).includes(B64) || JSON.stringify(keys).includes('ed25519Seed'), 'JSON of the keys has no seed');
    t.notOk(inspect(keys).includes('ed25519Seed'), 'nor has inspecting them (what a logger prints)');
  }
  const id = didKeyFromSeed(SEED);
  t.same(parseMediatorKeys({ ed25519: B64, x25519: encodeMultikey('X25519', id.x25519PublicKey), did: id.did }, WHERE).ed25519Seed, SEED, 'x25519 and did that match are accepted');

  const other = didKeyFromSeed(Uint8Array.from({ length: 32 }, () => 9));
  const cases: Array<[unknown, string, RegExp]> = [
    ['text', WHERE, /must be an object/],
    [[], WHERE, /must be an object/],
    [{}, `${WHERE}.ed25519`, /is missing/],
    [{ ed25519: B64, seed: B64 }, `${WHERE}.seed`, /is not a key field; allowed: ed25519, x25519, did/],
    [{ ed25519: 42 }, `${WHERE}.ed25519`, /must be a string/],
    [{ ed25519: HEX.slice(2) }, `${WHERE}.ed25519`, /64 hex characters or 43 base64url characters \(it has 62 characters\)/],
    [{ ed25519: `${B64}=` }, `${WHERE}.ed25519`, /it has 44 characters/],
    [{ ed25519: '00'.repeat(32) }, `${WHERE}.ed25519`, /all zeros/],
    [{ ed25519: B64, x25519: 'z6Mkabc' }, `${WHERE}.x25519`, /X25519 public multikey/],
    [{ ed25519: B64, x25519: encodeMultikey('X25519', other.x25519PublicKey) }, `${WHERE}.x25519`, /different identities/],
    [{ ed25519: B64, did: other.did }, `${WHERE}.did`, /is not the did:key of ed25519/],
  ];
  for (const [value, field, message] of cases) {
    const r = refusal(t, () => parseMediatorKeys(value, WHERE));
    t.equal(r.field, field, `${JSON.stringify(value).slice(0, 40)}: the field is named`);
    t.match(r.message, message);
    t.ok(r.message.startsWith(field), 'and the message starts with it');
  }
});

t.test('a keys file: owner-only, JSON, the same checks', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-keys-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'keys.json');
  await writeFile(file, mediatorKeysFileText(SEED), { mode: 0o600 });
  const keys = readMediatorKeysFile(file, 'plugins.relay.keysFile');
  t.same(keys.ed25519Seed, SEED, 'the file written for a seed reads back as that seed');
  for (const [argv, env] of [[[], { LEDGER_RELAY_KEYS_FILE: file }], [['--relay-keys-file', file], {}]] as const) {
    const section = resolveConfig({ env, flags: parseCommandArgs('start', [...argv], CONFIG_FLAGS).values }).plugins.relay;
    t.equal(section['keysFile'], file, `${argv[0] ?? 'LEDGER_RELAY_KEYS_FILE'} sets plugins.relay.keysFile`);
    t.same(parseRelayConfig(pluginOptions(section)).keys?.ed25519Seed, SEED, 'which the relay reads, from the options the plugin host hands it');
  }
  t.equal(keys.source, file);
  t.equal(JSON.parse(mediatorKeysFileText(SEED)).did, didKeyFromSeed(SEED).did, 'the file names its DID');

  await chmod(file, 0o644);
  t.match(refusal(t, () => readMediatorKeysFile(file, 'plugins.relay.keysFile')).message, /group or others may read \(mode 644\); chmod 600 it/);
  t.match(refusal(t, () => readMediatorKeysFile(join(dir, 'none.json'), 'plugins.relay.keysFile')).message, /cannot be read \(ENOENT\)/);
  t.match(refusal(t, () => readMediatorKeysFile(dir, 'plugins.relay.keysFile')).message, /which is not a file/);
  const bad = join(dir, 'bad.json');
  await writeFile(bad, `{"ed25519": "${B64}"`, { mode: 0o600 });
  t.match(refusal(t, () => readMediatorKeysFile(bad, 'plugins.relay.keysFile')).message, /which is not JSON/);
  await writeFile(bad, JSON.stringify({ ed25519: B64.slice(1) }), { mode: 0o600 });
  const r = refusal(t, () => readMediatorKeysFile(bad, 'plugins.relay.keysFile'));
  t.equal(r.field, `plugins.relay.keysFile (${bad}).ed25519`, 'a bad field in the file is named with the file');
});

t.test('plugins.relay config: keys or keysFile, not both', async (t) => {
  const base = { enabled: true, host: '127.0.0.1', port: 0 };
  t.equal(parseRelayConfig(base).keys, undefined, 'no keys configured: the store keeps them');
  t.same(parseRelayConfig({ ...base, keys: { ed25519: HEX } }).keys?.ed25519Seed, SEED, 'keys inline');
  t.match(refusal(t, () => parseRelayConfig({ ...base, keys: { ed25519: HEX }, keysFile: '/x' })).message, /exclusive/);
  t.match(refusal(t, () => parseRelayConfig({ ...base, keysFile: 7 })).message, /plugins.relay.keysFile must be the path of a keys file/);
});
