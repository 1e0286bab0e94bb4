import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { CompactSign, decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { LedgerError } from '../../../../node/errors.js';
import { authFailure, MAX_ID_TOKEN_LENGTH, OidcVerifier } from '../../../../plugins/common/auth/index.js';
import { startOidcProvider, type TestOidcProvider } from './oidc-provider.js';

async function provider(t: Test, opts: Parameters<typeof startOidcProvider>[0] = {}): Promise<TestOidcProvider> {
  const p = await startOidcProvider(opts);
  t.teardown(() => p.close());
  return p;
}

/** A token with the given claims signed by `key` under the provider's kid: for the negative cases only. */
async function mint(p: TestOidcProvider, claims: JWTPayload, key: CryptoKey = p.signingKey.privateKey, header: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'operator-1', iss: p.issuer, aud: p.clientId, iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: p.signingKey.alg, kid: p.signingKey.kid, ...header })
    .sign(key);
}

/** Asserts the rejection's code and `data.reason`, so a test cannot pass for the wrong reason. */
async function rejects(t: Test, promise: Promise<unknown>, code: string, reason: string | undefined, message: RegExp) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof LedgerError, `a LedgerError (${String(err)})`);
  const le = err as LedgerError;
  t.equal(le.code, code, 'code');
  if (reason !== undefined) t.equal(le.data['reason'], reason, 'reason');
  t.match(le.message, message, 'message');
  return le;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

t.test('a genuine id_token from the code flow verifies, with email, name and the custom tenant claim', async (t) => {
  const p = await provider(t, { tenant: 'acme', email: 'ops@acme.test', name: 'Ada Ops' });
  const idToken = await p.idToken({ nonce: 'n-123' });
  t.equal(decodeProtectedHeader(idToken).kid, p.signingKey.kid, 'signed by the provider');
  const verifier = new OidcVerifier({ issuer: p.issuer, audience: p.clientId });
  const claims = await verifier.verify(idToken, { nonce: 'n-123' });
  t.match(claims, { sub: 'operator-1', email: 'ops@acme.test', emailVerified: true, name: 'Ada Ops', tenant: 'acme', iss: p.issuer, aud: [p.clientId] });
  t.equal(claims.raw['nonce'], 'n-123');
  t.type(claims.raw.iat, 'number');

  // another account of the same provider, and the verifier's caches on a second call
  const bob = await verifier.verify(await p.idToken({ sub: 'bob', claims: { email: 'bob@acme.test', email_verified: false, tenant: 'beta' } }));
  t.match(bob, { sub: 'bob', email: 'bob@acme.test', emailVerified: false, tenant: 'beta' });
  t.notOk('name' in bob, 'no name claim, no name');

  await rejects(t, verifier.verify(idToken, { nonce: 'other' }), 'ID_TOKEN_INVALID', 'nonce', /nonce/);
});

t.test('ES256 provider keys verify too; audience lists accept any of their client ids', async (t) => {
  const p = await provider(t, { alg: 'ES256' });
  const idToken = await p.idToken();
  t.equal(decodeProtectedHeader(idToken).alg, 'ES256');
  const claims = await new OidcVerifier({ issuer: p.issuer, audience: ['kyc-console', p.clientId] }).verify(idToken);
  t.equal(claims.sub, 'operator-1');
});

