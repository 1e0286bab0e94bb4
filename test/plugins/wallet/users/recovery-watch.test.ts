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

/** The guardians move the owner's DID to the key of `newSeed` (a new one unless given). */
async function recover(h: UsersHarness, owner: SignedIn, guardians: SignedIn[], newSeed = generateSeed()) {
  const newKey = keyPairFromSeed(newSeed).publicKey;
  const started = await initiate(h, { subjectDid: owner.user.did, newPublicKey: toHex(newKey) });
  if (started.status !== 201) throw new Error(`initiate: ${started.status} ${started.text}`);
  const { requestId, versionId } = started.body;
  const receipt = await approveAndFinalize(h, { requestId, did: owner.user.did, versionId, guardians, newSeed, newKey });
  return { newSeed, newKey, requestId, receipt };
}

/** A sign-in by proof: a challenge for `did` signed by the key of `seed`. */
async function signInByProof(h: UsersHarness, did: string, seed: Uint8Array) {
  const { challenge } = (await h.req('GET', `/v1/users/challenge?did=${encodeURIComponent(did)}`)).body as { challenge: string };
  return h.req('POST', '/v1/users/register', { body: { did, proof: { challenge, signature: signChallenge(seed, challenge) } } });
}

/** The OIDC handoff of the owner's account (setUp links one). */
const handoff = (h: UsersHarness, owner: SignedIn) => h.req('POST', '/v1/auth/session', { body: { sub: `oidc|${owner.user.id}` }, headers: { 'x-internal-secret': SECRET } });

/** once the wallet has seen the chain take `publicKey` from the DID (`revoked`) or give it back */
const watchSaw = (h: UsersHarness, did: string, publicKey: string, revoked: boolean) =>
  until(`${publicKey.slice(0, 8)}… to be ${revoked ? 'revoked' : 'given back'}`, async () => ((await h.parts.revocations.find(did, publicKey)) !== undefined) === revoked);

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

  t.match(await signInByProof(h, did, owner.seed), { status: 403, body: { code: KEY_REPLACED } }, 'the old key cannot sign in again');
  t.match(await handoff(h, owner), { status: 403, body: { code: KEY_REPLACED } }, 'nor through the OIDC handoff, while the wallet still holds the old key');

  const newLogin = await signInByProof(h, did, newSeed);
  t.equal(newLogin.status, 200, 'the new key signs in');
  t.match((await me(h, cookieOf(newLogin))).body, { did, publicKey: toHex(newKey) });
  t.equal((await handoff(h, owner)).status, 200, 'and the OIDC handoff works again, for the new key');
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

t.test('the DID given back its key: the lost phone\'s session stays refused, a fresh sign-in with the key works', async (t) => {
  const { h, owner, guardians, cookies } = await setUp(t, 0);
  const did = owner.user.did;
  const keyA = toHex(owner.publicKey);
  await recover(h, owner, guardians);
  await watchSaw(h, did, keyA, true);
  // the new key never signs in here, so the wallet still holds the lost phone's sessions
  await recover(h, owner, guardians, owner.seed);
  await watchSaw(h, did, keyA, false);
  for (const c of cookies) t.match(await me(h, c), { status: 401, body: { code: KEY_REPLACED } }, 'the lost phone\'s session and its renewed cookie stay refused');

  const fresh = await signInByProof(h, did, owner.seed);
  t.equal(fresh.status, 200, 'the key given back signs in by proof');
  t.match(await me(h, cookieOf(fresh)), { status: 200, body: { did, publicKey: keyA } }, 'and its new session works');
  const viaOidc = await handoff(h, owner);
  t.equal(viaOidc.status, 200, 'so does the OIDC handoff');
  t.equal((await me(h, cookieOf(viaOidc))).status, 200);
  for (const c of cookies) t.match(await me(h, c), { status: 401, body: { code: KEY_REPLACED } }, 'the old sessions stay refused after the fresh sign-in');
});

t.test('A to B, back to A, to B again: each key signs in when it comes back, no session from before a cycle returns', async (t) => {
  const { h, owner, guardians, cookies } = await setUp(t, 0);
  const did = owner.user.did;
  const keyA = toHex(owner.publicKey);
  const { newSeed: seedB, newKey } = await recover(h, owner, guardians);
  const keyB = toHex(newKey);
  await watchSaw(h, did, keyA, true);
  const b1 = cookieOf(await signInByProof(h, did, seedB));
  t.equal((await me(h, b1)).status, 200, 'to B: B signs in');

  await recover(h, owner, guardians, owner.seed);
  await watchSaw(h, did, keyB, true);
  t.match(await me(h, b1), { status: 401, body: { code: KEY_REPLACED } }, 'back to A: B\'s session is refused');
  const a2 = cookieOf(await signInByProof(h, did, owner.seed));
  const a2Oidc = cookieOf(await handoff(h, owner));
  for (const c of [a2, a2Oidc]) t.equal((await me(h, c)).status, 200, 'A signs in again, by proof and through the handoff');
  for (const c of cookies) t.equal((await me(h, c)).status, 401, 'A\'s sessions from before the first recovery stay refused');

  await recover(h, owner, guardians, seedB);
  await watchSaw(h, did, keyA, true);
  await watchSaw(h, did, keyB, false);
  for (const c of [a2, a2Oidc]) t.match(await me(h, c), { status: 401, body: { code: KEY_REPLACED } }, 'to B again: A\'s sessions of the second cycle are refused');
  t.match(await handoff(h, owner), { status: 403, body: { code: KEY_REPLACED } }, 'and the handoff, while the wallet holds A');
  t.equal((await me(h, b1)).status, 401, 'B\'s first session does not come back with B');
  const b2 = await signInByProof(h, did, seedB);
  t.equal(b2.status, 200, 'B signs in again');
  t.match(await me(h, cookieOf(b2)), { status: 200, body: { publicKey: keyB } });
  t.equal((await handoff(h, owner)).status, 200, 'and the handoff works for B');
  for (const c of [...cookies, a2, a2Oidc, b1]) t.equal((await me(h, c)).status, 401, 'no earlier session works');
});
