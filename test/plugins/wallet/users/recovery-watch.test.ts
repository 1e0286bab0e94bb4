import t, { type Test } from 'tap';
import { generateSeed, keyPairFromSeed, toHex } from '../../../../node/client/index.js';
import { TxIndex } from '../../../../plugins/wallet/chain/tx-index.js';
import { KEY_REPLACED } from '../../../../plugins/wallet/users/key-revocations.js';
import { RecoveryWatch } from '../../../../plugins/wallet/users/recovery-watch.js';
import { approveAndFinalize, initiate, makeGuardian, mountGuardianRoutes, setPolicy, TEST_CONFIG } from '../guardians/fixture.js';
import type { SignedIn, WalletParts } from '../harness.js';
import { cookieOf, SECRET, signChallenge, startUsers, until, type UsersHarness } from './setup.js';

/**
 * A recovery on chain ends the old key's sessions: the users, session and guardian routes, with
 * the history index and its recovery watch following the node's blocks as the plugin runs them.
 */

function watching(t: Test) {
  return (p: WalletParts) => {
    mountGuardianRoutes(t, p);
    const watch = new RecoveryWatch({ db: p.base.db, chain: p.ctx.chain, users: p.users, revocations: p.revocations, now: p.base.now });
    const index = new TxIndex(p.base.db, { watchers: [watch] });
    const stop = new AbortController();
    const run = index.run((from, signal) => p.ctx.blocks(from, signal), stop.signal);
    t.teardown(async () => {
      stop.abort();
      await run;
    });
  };
}

/** A renewed cookie of `cookie`'s session, as the session check hands out once half its JWT's life has passed. */
async function renewed(h: UsersHarness, cookie: string): Promise<string> {
  const ctx = { req: { headers: { cookie }, socket: {} } } as never;
  const found = await h.parts.sessions.find(ctx);
  const { renewed: setCookie } = await h.parts.sessions.renew(ctx, { session: found!.session, due: true });
  return setCookie!.split(';')[0]!;
}

const me = (h: UsersHarness, cookie: string) => h.req('GET', '/v1/users/me', { cookie });

/** An owner with a live session, a renewed cookie of it, an OIDC account, and two guardians under a policy. */
async function setUp(t: Test, delayBlocks: number) {
  const h = await startUsers(t, { config: TEST_CONFIG, mount: watching(t) });
  const [owner, g1, g2] = await Promise.all([h.signIn({ onChain: true }), h.signIn({ onChain: true }), h.signIn({ onChain: true })]);
  await h.parts.users.update(owner.user.id, (u) => ({ ...u, oidcSub: `oidc|${owner.user.id}` }));
  await makeGuardian(h, owner, g1);
  await makeGuardian(h, owner, g2);
  await setPolicy(h, owner, [g1, g2], { delayBlocks });
  const cookies = [owner.cookie, await renewed(h, owner.cookie)];
  for (const cookie of cookies) t.equal((await me(h, cookie)).status, 200, 'the session and its renewed cookie work');
  return { h, owner, guardians: [g1, g2], cookies };
}

async function recover(h: UsersHarness, owner: SignedIn, guardians: SignedIn[]) {
  const newSeed = generateSeed();
  const newKey = keyPairFromSeed(newSeed).publicKey;
  const started = await initiate(h, { subjectDid: owner.user.did, newPublicKey: toHex(newKey) });
  if (started.status !== 201) throw new Error(`initiate: ${started.status} ${started.text}`);
  const { requestId, versionId } = started.body;
  const receipt = await approveAndFinalize(h, { requestId, did: owner.user.did, versionId, guardians, newSeed, newKey });
  return { newSeed, newKey, requestId, receipt };
}

/** What the old key may no longer do, and what the new key may, once the wallet has seen the recovery. */
async function checkAfter(t: Test, h: UsersHarness, owner: SignedIn, cookies: string[], newSeed: Uint8Array, newKey: Uint8Array) {
  const did = owner.user.did;
  const refusedAll = await until('the old key\'s sessions to be refused', async () => {
    const answers = await Promise.all(cookies.map((c) => me(h, c)));
    return answers.every((a) => a.status === 401) && answers;
  });
  for (const a of refusedAll) {
    t.match(a.body, { error: 'Unauthorized', code: KEY_REPLACED, detail: /recovery replaced the key/ }, 'the session and its renewed cookie: 401 KEY_REPLACED_BY_RECOVERY');
    t.match(a.headers.get('set-cookie'), /Max-Age=0/, 'and the cookie is cleared');
  }
  t.equal((await me(h, cookies[1]!)).body.code, KEY_REPLACED, 'every time, not once');

  const challenge = async () => (await h.req('GET', `/v1/users/challenge?did=${encodeURIComponent(did)}`)).body.challenge as string;
  const c1 = await challenge();
  const oldLogin = await h.req('POST', '/v1/users/register', { body: { did, proof: { challenge: c1, signature: signChallenge(owner.seed, c1) } } });
  t.match(oldLogin, { status: 403, body: { code: KEY_REPLACED } }, 'the old key cannot sign in again');
  const handoff = () => h.req('POST', '/v1/auth/session', { body: { sub: `oidc|${owner.user.id}` }, headers: { 'x-internal-secret': SECRET } });
  t.match(await handoff(), { status: 403, body: { code: KEY_REPLACED } }, 'nor through the OIDC handoff, while the wallet still holds the old key');

  const c2 = await challenge();
  const newLogin = await h.req('POST', '/v1/users/register', { body: { did, proof: { challenge: c2, signature: signChallenge(newSeed, c2) } } });
  t.equal(newLogin.status, 200, 'the new key signs in');
  t.match((await me(h, cookieOf(newLogin))).body, { did, publicKey: toHex(newKey) });
  t.equal((await handoff()).status, 200, 'and the OIDC handoff works again, for the new key');
  for (const c of cookies) t.equal((await me(h, c)).status, 401, 'the old sessions stay refused');
}

t.test('a recovery with no delay: the old key\'s session and renewed cookie are refused, it cannot sign in again, the new key can', async (t) => {
  const { h, owner, guardians, cookies } = await setUp(t, 0);
  const { newSeed, newKey, receipt } = await recover(h, owner, guardians);
  t.match(receipt, { status: 'success', events: [{ type: 'DidRecovered', did: owner.user.did }] });
  await checkAfter(t, h, owner, cookies, newSeed, newKey);
});

t.test('a delayed recovery: the old key works during the delay and is refused once the chain completes it', async (t) => {
  const { h, owner, guardians, cookies } = await setUp(t, 3);
  const { newSeed, newKey, requestId, receipt } = await recover(h, owner, guardians);
  t.match(receipt, { status: 'success', events: [{ type: 'RecoveryStarted', did: owner.user.did }] });
  t.equal((await me(h, owner.cookie)).status, 200, 'during the delay the owner\'s key still controls the DID: its session works');
  await until('the delayed recovery to complete', async () => (await h.req('GET', `/v1/guardian/recovery/${requestId}`)).body.status === 'completed');
  await checkAfter(t, h, owner, cookies, newSeed, newKey);
});
