import t from 'tap';
import { chmodSync, chownSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../node/config/load.js';
import { readSecretFile, resolveServiceKeySecret, SERVICE_KEY_SECRET_ENV, writeSecretFile } from '../../node/config/service-key-secret.js';

const mode = (path: string) => statSync(path).mode & 0o777;
const text = (s: { bytes: Uint8Array }) => new TextDecoder().decode(s.bytes);
const posix = process.platform !== 'win32';

function secretFile(dir: string, name: string, content: string, fileMode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, fileMode);
  return path;
}

t.test('the sources in order: the environment, the configured file, the data directory', async (t) => {
  const dir = t.testdir({});
  const file = secretFile(dir, 'file.secret', 'a-secret-from-a-file\n');
  const env = { [SERVICE_KEY_SECRET_ENV]: 'a-secret-from-the-environment' };

  const fromEnv = await resolveServiceKeySecret({ env, file, dataDir: dir });
  t.match(fromEnv, { kind: 'env', source: `the environment variable ${SERVICE_KEY_SECRET_ENV}`, generated: false });
  t.equal(text(fromEnv), 'a-secret-from-the-environment');

  const fromFile = await resolveServiceKeySecret({ env: { [SERVICE_KEY_SECRET_ENV]: '' }, file, dataDir: dir });
  t.match(fromFile, { kind: 'file', source: `the file ${file}` });
  t.equal(text(fromFile), 'a-secret-from-a-file', 'the trailing newline is not part of the secret');
  t.notOk(JSON.stringify(fromFile).includes('a-secret-from-a-file'), 'the bytes never serialize');

  const made = await resolveServiceKeySecret({ env: {}, dataDir: dir });
  const path = join(dir, 'secrets', 'service-keys.secret');
  t.match(made, { kind: 'data-dir', source: `the file ${path}`, generated: true });
  if (posix) {
    t.equal(mode(path), 0o600, 'the file is 0600');
    t.equal(mode(join(dir, 'secrets')), 0o700, 'its directory 0700');
  }
  t.equal(text(made), readFileSync(path, 'utf8').trim());
  t.ok(made.bytes.length >= 43, '32 random bytes, base64url');
  const again = await resolveServiceKeySecret({ env: {}, dataDir: dir });
  t.match(again, { kind: 'data-dir', generated: false });
  t.same(again.bytes, made.bytes, 'the next start reads the same secret');

  const memory = await resolveServiceKeySecret({ env: {} });
  t.equal(memory.kind, 'memory', 'no data directory: a random secret in memory');
});

t.test('a secret file others may read, or that another user owns, is refused with its mode', { skip: !posix && 'POSIX modes' }, async (t) => {
  const dir = t.testdir({});
  const world = secretFile(dir, 'world.secret', 'a-secret-anyone-may-read', 0o644);
  await t.rejects(resolveServiceKeySecret({ env: {}, file: world }), {
    code: 'SERVICE_KEY_SECRET_FILE_PERMISSIONS',
    message: `the service-key secret file ${world} has mode 0644: group or others have access to it; it must be private to its owner (chmod 600 ${world})`,
    data: { file: world, mode: '0644' },
  });
  const group = secretFile(dir, 'group.secret', 'a-secret-the-group-may-read', 0o640);
  await t.rejects(readSecretFile(group), { code: 'SERVICE_KEY_SECRET_FILE_PERMISSIONS', data: { mode: '0640' } });
  await t.resolves(readSecretFile(secretFile(dir, 'owner.secret', 'a-secret-for-the-owner-only', 0o400)), '0400 is stricter than 0600: fine');

  const inData = join(dir, 'data');
  await resolveServiceKeySecret({ env: {}, dataDir: inData });
  chmodSync(join(inData, 'secrets', 'service-keys.secret'), 0o604);
  await t.rejects(resolveServiceKeySecret({ env: {}, dataDir: inData }), { code: 'SERVICE_KEY_SECRET_FILE_PERMISSIONS' }, 'the data directory’s file is checked the same way');

  const uid = process.getuid?.();
  if (uid === 0) {
    const owned = secretFile(dir, 'other-owner.secret', 'a-secret-of-another-user');
    chownSync(owned, 65534, 65534);
    await t.rejects(readSecretFile(owned), { code: 'SERVICE_KEY_SECRET_FILE_OWNER', data: { file: owned, owner: 65534 } });
  }
});

t.test('a short, missing or absent secret is an error, never a fresh secret', async (t) => {
  const dir = t.testdir({});
  await t.rejects(resolveServiceKeySecret({ env: { [SERVICE_KEY_SECRET_ENV]: 'short' } }), { code: 'SERVICE_KEY_SECRET_INVALID', message: /environment variable LEDGER_SERVICE_KEY_SECRET has 5 characters; it needs at least 16/ });
  await t.rejects(readSecretFile(secretFile(dir, 'empty.secret', '\n')), { code: 'SERVICE_KEY_SECRET_INVALID' });
  await t.rejects(resolveServiceKeySecret({ env: {}, file: join(dir, 'nope.secret'), dataDir: dir }), { code: 'SERVICE_KEY_SECRET_FILE_UNREADABLE', message: /nope\.secret: no such file/ }, 'a configured file that is missing is not replaced by the data directory’s');
  await t.rejects(resolveServiceKeySecret({ env: {}, dataDir: dir, create: false }), { code: 'SERVICE_KEY_SECRET_MISSING' });
  const path = join(dir, 'new.secret');
  await writeSecretFile(path);
  await t.rejects(writeSecretFile(path), { code: 'SERVICE_KEY_SECRET_FILE_EXISTS' }, 'a secret is never overwritten');
});

t.test('serviceKeySecretFile: from the config file, LEDGER_SERVICE_KEY_SECRET_FILE or --service-key-secret-file, made absolute', async (t) => {
  const cwd = t.testdir({ data: { 'config.json': JSON.stringify({ serviceKeySecretFile: '/etc/ledger/from-file.secret' }) } });
  t.equal(loadConfig({ flags: {}, env: {}, cwd }).config.serviceKeySecretFile, '/etc/ledger/from-file.secret');
  t.equal(loadConfig({ flags: {}, env: { LEDGER_SERVICE_KEY_SECRET_FILE: 'rel/env.secret' }, cwd }).config.serviceKeySecretFile, join(cwd, 'rel', 'env.secret'));
  t.equal(loadConfig({ flags: { 'service-key-secret-file': 'flag.secret' }, env: {}, cwd }).config.serviceKeySecretFile, join(cwd, 'flag.secret'));
  t.equal(loadConfig({ flags: {}, env: {}, cwd: t.testdir({}) }).config.serviceKeySecretFile, undefined);
});
