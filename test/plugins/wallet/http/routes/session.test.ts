import t from 'tap';
import { SESSION_COOKIE } from '../../../../../plugins/wallet/users/sessions.js';
import { ERRORS_BASE } from '../../harness.js';
import { cookieOf, SECRET, signedDidCreate, startUsers } from '../../users/setup.js';

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
