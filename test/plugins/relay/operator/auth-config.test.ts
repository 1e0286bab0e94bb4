import t from 'tap';
import { harness, isProblem } from './harness.js';

// GET /v1/auth/config: what a browser console needs to run the OpenID code flow, without a
// credential; null when operator login is not configured.

t.test('with plugins.relay.oidc: the issuer and the client id, to anyone', async (t) => {
  const h = await harness(t, { oidc: true });
  const res = await h.req('GET', '/v1/auth/config');
  t.equal(res.status, 200);
  t.same(res.body, { oidc: { issuer: h.oidc!.issuer, clientId: h.oidc!.clientId, scopes: 'openid email profile' } });
  t.equal((await h.req('GET', '/v1/auth/config', { token: 'slk_not-a-real-key' })).status, 200, 'a bad credential does not matter: the route reads none');
  const discovery = (await (await fetch(`${res.body.oidc.issuer}/.well-known/openid-configuration`)).json()) as { issuer: string };
  t.equal(discovery.issuer, res.body.oidc.issuer, 'the issuer is the one discovery names');
});

t.test('without it: oidc null, and the session route still says 503 not-configured', async (t) => {
  const h = await harness(t);
  const res = await h.req('GET', '/v1/auth/config');
  t.equal(res.status, 200);
  t.same(res.body, { oidc: null });
  isProblem(t, await h.req('POST', '/v1/auth/session', { body: { id_token: 'a.b.c' } }), 503, 'not-configured');
});

t.test('GET only, no query', async (t) => {
  const h = await harness(t);
  const post = await h.req('POST', '/v1/auth/config', { body: {} });
  isProblem(t, post, 405, 'method-not-allowed');
  t.match(post.headers.get('allow'), /GET/);
  const query = await h.req('GET', '/v1/auth/config?client=x');
  isProblem(t, query, 400, 'validation');
  t.equal(query.body.field, 'client');
});
