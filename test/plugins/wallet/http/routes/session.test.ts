import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import type { SessionRecord } from '../../../../../plugins/wallet/types.js';
import { KEY_REPLACED } from '../../../../../plugins/wallet/users/key-revocations.js';
import { SESSION_COOKIE } from '../../../../../plugins/wallet/users/sessions.js';
import { ERRORS_BASE } from '../../harness.js';
import { cookieOf, SECRET, signChallenge, signedDidCreate, startUsers } from '../../users/setup.js';

t.test('the OIDC handoff: the secret, the onboarding cookie, register linking the OIDC account, then sign-in; logout ends the session', async (t) => {
  const h = await startUsers(t);
  const handoff = (body: unknown, secret?: string, cookie?: string) =>
    h.req('POST', '/v1/auth/session', { body, headers: secret === undefined ? {} : { 'x-internal-secret': secret }, ...(cookie ? { cookie } : {}) });

  const missing = await handoff({ sub: 'oidc|1' });
  t.equal(missing.status, 401);
  t.match(missing.body, { type: `${ERRORS_BASE}/401`, code: 'SECRET_MISSING', detail: /X-Internal-Secret/ }, 'no secret: a 401 Problem, not the bare session 401');
  const wrong = await handoff({ sub: 'oidc|1' }, `${SECRET}x`);
  t.same([wrong.status, wrong.body.type, wrong.body.code], [403, `${ERRORS_BASE}/403`, 'SECRET_WRONG'], 'a wrong secret: 403 Problem');
  t.equal((await handoff({ sub: 'oidc|1' }, SECRET.slice(0, -1))).status, 403, 'a prefix of the secret is wrong too');

  t.match((await handoff({}, SECRET)).body, { status: 400, field: 'sub' }, 'sub is required');
  t.match((await handoff({ sub: 'oidc|1', email: 'not-an-email' }, SECRET)).body, { status: 400, field: 'email' });
  t.match((await handoff({ sub: 'oidc|1', name: 'x' }, SECRET)).body, { status: 400, field: 'name' }, 'unknown fields are refused');
  t.match((await handoff({ sub: 'oidc|1', mnemonic: 'abandon abandon' }, SECRET)).body, { status: 400, detail: /^this service never accepts private keys/ });

  const first = await handoff({ sub: 'oidc|1', email: 'Ada@Example.org' }, SECRET);
  t.equal(first.status, 200);
  t.same(first.body, { needsOnboarding: true }, 'exactly the seed\'s body');
  const onboardingCookie = cookieOf(first);
  t.match(onboardingCookie, new RegExp(`^${SESSION_COOKIE}=.+`));
  const early = await h.req('GET', '/v1/users/me', { cookie: onboardingCookie });
  t.same([early.status, early.body], [401, { error: 'Unauthorized' }], 'an onboarding session is not a user session');

  const d = signedDidCreate(h);
  const reg = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: d.json }, cookie: onboardingCookie });
  t.equal(reg.status, 201);
  const userCookie = cookieOf(reg);
  const me = await h.req('GET', '/v1/users/me', { cookie: userCookie });
  t.match(me.body, { id: reg.body.id, email: 'ada@example.org' });
  const linked = await h.parts.users.bySub('oidc|1');
  t.equal(linked?.id, reg.body.id, 'the OIDC subject is linked to the new wallet');

  const again = await handoff({ sub: 'oidc|1', email: 'ada@new.example' }, SECRET);
  t.equal(again.status, 200);
  t.same(again.body, { id: reg.body.id, did: reg.body.did, needsOnboarding: false });
  const signedIn = await h.req('GET', '/v1/users/me', { cookie: cookieOf(again) });
  t.match(signedIn.body, { id: reg.body.id, email: 'ada@new.example' }, 'the handoff\'s session is the user\'s; the provider\'s email is kept current');

  const out = await h.req('POST', '/v1/auth/logout', { cookie: userCookie });
  t.equal(out.status, 204);
  t.match(out.headers.get('set-cookie'), new RegExp(`^${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`));
  t.same((await h.req('GET', '/v1/users/me', { cookie: userCookie })).status, 401, 'the ended session is gone');
  t.same((await h.req('GET', '/v1/users/me', { cookie: cookieOf(again) })).status, 200, 'another session of the user lives on');
  const anonymous = await h.req('POST', '/v1/auth/logout');
  t.equal(anonymous.status, 204, 'logout without a session: 204 all the same');
});

