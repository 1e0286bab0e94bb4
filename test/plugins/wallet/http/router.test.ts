import t from 'tap';
import { SESSION_COOKIE } from '../../../../plugins/wallet/users/sessions.js';
import { ERRORS_BASE, startWallet } from '../harness.js';

t.test('the wallet surface: bare 401 without a session, Problems typed by status, cookies renewed and ended', async (t) => {
  const h = await startWallet(t, ({ router, sessions }) => {
    router.add('GET', '/v1/whoami', 'session', (req) => req.caller);
    router.add('POST', '/v1/end', 'none', async (req) => {
      const cookie = await sessions.end(req.ctx);
      req.ctx.json(200, { ok: true }, { 'set-cookie': cookie });
      return undefined;
    });
  });

  const none = await h.req('GET', '/v1/whoami');
  t.equal(none.status, 401);
  t.same(none.body, { error: 'Unauthorized' }, 'a missing session is the seed\'s bare 401');
  const forged = await h.req('GET', '/v1/whoami', { cookie: `${SESSION_COOKIE}=not.a.jwt` });
  t.same([forged.status, forged.body], [401, { error: 'Unauthorized' }], 'a malformed cookie too');

  const me = await h.signIn();
  const ok = await h.req('GET', '/v1/whoami', { cookie: me.cookie });
  t.equal(ok.status, 200);
  t.match(ok.body, { userId: me.user.id, did: me.user.did, publicKey: me.user.publicKey, address: me.user.address });
  t.equal(ok.headers.get('set-cookie'), null, 'a fresh JWT is not renewed');

  const missing = await h.req('GET', '/v1/nothing-here');
  t.equal(missing.status, 404);
  t.match(missing.body, { type: `${ERRORS_BASE}/404`, status: 404, instance: '/v1/nothing-here' });
  t.match(missing.headers.get('content-type'), /application\/problem\+json/);

  const ended = await h.req('POST', '/v1/end', { cookie: me.cookie });
  t.match(ended.headers.get('set-cookie'), new RegExp(`^${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`));
  const after = await h.req('GET', '/v1/whoami', { cookie: me.cookie });
  t.same([after.status, after.body], [401, { error: 'Unauthorized' }], 'the JWT of an ended session no longer works');
});

t.test('a session past half its life is renewed on use; Secure is set behind a trusted https proxy', async (t) => {
  const h = await startWallet(t, ({ router }) => {
    router.add('GET', '/v1/whoami', 'session', (req) => req.caller);
  }, { config: { session: { ttl: '4s', trustProxy: true } } });
  const me = await h.signIn();
  await new Promise((r) => setTimeout(r, 2_100));
  const res = await h.req('GET', '/v1/whoami', { cookie: me.cookie, headers: { 'x-forwarded-proto': 'https' } });
  t.equal(res.status, 200);
  const set = res.headers.get('set-cookie') ?? '';
  t.match(set, new RegExp(`^${SESSION_COOKIE}=[^;]+; Path=/; Max-Age=4; HttpOnly; SameSite=Lax; Secure$`));
  const renewed = set.split(';')[0]!;
  t.not(renewed, me.cookie);
  await new Promise((r) => setTimeout(r, 2_500));
  t.equal((await h.req('GET', '/v1/whoami', { cookie: me.cookie })).status, 401, 'the old JWT expired');
  t.equal((await h.req('GET', '/v1/whoami', { cookie: renewed })).status, 200, 'the renewed one lives on');
});
