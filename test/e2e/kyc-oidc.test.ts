import t, { type Test } from 'tap';
import { freePortRange } from '../../node/devnet/ports.js';
import { startOidcProvider } from '../plugins/common/auth/oidc-provider.js';
import { providerLogin } from '../plugins/common/auth/provider-login.js';
import { startKycNode } from './kyc/setup.js';

/**
 * OpenID Connect login on a real node process, against a real OpenID provider (oidc-provider):
 * the provider is started first, with the KYC service's callback registered, so the service runs
 * on a port picked beforehand. `GET /v1/auth/test` → the provider → the callback → a redirect to
 * `loginRedirectUrl` with `#token=<JWT>`; the JWT works on /v1/auth/me; a second login with the
 * same (issuer, sub) is the same user; the API key made with that JWT creates and lists
 * verification sessions. A login started before a restart completes after it (its state is
 * stored), on the same account.
 */

const LANDING = 'https://app.example.test/signed-in';

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

t.test('provider login on a real node: JWT, the same user again, an API key that works', async (t) => {
  const port = await freePortRange(1);
  const base = `http://127.0.0.1:${port}`;
  const oidc = await startOidcProvider({ clientId: 'kyc-e2e', redirectUris: [`${base}/v1/auth/test/callback`] });
  t.teardown(() => oidc.close());
  const n = await startKycNode(t, { providers: { test: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret } }, loginRedirectUrl: LANDING }, { kycPort: port });
  t.equal(n.kyc, base, 'the service runs on the port the provider knows');

  /** The provider sends the browser back to the callback; the service answers with the landing page and the JWT. */
  const land = async (t: Test, callback: string): Promise<string> => {
    const res = await fetch(callback, { redirect: 'manual' });
    t.equal(res.status, 302, 'the callback redirects');
    const location = new URL(res.headers.get('location')!);
    t.equal(`${location.origin}${location.pathname}`, LANDING, 'to loginRedirectUrl');
    const token = new URLSearchParams(location.hash.slice(1)).get('token');
    t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'with #token=<JWT>');
    return token!;
  };
  const me = async (jwt: string) => json(await fetch(`${base}/v1/auth/me`, { headers: { authorization: `Bearer ${jwt}` } }));

  const first = await providerLogin(base);
  t.equal(first.authUrl.origin, oidc.issuer, 'GET /v1/auth/test sends the browser to the provider');
  t.match(Object.fromEntries(first.authUrl.searchParams), {
    client_id: 'kyc-e2e',
    response_type: 'code',
    redirect_uri: `${base}/v1/auth/test/callback`,
    code_challenge_method: 'S256',
    code_challenge: /^[\w-]{43}$/,
    state: /\S/,
    nonce: /\S/,
  });
  const jwt = await land(t, first.callback);
  const who = await me(jwt);
  t.equal(who.status, 200, 'the JWT works on /v1/auth/me');
  t.match(who.body, { user: { id: /^usr_/, email: 'operator@example.org', name: 'Test Operator', organizationId: /^org_/ }, organization: { name: "Test Operator's organization" } });
  const replay = await json(await fetch(first.callback, { redirect: 'manual' }));
  t.match(replay, { status: 400, body: { code: 'LOGIN_STATE_INVALID' } }, 'a login state works once');

  const second = await land(t, (await providerLogin(base)).callback);
  t.equal((await me(second)).body.user.id, who.body.user.id, 'the same (issuer, sub): the same user');

  const created = await json(await fetch(`${base}/v1/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'from sso', mode: 'sandbox' }) }));
  t.match(created, { status: 201, body: { key: /^sk_sandbox_[\w-]{43}$/, id: /^key_/, mode: 'sandbox' } }, 'the JWT creates an API key');
  const key = { 'x-api-key': created.body.key as string, 'content-type': 'application/json' };
  const session = await json(await fetch(`${base}/v1/verifications`, { method: 'POST', headers: key, body: JSON.stringify({ level: 1, sandbox: true }) }));
  t.match(session, { status: 201, body: { session: { id: /^ver_/, organizationId: who.body.user.organizationId, status: 'pending' }, sessionUrl: new RegExp(`^${base}/v/s/sess_tok_`) } }, 'the key creates a session');
  const list = await json(await fetch(`${base}/v1/verifications`, { headers: key }));
  t.match(list, { status: 200, body: { total: 1, sessions: [{ id: session.body.session.id }] } }, 'and lists it');

  await t.test('a login started before a restart completes after it, on the same account', async (t) => {
    const started = await providerLogin(base);
    await n.restart();
    t.equal(n.kyc, base, 'back on the same port');
    const again = await land(t, started.callback);
    t.equal((await me(again)).body.user.id, who.body.user.id);
    t.equal((await me(jwt)).status, 200, 'the JWT issued before the restart still works');
    t.equal((await fetch(`${base}/v1/verifications`, { headers: key })).status, 200, 'and the API key');
  });

  await n.node.stop();
});