t.test('no internal secret configured: the handoff answers 503', async (t) => {
  const h = await startUsers(t, { config: { internalSecret: undefined } });
  const res = await h.req('POST', '/v1/auth/session', { body: { sub: 'x' }, headers: { 'x-internal-secret': SECRET } });
  t.equal(res.status, 503);
  t.match(res.body, { type: `${ERRORS_BASE}/503`, code: 'NOT_CONFIGURED', detail: /internalSecret/ });
});

t.test('wrong or missing secrets are rate limited per address; a right one then waits too', async (t) => {
  const h = await startUsers(t, { sessionLimit: { max: 3, windowMs: 60_000 } });
  const call = (secret?: string) => h.req('POST', '/v1/auth/session', { body: { sub: 'oidc|2' }, headers: secret === undefined ? {} : { 'x-internal-secret': secret } });
  t.equal((await call(SECRET)).status, 200, 'a right secret does not count');
  t.equal((await call(SECRET)).status, 200);
  t.equal((await call()).status, 401);
  t.equal((await call('wrong-wrong-wrong-wrong-wrong')).status, 403);
  t.equal((await call('wrong-wrong-wrong-wrong-wrong')).status, 403);
  const limited = await call(SECRET);
  t.equal(limited.status, 429);
  t.match(limited.body, { type: `${ERRORS_BASE}/429`, code: 'RATE_LIMITED' });
  const retry = Number(limited.headers.get('retry-after'));
  t.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
});

t.test('a key given back: its sessions from before stay refused (an older record naming no key too), one linked after works', async (t) => {
  const h = await startUsers(t);
  const owner = await h.signIn({ onChain: true });
  const { did, publicKey } = owner.user;
  const me = (cookie: string) => h.req('GET', '/v1/users/me', { cookie });
  const handoff = (sub: string) => h.req('POST', '/v1/auth/session', { body: { sub }, headers: { 'x-internal-secret': SECRET } });

  // a record from before sessions named their key: it has the user's
  const noRequest = { req: { headers: {}, socket: {} } } as never;
  const legacy = await h.parts.sessions.start(noRequest, { userId: owner.user.id, publicKey });
  const table = h.parts.base.db.json<SessionRecord>('sessions');
  const { publicKey: _named, ...keyless } = (await table.get(legacy.session.id))!;
  await table.put(legacy.session.id, keyless);
  const legacyCookie = legacy.cookie.split(';')[0]!;
  t.equal((await me(legacyCookie)).status, 200, 'an older record is read');
  const onboarding = cookieOf(await handoff('oidc|back'));

  // a recovery took the key, a later one gave it back: the rows the recovery watch writes
  const taken = h.parts.base.db.batch();
  h.parts.revocations.revoke(taken, { did, publicKey, replacedBy: 'bb'.repeat(32), height: 1, revokedAt: new Date().toISOString() });
  await taken.write();
  await sleep(5);
  const back = h.parts.base.db.batch();
  await h.parts.revocations.restore(back, did, publicKey, { height: 2, restoredAt: new Date().toISOString() });
  await back.write();
  await sleep(5);

  for (const c of [owner.cookie, legacyCookie]) t.match(await me(c), { status: 401, body: { code: KEY_REPLACED } }, 'a session from before the key came back stays refused');
  const { challenge } = (await h.req('GET', `/v1/users/challenge?did=${encodeURIComponent(did)}`)).body as { challenge: string };
  const linked = await h.req('POST', '/v1/users/register', { cookie: onboarding, body: { did, proof: { challenge, signature: signChallenge(owner.seed, challenge) } } });
  t.equal(linked.status, 200, 'the key signs in by proof');
  t.equal((await me(cookieOf(linked))).status, 200, 'an onboarding session begun before the key came back and linked after it counts from the link');
  const again = await handoff('oidc|back');
  t.match(again, { status: 200, body: { needsOnboarding: false } }, 'the handoff signs the key in');
  t.equal((await me(cookieOf(again))).status, 200);
  t.equal((await me(owner.cookie)).status, 401, 'and the old session stays refused');
});
