import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import type { ServiceKeySecret } from '../../../../node/config/service-key-secret.js';
import type { BinaryLevel, BinarySublevel } from '../../../../node/state/db.js';
import { createLevelRelayStore } from '../../../../plugins/relay/store/level.js';
import { resealLevelSecrets } from '../../../../plugins/relay/store/level-secrets.js';
import { MEDIATOR_SEED, SESSION_SECRET } from '../../../../plugins/relay/store/secrets.js';
import { didKeyFromSeed } from '../../../../plugins/relay/wire/dids/did-key.js';
import { foundIn, testSecret } from '../../common/secrets/fixtures.js';
import { secretSource } from './contract/backend.js';

/**
 * The relay's secrets in its LevelDB namespace, sealed under the service-key secret: what someone
 * who copies the database directory finds (every file grepped for the secret as hex, base64 and
 * raw bytes; block compression off so that the grep sees whatever is there), a plaintext row of
 * an earlier relay sealed in place, a wrong secret, and the rotation's writes.
 */

const BINARY = { keyEncoding: 'view', valueEncoding: 'view' } as const;

/** the node's database as db.ts opens it, without compression; the relay's namespace in it */
async function open(t: Test, dir: string): Promise<{ root: BinaryLevel; ns: BinarySublevel; close(): Promise<void> }> {
  const root = new Level<Uint8Array, Uint8Array>(dir, { ...BINARY, compression: false } as never) as unknown as BinaryLevel;
  await root.open();
  let closed = false;
  const close = async () => {
    if (!closed) await root.close();
    closed = true;
  };
  t.teardown(close);
  return { root, ns: root.sublevel<Uint8Array, Uint8Array>('plugin:relay', BINARY), close };
}

async function files(dir: string): Promise<Buffer> {
  const names = await readdir(dir);
  return Buffer.concat(await Promise.all(names.map((n) => readFile(join(dir, n)))));
}

const plaintextSub = (ns: BinarySublevel) => ns.sublevel<string, Uint8Array>('s', { keyEncoding: 'utf8', valueEncoding: 'view' });
const sealedSub = (ns: BinarySublevel) => ns.sublevel<string, { ciphertext: string }>('ss', { keyEncoding: 'utf8', valueEncoding: 'json' });

/** the relay's two secrets through a store on `ns` under `secret`; `create` must not run when they exist */
async function secretsOf(ns: BinarySublevel, secret: ServiceKeySecret, logs: string[] = [], create: () => Uint8Array = () => new Uint8Array(randomBytes(32))) {
  const store = createLevelRelayStore(ns, { secrets: secretSource(secret, logs) });
  try {
    return { seed: await store.secret(MEDIATOR_SEED, create), session: await store.secret(SESSION_SECRET, create) };
  } finally {
    await store.close();
  }
}

const never = (): Uint8Array => {
  throw new Error('a new secret was made in place of the stored one');
};

t.test('a plaintext seed from an earlier relay is sealed in place: the same DID, and no file keeps it', async (t) => {
  const dir = join(t.testdir({}), 'chain');
  const seed = new Uint8Array(randomBytes(32));
  const session = new Uint8Array(randomBytes(32));
  let db = await open(t, dir);
  await plaintextSub(db.ns).put(MEDIATOR_SEED, seed);
  await plaintextSub(db.ns).put(SESSION_SECRET, session);
  await db.close();
  t.same(foundIn(await files(dir), seed), ['raw'], 'before: the plaintext seed is in the files, and the grep finds it');

  const secret = await testSecret('the-relay-secret-of-the-first-start');
  db = await open(t, dir);
  const logs: string[] = [];
  const got = await secretsOf(db.ns, secret, logs, never);
  t.same(got, { seed, session }, 'the same bytes');
  t.equal(didKeyFromSeed(got.seed).did, didKeyFromSeed(seed).did, "the mediator's DID does not change");
  t.same(logs, [
    "the relay mediator's Ed25519 seed was stored in plaintext: it is now encrypted under the service-key secret",
    "the relay's operator session secret was stored in plaintext: it is now encrypted under the service-key secret",
  ]);
  t.same(await plaintextSub(db.ns).keys().all(), [], 'no plaintext row is left');
  const envelope = (await sealedSub(db.ns).get(MEDIATOR_SEED))!.ciphertext;
  await db.close();

  const bytes = await files(dir);
  t.same(foundIn(bytes, seed), [], 'after the first start no file holds the seed in any form');
  t.same(foundIn(bytes, session), [], 'nor the session secret');
  t.ok(bytes.includes(Buffer.from(envelope)), 'the envelope is there instead');

  db = await open(t, dir);
  const again: string[] = [];
  t.same(await secretsOf(db.ns, secret, again, never), { seed, session }, 'the next start opens them');
  t.same(again, [], 'and has nothing to seal');
});

