import t from 'tap';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readKeyFile } from '../../node/config/keyfile.js';
import { runLedger } from './fixtures/io.js';

t.test('keys new writes a 0600 key file and prints only public parts', async (t) => {
  const cwd = t.testdir({});
  const r = await runLedger(['keys', 'new', '--out', 'alice.json'], { cwd });
  t.equal(r.code, 0, r.stderr);
  const out = r.json();
  t.same(Object.keys(out), ['kind', 'address', 'did', 'public_key', 'file']);
  t.equal(out.file, join(cwd, 'alice.json'));
  t.equal(statSync(out.file).mode & 0o777, 0o600);
  const key = await readKeyFile(out.file);
  t.equal(key.address, out.address);
  t.equal(out.did, `did:ledger:testnet:${out.address}`);
  const secret = JSON.parse(readFileSync(out.file, 'utf8')).secret_key;
  t.notMatch(r.stdout, secret, 'the secret is never printed');

  const again = await runLedger(['keys', 'new', '--out', 'alice.json'], { cwd });
  t.equal(again.code, 1);
  t.match(again.stderr, /already exists; refusing to overwrite it/);
  t.equal((await readKeyFile(out.file)).address, out.address);
  const forced = await runLedger(['keys', 'new', '--out', 'alice.json', '--force'], { cwd });
  t.equal(forced.code, 0);
  t.not(forced.json().address, out.address);
});

t.test('keys new defaults to <data-dir>/keys/<address>.json; --validator adds BLS', async (t) => {
  const cwd = t.testdir({});
  const r = await runLedger(['keys', 'new', '--validator', '--network', 'devnet'], { cwd });
  t.equal(r.code, 0, r.stderr);
  const out = r.json();
  t.equal(out.kind, 'validator');
  t.match(out.bls_public_key, /^[0-9a-f]{96}$/);
  t.equal(out.file, join(cwd, 'data', 'keys', `${out.address}.json`));
  t.equal(statSync(join(cwd, 'data', 'keys')).mode & 0o777, 0o700);
  t.match(out.did, /^did:ledger:devnet:/);
});

t.test('keys show prints public parts and validates the file', async (t) => {
  const cwd = t.testdir({ 'broken.json': JSON.stringify({ type: 'ed25519' }) });
  const made = (await runLedger(['keys', 'new', '--out', 'k.json'], { cwd })).json();
  const shown = await runLedger(['keys', 'show', 'k.json'], { cwd });
  t.equal(shown.code, 0);
  t.same(shown.json(), made);
  const broken = await runLedger(['keys', 'show', 'broken.json'], { cwd });
  t.equal(broken.code, 1);
  t.match(broken.stderr, /key file .*broken\.json: missing string field "public_key"/);
  t.equal((await runLedger(['keys', 'show'], { cwd })).code, 2);
});

t.test('keys show reads a service key file without its secret: the public part, checked', async (t) => {
  const cwd = t.testdir({});
  const init = (await runLedger(['init', '--data-dir', 'd'], { cwd })).json();
  const kyc = init.service_accounts.find((a: { plugin: string }) => a.plugin === 'kyc');
  const shown = await runLedger(['keys', 'show', 'd/keys/service-kyc.json'], { cwd });
  t.equal(shown.code, 0, shown.stderr);
  t.match(shown.json(), { kind: 'service', address: kyc.address, did: `did:ledger:testnet:${kyc.address}`, public_key: /^[0-9a-f]{64}$/, file: kyc.key_file });
  const altered = JSON.parse(readFileSync(kyc.key_file, 'utf8'));
  writeFileSync(join(cwd, 'altered.json'), JSON.stringify({ ...altered, did: init.dev_account.did }));
  const refused = await runLedger(['keys', 'show', 'altered.json'], { cwd });
  t.equal(refused.code, 1);
  t.equal(refused.stderr, `ledger keys: key file ${join(cwd, 'altered.json')}: did ${init.dev_account.did} does not match the public key\n`);
});
