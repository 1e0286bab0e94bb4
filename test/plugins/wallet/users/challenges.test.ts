import t from 'tap';
import { isLedgerError } from '../../../../node/errors.js';
import { openDatabase } from '../../../../node/state/db.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { CHALLENGE_TTL_MS, ChallengeStore } from '../../../../plugins/wallet/users/challenges.js';

const DID = 'did:ledger:devnet:7Zb4b5QDiBtTkmnJjxCNFYRNmnJ2';
const OTHER = 'did:ledger:devnet:4vJ9JU1bJJE96FWSJKvHsmmFADCg';

async function code(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return isLedgerError(err) ? `${err.kind}:${err.code}` : String(err);
  }
}

t.test('a challenge is taken once, by its DID, within 5 minutes; a restart keeps it; expired ones are swept', async (t) => {
  const level = await openDatabase('memory');
  t.teardown(() => level.close());
  const db = new PluginDb(level.pluginStore('wallet'));
  let now = 1_700_000_000_000;
  const store = new ChallengeStore(db, () => now);

  const a = await store.issue(DID);
  t.match(a.challenge, new RegExp(`^ledger-wallet-login:${DID}:[0-9a-f]{64}$`));
  t.equal(a.expiresAt, new Date(now + CHALLENGE_TTL_MS).toISOString());
  const b = await store.issue(DID);
  t.not(a.challenge, b.challenge, 'random');

  const restarted = new ChallengeStore(db, () => now);
  const results = await Promise.all([restarted.take(a.challenge, DID).then(() => 'ok', (e) => e.code), restarted.take(a.challenge, DID).then(() => 'ok', (e) => e.code)]);
  t.same(results.sort(), ['CHALLENGE_UNKNOWN', 'ok'], 'a stored challenge survives a new store; two concurrent takes: exactly one wins');

  t.equal(await code(store.take(b.challenge, OTHER)), 'invalid:CHALLENGE_OTHER_DID');
  t.equal(await code(store.take(b.challenge, DID)), 'invalid:CHALLENGE_UNKNOWN', 'presenting it for another DID spent it');

  const c = await store.issue(DID);
  now += CHALLENGE_TTL_MS;
  t.equal(await code(store.take(c.challenge, DID)), 'invalid:CHALLENGE_EXPIRED', 'at its expiry it is expired');
  t.equal(await code(store.take('x'.repeat(10_000), DID)), 'invalid:CHALLENGE_UNKNOWN', 'an overlong text is not looked up');

  await store.issue(DID);
  await store.issue(OTHER);
  now += CHALLENGE_TTL_MS + 1;
  const live = await store.issue(DID);
  t.equal(await store.sweep(), 0, 'the issue above swept the two expired ones already');
  now += CHALLENGE_TTL_MS + 1;
  t.equal(await store.sweep(), 1, 'then the last one');
  t.equal(await code(store.take(live.challenge, DID)), 'invalid:CHALLENGE_UNKNOWN');
});