t.test('secrets made under the service-key secret never reach the files in plaintext', async (t) => {
  const dir = join(t.testdir({}), 'chain');
  const db = await open(t, dir);
  const { seed, session } = await secretsOf(db.ns, await testSecret());
  await db.close();
  const bytes = await files(dir);
  t.same(foundIn(bytes, seed), []);
  t.same(foundIn(bytes, session), []);
});

t.test('a wrong secret is SERVICE_KEY_SECRET_WRONG naming the row, and nothing is made in its place', async (t) => {
  const dir = join(t.testdir({}), 'chain');
  const db = await open(t, dir);
  const right = await testSecret('the-relay-secret-it-was-sealed-under');
  const { seed } = await secretsOf(db.ns, right);
  const before = await sealedSub(db.ns).get(MEDIATOR_SEED);
  const store = createLevelRelayStore(db.ns, { secrets: secretSource(await testSecret('another-relay-secret-altogether')) });
  t.teardown(() => store.close());
  await t.rejects(store.secret(MEDIATOR_SEED, never), {
    code: 'SERVICE_KEY_SECRET_WRONG',
    message: /^the relay mediator's Ed25519 seed \(table ss, row mediator-ed25519-seed\) does not open with the service-key secret from the environment variable LEDGER_SERVICE_KEY_SECRET/,
  });
  t.same(await sealedSub(db.ns).get(MEDIATOR_SEED), before, 'the stored envelope is untouched');
  t.same((await secretsOf(db.ns, right, [], never)).seed, seed, 'and the right secret still opens it');
});

t.test("an envelope copied to another secret's row does not open", async (t) => {
  const dir = join(t.testdir({}), 'chain');
  const db = await open(t, dir);
  const secret = await testSecret();
  await secretsOf(db.ns, secret);
  await sealedSub(db.ns).put(SESSION_SECRET, (await sealedSub(db.ns).get(MEDIATOR_SEED))!);
  const store = createLevelRelayStore(db.ns, { secrets: secretSource(secret) });
  t.teardown(() => store.close());
  await t.rejects(store.secret(SESSION_SECRET, never), { code: 'SERVICE_KEY_SECRET_WRONG', message: /row session-secret/ });
});

t.test('rotation: every secret under the new secret (a plaintext one sealed on the way), the old one opens none, and the files forget it', async (t) => {
  const dir = join(t.testdir({}), 'chain');
  let db = await open(t, dir);
  const old = await testSecret('the-relay-secret-before-rotation');
  const next = await testSecret('the-relay-secret-after-rotation');
  const store = createLevelRelayStore(db.ns, { secrets: secretSource(old) });
  const seed = await store.secret(MEDIATOR_SEED, () => new Uint8Array(randomBytes(32)));
  await store.close();
  const session = new Uint8Array(randomBytes(32));
  await plaintextSub(db.ns).put(SESSION_SECRET, session);
  const retired = (await sealedSub(db.ns).get(MEDIATOR_SEED))!.ciphertext;
  // rotate runs on the database of a stopped node, opened anew
  await db.close();
  db = await open(t, dir);

  await t.rejects(resealLevelSecrets(db.ns, next, old), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'from a secret that opens nothing: refused before any write');
  const plan = await resealLevelSecrets(db.ns, old, next);
  t.same(plan.rows, [`ss/${MEDIATOR_SEED}`, `ss/${SESSION_SECRET}`]);
  await db.root.batch(plan.ops);
  await plan.compact();
  await db.close();
  const bytes = await files(dir);
  t.notOk(bytes.includes(Buffer.from(retired)), 'the retired envelope is compacted out of the files');
  t.same(foundIn(bytes, seed), []);
  t.same(foundIn(bytes, session), [], 'the plaintext row is gone too');

  db = await open(t, dir);
  t.same(await secretsOf(db.ns, next, [], never), { seed, session }, 'the same secrets under the new secret');
  const stale = createLevelRelayStore(db.ns, { secrets: secretSource(old) });
  t.teardown(() => stale.close());
  await t.rejects(stale.secret(MEDIATOR_SEED, never), { code: 'SERVICE_KEY_SECRET_WRONG' }, 'the old secret opens nothing');
});
