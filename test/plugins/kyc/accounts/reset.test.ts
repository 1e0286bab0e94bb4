import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { openDatabase } from '../../../../node/state/db.js';
import { RESET_TTL_MS, ResetTokens } from '../../../../plugins/kyc/accounts/reset.js';
import { AccountStore } from '../../../../plugins/kyc/accounts/store.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';

/** the stable code of the Problem `p` rejects with */
const codeOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => 'resolved', (err: { extra?: { code?: string } }) => err.extra?.code);

async function setup(t: Test) {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = new AccountStore(new PluginDb(db.pluginStore('kyc')));
  const clock = { now: 1_900_000_000_000 };
  return { store, clock, resets: new ResetTokens(store, () => clock.now) };
}

t.test('stored as a hash, spent once', async (t) => {
  const { store, resets } = await setup(t);
  const { token, expiresAt } = await resets.create('usr_1');
  t.match(token, /^rst_[A-Za-z0-9_-]{43}$/);
  const keys: string[] = [];
  for await (const k of store.reset.keys()) keys.push(k);
  t.same(keys, [createHash('sha256').update(token).digest('hex')], 'only the SHA-256 is stored');
  t.equal(expiresAt, 1_900_000_000_000 + RESET_TTL_MS);
  const [a, b] = await Promise.allSettled([resets.consume(token), resets.consume(token)]);
  t.same(a, { status: 'fulfilled', value: 'usr_1' });
  t.match(b, { status: 'rejected', reason: { extra: { code: 'RESET_TOKEN_INVALID' } } }, 'two at once: one wins');
});

t.test('expires after an hour', async (t) => {
  const { clock, resets } = await setup(t);
  const { token } = await resets.create('usr_1');
  clock.now += RESET_TTL_MS;
  t.equal(await codeOf(resets.consume(token)), 'RESET_TOKEN_EXPIRED');
  t.equal(await codeOf(resets.consume(token)), 'RESET_TOKEN_INVALID', 'and is gone');
  t.equal(await codeOf(resets.consume('rst_x')), 'RESET_TOKEN_INVALID');
});

t.test('login states: keyed by time, pruned by range', async (t) => {
  const { store } = await setup(t);
  const old = store.newState(1000);
  const fresh = store.newState(5000);
  t.match(old, /^0000000001000\.[\w-]{32}$/);
  for (const s of [old, fresh]) await store.oidcState.put(s, { provider: 'p', codeVerifier: 'v', nonce: 'n', redirectUrl: null, expiresAt: 0 });
  await store.pruneStates(2000);
  t.equal(await store.oidcState.get(old), undefined);
  t.ok(await store.oidcState.get(fresh));
});