t.test('signature, issuer and audience failures say which check failed', async (t) => {
  const p = await provider(t);
  const verifier = new OidcVerifier({ issuer: p.issuer, audience: p.clientId });
  const { privateKey: otherKey } = await generateKeyPair('RS256');

  // same kid, iss and aud, another key: only the signature is wrong
  await rejects(t, verifier.verify(await mint(p, {}, otherKey)), 'ID_TOKEN_INVALID', 'signature', /signature does not verify/);
  // an unknown kid (jose refetches the JWKS once, then gives up)
  await rejects(t, verifier.verify(await mint(p, {}, otherKey, { kid: 'nobody' })), 'ID_TOKEN_INVALID', 'kid', /no key of the provider.*nobody/);

  // a real token, a verifier configured for another client
  const real = await p.idToken();
  await rejects(t, new OidcVerifier({ issuer: p.issuer, audience: 'wallet-console' }).verify(real), 'ID_TOKEN_INVALID', 'aud', /aud "ledger-operator" does not include "wallet-console"/);

  // the provider's key, another iss: the issuer check, not the signature, refuses it
  await rejects(t, verifier.verify(await mint(p, { iss: 'https://evil.example' })), 'ID_TOKEN_INVALID', 'iss', /iss "https:\/\/evil.example" is not the configured issuer/);

  // a genuine token of another provider (other keys, other issuer): its kid is unknown here
  const other = await provider(t, { clientId: p.clientId });
  await rejects(t, verifier.verify(await other.idToken()), 'ID_TOKEN_INVALID', 'kid', /no key of the provider/);

  // several audiences need an azp naming us
  await rejects(t, verifier.verify(await mint(p, { aud: [p.clientId, 'someone-else'] })), 'ID_TOKEN_INVALID', 'azp', /several audiences but no azp/);
  await rejects(t, verifier.verify(await mint(p, { aud: [p.clientId, 'someone-else'], azp: 'someone-else' })), 'ID_TOKEN_INVALID', 'azp', /azp \(someone-else\)/);
  t.equal((await verifier.verify(await mint(p, { aud: [p.clientId, 'someone-else'], azp: p.clientId }))).sub, 'operator-1', 'azp = our client id is fine');

  // missing claims
  await rejects(t, verifier.verify(await mint(p, { iat: undefined })), 'ID_TOKEN_INVALID', 'iat', /no iat claim/);
  await rejects(t, verifier.verify(await mint(p, { sub: undefined })), 'ID_TOKEN_INVALID', 'sub', /no sub claim/);
  await rejects(t, verifier.verify(await mint(p, { exp: undefined })), 'ID_TOKEN_INVALID', 'exp', /no exp claim/);
  const failure = authFailure(await verifier.verify(await mint(p, {}, otherKey)).catch((e: unknown) => e));
  t.same(failure, { status: 401, detail: "the id_token's signature does not verify with the provider's key", code: 'ID_TOKEN_INVALID' }, 'routes answer 401');
});

t.test('time: expired with zero tolerance (a real short-lived token), accepted within tolerance; nbf and iat in the future', async (t) => {
  const p = await provider(t, { idTokenTtlSeconds: 2 });
  const idToken = await p.idToken();
  const { exp } = decodeJwt(idToken);
  const strict = new OidcVerifier({ issuer: p.issuer, audience: p.clientId, clockToleranceSeconds: 0 });
  t.equal((await strict.verify(idToken)).sub, 'operator-1', 'valid before exp');
  await new Promise((r) => setTimeout(r, exp! * 1000 - Date.now() + 50));
  const err = await rejects(t, strict.verify(idToken), 'ID_TOKEN_EXPIRED', 'exp', /expired at \d{4}-/);
  t.equal(err.kind, 'invalid');
  t.equal((await new OidcVerifier({ issuer: p.issuer, audience: p.clientId }).verify(idToken)).sub, 'operator-1', 'the default 30 s tolerance still accepts it');

  const now = Math.floor(Date.now() / 1000);
  await rejects(t, strict.verify(await mint(p, { nbf: now + 120 })), 'ID_TOKEN_INVALID', 'nbf', /not valid before/);
  await rejects(t, strict.verify(await mint(p, { iat: now + 120 })), 'ID_TOKEN_INVALID', 'iat', /iat is 1[12]\d s in the future/);
});

t.test('alg none, HS256, garbage and oversize are refused before the provider is asked', async (t) => {
  // nothing listens here: any network request would fail as OIDC_PROVIDER_UNAVAILABLE
  const dead = new OidcVerifier({ issuer: 'http://127.0.0.1:9', audience: 'ledger-operator' });
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: 'x', iss: 'http://127.0.0.1:9', aud: 'ledger-operator', iat: now, exp: now + 60 };
  await rejects(t, dead.verify(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`), 'ID_TOKEN_INVALID', 'alg', /alg "none" is refused/);
  const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array(32));
  await rejects(t, dead.verify(hs), 'ID_TOKEN_INVALID', 'alg', /alg "HS256" is refused/);
  await rejects(t, dead.verify('not-a-jwt'), 'ID_TOKEN_INVALID', 'format', /three dot-separated parts/);
  await rejects(t, dead.verify('a.b.c'), 'ID_TOKEN_INVALID', 'format', /header is not base64url JSON/);
  await rejects(t, dead.verify(''), 'ID_TOKEN_INVALID', 'format', /empty/);
  await rejects(t, dead.verify(`${b64({ alg: 'RS256' })}.${'A'.repeat(MAX_ID_TOKEN_LENGTH)}.x`), 'ID_TOKEN_TOO_LARGE', 'size', /limit is 8192/);
});

t.test('a genuine token with its payload swapped fails the signature; a signed non-JSON payload is malformed', async (t) => {
  const p = await provider(t);
  const verifier = new OidcVerifier({ issuer: p.issuer, audience: p.clientId });
  const [h, , s] = (await p.idToken()).split('.');
  await rejects(t, verifier.verify(`${h}.${b64({ sub: 'admin', iss: p.issuer, aud: p.clientId })}.${s}`), 'ID_TOKEN_INVALID', 'signature', /signature/);
  const notJson = await new CompactSign(new TextEncoder().encode('not json'))
    .setProtectedHeader({ alg: p.signingKey.alg, kid: p.signingKey.kid })
    .sign(p.signingKey.privateKey);
  await rejects(t, verifier.verify(notJson), 'ID_TOKEN_INVALID', 'format', /malformed/);
});

t.test('the provider down: OIDC_PROVIDER_UNAVAILABLE with a 503 hint, and the message reaches the caller', async (t) => {
  const p = await startOidcProvider();
  const idToken = await p.idToken();
  await p.close();
  const verifier = new OidcVerifier({ issuer: p.issuer, audience: p.clientId, fetchTimeoutMs: 2000 });
  // fetch may still hold a pooled connection to it ("other side closed") or find the port shut (ECONNREFUSED)
  const err = await rejects(t, verifier.verify(idToken), 'OIDC_PROVIDER_UNAVAILABLE', undefined, /the OpenID provider http:\/\/127\.0\.0\.1:\d+ is unavailable: discovery failed \(.+\)/);
  t.not(err.kind, 'internal', 'not internal: the message is shown, not replaced by "internal error"');
  t.equal(err.data['status'], 503);
  t.same(authFailure(err), { status: 503, detail: err.message, code: 'OIDC_PROVIDER_UNAVAILABLE' });
  t.ok(err.cause, 'the low-level cause is kept for the log');

  // a port nobody listens on (found by listening once, then closing before anyone connects)
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const nobody = new OidcVerifier({ issuer: `http://127.0.0.1:${port}`, audience: p.clientId });
  await rejects(t, nobody.verify(idToken), 'OIDC_PROVIDER_UNAVAILABLE', undefined, /discovery failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/);
});

/** A fake provider that answers discovery as told: for the provider-side failures only. */
async function fakeProvider(t: Test, answer: (issuer: string, path: string) => { status: number; body: unknown }) {
  const server = createServer((req, res) => {
    const { status, body } = answer(issuer, req.url ?? '/');
    res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return issuer;
}

t.test('a provider that answers badly: discovery 500, not JSON, another issuer, HS-only, JWKS down', async (t) => {
  const p = await provider(t);
  const token = await p.idToken();
  const cases: Array<[string, (issuer: string, path: string) => { status: number; body: unknown }, string, RegExp]> = [
    ['discovery 500', () => ({ status: 500, body: {} }), 'OIDC_PROVIDER_UNAVAILABLE', /discovery answered HTTP 500/],
    ['not JSON', () => ({ status: 200, body: '<html>' }), 'OIDC_PROVIDER_UNAVAILABLE', /discovery document is not JSON/],
    ['another issuer', () => ({ status: 200, body: { issuer: 'https://elsewhere.example', jwks_uri: `${p.issuer}/jwks` } }), 'OIDC_DISCOVERY_INVALID', /names the issuer "https:\/\/elsewhere.example", not the configured one/],
    ['HS only', (issuer) => ({ status: 200, body: { issuer, jwks_uri: `${p.issuer}/jwks`, id_token_signing_alg_values_supported: ['HS256'] } }), 'OIDC_DISCOVERY_INVALID', /asymmetric algorithm is required/],
    ['http jwks_uri', (issuer) => ({ status: 200, body: { issuer, jwks_uri: 'http://keys.example/jwks' } }), 'OIDC_DISCOVERY_INVALID', /no https jwks_uri/],
    ['JWKS 503', (issuer, path) => (path === '/jwks' ? { status: 503, body: {} } : { status: 200, body: { issuer, jwks_uri: `${issuer}/jwks` } }), 'OIDC_PROVIDER_UNAVAILABLE', /its JWKS failed \(Expected 200 OK/],
    ['JWKS not a key set', (issuer, path) => (path === '/jwks' ? { status: 200, body: { keys: 'no' } } : { status: 200, body: { issuer, jwks_uri: `${issuer}/jwks` } }), 'OIDC_PROVIDER_UNAVAILABLE', /its JWKS is not a JWK Set/],
  ];
  for (const [name, answer, code, message] of cases) {
    const issuer = await fakeProvider(t, answer);
    // a token that names the fake issuer, so only the provider's answer can be what fails
    const claims = { ...decodeJwt(token), iss: issuer };
    const forged = await mint(p, claims);
    const err = await rejects(t, new OidcVerifier({ issuer, audience: p.clientId }).verify(forged), code, undefined, message);
    t.equal(err.data['status'], code === 'OIDC_PROVIDER_UNAVAILABLE' ? 503 : 502, `${name}: status hint`);
  }
});

t.test('discovery is cached, shared by concurrent calls, and a stale copy serves while the provider is down', async (t) => {
  const p = await provider(t);
  const tokens = await Promise.all([p.idToken(), p.idToken()]);
  let discoveries = 0;
  let down = false;
  const issuer = await fakeProvider(t, (iss, path) => {
    if (path === '/.well-known/openid-configuration') discoveries++;
    return down ? { status: 503, body: {} } : { status: 200, body: { issuer: iss, jwks_uri: `${p.issuer}/jwks` } };
  });
  let clock = 0;
  const verifier = new OidcVerifier({ issuer, audience: p.clientId, discoveryTtlMs: 50, cacheClock: () => clock });
  const reissued = await Promise.all(tokens.map((tok) => mint(p, { ...decodeJwt(tok), iss: issuer })));
  await Promise.all(reissued.map((tok) => verifier.verify(tok)));
  t.equal(discoveries, 1, 'two concurrent verifications, one discovery');
  await verifier.verify(reissued[0]!);
  clock += 49;
  await verifier.verify(reissued[0]!);
  t.equal(discoveries, 1, 'cached');
  clock += 1;
  await verifier.verify(reissued[0]!);
  t.equal(discoveries, 2, 'refetched after the ttl');
  down = true;
  clock += 50;
  t.equal((await verifier.verify(reissued[1]!)).sub, 'operator-1', 'discovery fails, the last good document serves');
  t.equal(discoveries, 3, 'it did try');
});

t.test('the configuration is checked at construction', async (t) => {
  const bad = (opts: ConstructorParameters<typeof OidcVerifier>[0], message: RegExp) =>
    t.throws(() => new OidcVerifier(opts), { code: 'OIDC_CONFIG_INVALID', message });
  bad({ issuer: 'http://idp.example', audience: 'x' }, /https URL/);
  bad({ issuer: 'not a url', audience: 'x' }, /https URL/);
  bad({ issuer: 'https://idp.example', audience: [] }, /audience/);
  bad({ issuer: 'https://idp.example', audience: '' }, /audience/);
  bad({ issuer: 'https://idp.example', audience: 'x', clockToleranceSeconds: -1 }, /clockToleranceSeconds/);
  t.ok(new OidcVerifier({ issuer: 'http://localhost:8080/realms/ops', audience: 'x' }), 'http on loopback is allowed');
});
