import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { FORGOT_MESSAGE, LOGIN_PER_ADDRESS } from '../../../../../plugins/kyc/accounts/index.js';
import { providerLogin } from '../../../common/auth/provider-login.js';
import { harness, isProblem, OPERATOR_TOKEN, uniqueEmail } from '../../accounts/harness.js';

const PASSWORD = 'correct horse battery';
const code = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });
const resetToken = (text: string) => /reset-password\?token=(rst_[A-Za-z0-9_-]{43})/.exec(text)?.[1];

t.test('register, login and me: the seed shapes', async (t) => {
  const h = await harness(t);
  const email = uniqueEmail('ada');
  const reg = await h.req('POST', '/v1/auth/register', { body: { email: `  ${email.toUpperCase()} `, password: PASSWORD, name: 'Ada Lovelace' } });
  t.equal(reg.status, 201);
  t.same(Object.keys(reg.body).sort(), ['token', 'user']);
  t.match(reg.body.user, { id: /^usr_[0-9a-f]{24}$/, email, name: 'Ada Lovelace', organizationId: /^org_[0-9a-f]{24}$/, role: 'owner', createdAt: /^\d{4}-\d\d-\d\dT/ });
  t.match(reg.body.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);

  const login = await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
  t.equal(login.status, 200);
  t.same(login.body.user, reg.body.user);
  t.type(login.body.token, 'string');

  const me = await h.req('GET', '/v1/auth/me', { token: login.body.token });
  t.equal(me.status, 200);
  t.same(me.body.organization, { id: reg.body.user.organizationId, name: "Ada Lovelace's organization", email, plan: 'free', totpEnabled: false, createdAt: reg.body.user.createdAt });
  t.same(me.body.user, reg.body.user);

  const named = await h.req('POST', '/v1/auth/register', { body: { email: uniqueEmail(), password: PASSWORD, name: 'Bo', organizationName: 'Acme Ltd' } });
  t.equal(named.status, 201);
  t.equal((await h.req('GET', '/v1/auth/me', { token: named.body.token })).body.organization.name, 'Acme Ltd');
});

t.test('register and login refuse bad input precisely', async (t) => {
  const h = await harness(t);
  const email = uniqueEmail();
  await h.register(email);
  isProblem(t, await h.req('POST', '/v1/auth/register', { body: { email: email.toUpperCase(), password: PASSWORD, name: 'X' } }), 409, 'conflict', 'EMAIL_TAKEN');
  const bad = async (body: unknown, field: string) => {
    const res = await h.req('POST', '/v1/auth/register', { body });
    isProblem(t, res, 400, 'validation');
    t.equal(res.body.field, field, `field ${field}`);
  };
  await bad({ password: PASSWORD, name: 'X' }, 'email');
  await bad({ email: 'nope', password: PASSWORD, name: 'X' }, 'email');
  await bad({ email: uniqueEmail(), password: 'short', name: 'X' }, 'password');
  await bad({ email: uniqueEmail(), password: 'x'.repeat(129), name: 'X' }, 'password');
  await bad({ email: uniqueEmail(), password: PASSWORD }, 'name');
  await bad({ email: uniqueEmail(), password: PASSWORD, name: 'X', role: 'admin' }, 'role');
  isProblem(t, await h.req('POST', '/v1/auth/register', { raw: '{not json', headers: { 'content-type': 'application/json' } }), 400, 'validation');
  isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD, totpCode: '12ab' } }), 400, 'validation');

  isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: 'wrong password' } }), 401, 'unauthorized', 'INVALID_CREDENTIALS');
  const unknown = await h.req('POST', '/v1/auth/login', { body: { email: uniqueEmail(), password: PASSWORD } });
  isProblem(t, unknown, 401, 'unauthorized', 'INVALID_CREDENTIALS');
  t.equal(unknown.body.detail, 'wrong email or password', 'the same detail for an unknown email');
  isProblem(t, await h.req('GET', '/v1/auth/me'), 401, 'unauthorized');
  isProblem(t, await h.req('GET', '/v1/auth/nope/extra'), 404, 'not-found');
});

t.test('TOTP: setup, enable, then login needs a code, accepted once', async (t) => {
  const h = await harness(t);
  const email = uniqueEmail();
  const { token } = await h.register(email);
  isProblem(t, await h.req('POST', '/v1/auth/totp/enable', { token, body: { secret: 'A'.repeat(32), totpCode: '123456' } }), 409, 'conflict', 'TOTP_NOT_SET_UP');

  const setup = await h.req('POST', '/v1/auth/totp/setup', { token });
  t.equal(setup.status, 200);
  t.same(Object.keys(setup.body).sort(), ['qrCode', 'secret']);
  t.match(setup.body.secret, /^[A-Z2-7]{32}$/);
  t.match(setup.body.qrCode, /^data:image\/png;base64,/);
  const png = Buffer.from(setup.body.qrCode.split(',')[1], 'base64');
  t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  const secret: string = setup.body.secret;

  isProblem(t, await h.req('POST', '/v1/auth/totp/enable', { token, body: { secret, totpCode: code(secret, h.clock.now + 5 * 60_000) } }), 400, 'validation', 'TOTP_INVALID');
  isProblem(t, await h.req('POST', '/v1/auth/totp/enable', { token, body: { secret: 'B'.repeat(32), totpCode: code(secret, h.clock.now) } }), 400, 'validation', 'TOTP_SECRET_MISMATCH');
  isProblem(t, await h.req('POST', '/v1/auth/totp/enable', { token, body: { secret } }), 400, 'validation');
  const enableCode = code(secret, h.clock.now);
  const enabled = await h.req('POST', '/v1/auth/totp/enable', { token, body: { secret, totpCode: enableCode } });
  t.equal(enabled.status, 200);
  t.type(enabled.body.message, 'string');
  t.equal((await h.req('GET', '/v1/auth/me', { token })).body.organization.totpEnabled, true);
  isProblem(t, await h.req('POST', '/v1/auth/totp/setup', { token }), 409, 'conflict', 'TOTP_ALREADY_ENABLED');

  const noCode = await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
  t.equal(noCode.status, 200);
  t.same(noCode.body, { totpRequired: true }, 'no token without a code');
  isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: 'wrong password' } }), 401, 'unauthorized', 'INVALID_CREDENTIALS');
  isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD, totpCode: enableCode } }), 401, 'unauthorized', 'TOTP_REPLAYED');

  h.clock.now += 30_000;
  const fresh = code(secret, h.clock.now);
  const ok = await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD, totpCode: fresh } });
  t.equal(ok.status, 200);
  t.type(ok.body.token, 'string');
  const replay = await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD, totpCode: fresh } });
  isProblem(t, replay, 401, 'unauthorized', 'TOTP_REPLAYED');
  h.clock.now += 30_000;
  isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD, totpCode: fresh } }), 401, 'unauthorized', 'TOTP_REPLAYED');
  isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD, totpCode: code(secret, h.clock.now - 5 * 60_000) } }), 401, 'unauthorized', 'TOTP_INVALID');
});

t.test('login brute force is throttled per email, then per address', async (t) => {
  const h = await harness(t);
  const email = uniqueEmail();
  await h.register(email);
  for (let i = 0; i < 5; i++) isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: `wrong ${i} password` } }), 401, 'unauthorized', 'INVALID_CREDENTIALS');
  const locked = await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
  isProblem(t, locked, 429, 'rate-limited', 'LOGIN_THROTTLED');
  const retry = Number(locked.headers.get('retry-after'));
  t.ok(retry > 0 && retry <= 900, `Retry-After ${retry} s`);
  h.clock.now += 15 * 60_000 + 1000;
  t.equal((await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD } })).status, 200, 'open again after the window');

  // many emails from one address: the address's own limit
  for (let i = 0; i < LOGIN_PER_ADDRESS.max; i++) await h.req('POST', '/v1/auth/login', { body: { email: uniqueEmail(), password: 'wrong password' } });
  const byAddress = await h.req('POST', '/v1/auth/login', { body: { email: uniqueEmail(), password: 'wrong password' } });
  isProblem(t, byAddress, 429, 'rate-limited', 'LOGIN_THROTTLED');
  t.match(byAddress.body.detail, /from this address/);
});

t.test('forgot and reset over SMTP: same answer, single use, expiry', async (t) => {
  const h = await harness(t, { smtp: true });
  const smtp = h.smtp!;
  const email = uniqueEmail();
  const { token: oldJwt } = await h.register(email);

  const unknown = await h.req('POST', '/v1/auth/forgot-password', { body: { email: uniqueEmail() } });
  const known = await h.req('POST', '/v1/auth/forgot-password', { body: { email } });
  t.equal(unknown.status, 200);
  t.equal(known.status, 200);
  t.same(unknown.body, known.body, 'identical whether or not the account exists');
  t.same(known.body, { message: FORGOT_MESSAGE });
  const mail = await smtp.next(0);
  t.same(mail.to, [email], 'the only mail went to the account');
  t.equal(mail.subject, 'Reset your password');
  t.match(mail.text, `${h.url}/v1/auth/reset-password?token=`);
  const token = resetToken(mail.text)!;
  t.ok(token, 'the mail carries a reset token');

  const page = await h.req('GET', `/v1/auth/reset-password?token=${token}`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(page.text, token);
  t.match(page.headers.get('content-security-policy'), /default-src 'none'/);

  isProblem(t, await h.req('POST', '/v1/auth/reset-password', { body: { token, password: 'short' } }), 400, 'validation');
  h.clock.now += 2000;
  const reset = await h.req('POST', '/v1/auth/reset-password', { body: { token, password: 'a brand new password' } });
  t.equal(reset.status, 200);
  t.type(reset.body.message, 'string');
  isProblem(t, await h.req('POST', '/v1/auth/reset-password', { body: { token, password: 'another new password' } }), 400, 'validation', 'RESET_TOKEN_INVALID');
  isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: PASSWORD } }), 401, 'unauthorized', 'INVALID_CREDENTIALS');
  t.equal((await h.req('POST', '/v1/auth/login', { body: { email, password: 'a brand new password' } })).status, 200);
  isProblem(t, await h.req('GET', '/v1/auth/me', { token: oldJwt }), 401, 'unauthorized', 'SESSION_REVOKED');

  await h.req('POST', '/v1/auth/forgot-password', { body: { email } });
  const second = resetToken((await smtp.next(1)).text)!;
  h.clock.now += 60 * 60_000 + 1;
  isProblem(t, await h.req('POST', '/v1/auth/reset-password', { body: { token: second, password: 'too late password' } }), 400, 'validation', 'RESET_TOKEN_EXPIRED');
  isProblem(t, await h.req('POST', '/v1/auth/reset-password', { body: { token: 'rst_nonsense', password: 'whatever password' } }), 400, 'validation', 'RESET_TOKEN_INVALID');
  isProblem(t, await h.req('POST', '/v1/auth/forgot-password', { body: {} }), 400, 'validation');
});

t.test('forgot without SMTP: the outbox an operator reads', async (t) => {
  const h = await harness(t);
  const email = uniqueEmail();
  await h.register(email);
  t.equal((await h.req('POST', '/v1/auth/forgot-password', { body: { email } })).status, 200);
  await h.accounts.accounts.drain();
  isProblem(t, await h.req('GET', '/v1/operator/mail'), 401, 'unauthorized');
  isProblem(t, await h.req('GET', '/v1/operator/mail', { token: 'x'.repeat(40) }), 401, 'unauthorized', 'OPERATOR_TOKEN_INVALID');
  const box = await h.req('GET', '/v1/operator/mail', { token: OPERATOR_TOKEN });
  t.equal(box.status, 200);
  t.equal(box.body.via, 'outbox');
  t.equal(box.body.mails.length, 1);
  t.match(box.body.mails[0], { id: /^mail_/, to: email, subject: 'Reset your password' });
  const token = resetToken(box.body.mails[0].text)!;
  t.equal((await h.req('POST', '/v1/auth/reset-password', { body: { token, password: 'from the outbox' } })).status, 200);
  t.equal((await h.req('POST', '/v1/auth/login', { body: { email, password: 'from the outbox' } })).status, 200);
  isProblem(t, await h.req('GET', '/v1/operator/mail?limit=0', { token: OPERATOR_TOKEN }), 400, 'validation');

  // more than 3 requests an hour for one email send nothing more, and still answer the same
  for (let i = 0; i < 4; i++) t.same((await h.req('POST', '/v1/auth/forgot-password', { body: { email } })).body, { message: FORGOT_MESSAGE });
  await h.accounts.accounts.drain();
  t.equal((await h.mailer.outbox()).length, 3, 'one earlier mail and two more, then silence');
});

t.test('the operator mail route answers 503 without an operator token', async (t) => {
  const h = await harness(t, { operatorToken: false });
  isProblem(t, await h.req('GET', '/v1/operator/mail', { token: OPERATOR_TOKEN }), 503, 'not-configured');
});

t.test('provider login: authorization code with PKCE, state and nonce, end to end', async (t) => {
  const h = await harness(t, { oidc: true });
  const { authUrl, callback } = await providerLogin(h.url, `?redirectUrl=${encodeURIComponent(`${h.url}/app/home?x=1`)}`);
  t.equal(authUrl.origin, h.oidc!.issuer);
  t.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
  t.match(authUrl.searchParams.get('code_challenge'), /^[\w-]{43}$/);
  t.match(authUrl.searchParams.get('state'), /^\d{13}\.[\w-]{32}$/);
  t.match(authUrl.searchParams.get('nonce'), /^[\w-]{20,}$/);
  t.equal(authUrl.searchParams.get('redirect_uri'), `${h.url}/v1/auth/test/callback`);
  t.equal(authUrl.searchParams.get('client_id'), 'kyc-test');

  const back = await fetch(callback, { redirect: 'manual' });
  t.equal(back.status, 302);
  const landing = new URL(back.headers.get('location')!);
  t.equal(`${landing.origin}${landing.pathname}${landing.search}`, `${h.url}/app/home?x=1`);
  const jwt = new URLSearchParams(landing.hash.slice(1)).get('token')!;
  const me = await h.req('GET', '/v1/auth/me', { token: jwt });
  t.equal(me.status, 200);
  t.match(me.body.user, { email: 'operator@example.org', name: 'Test Operator' });
  t.equal(me.body.organization.name, "Test Operator's organization");

  isProblem(t, await h.req('GET', callback.slice(h.url.length)), 400, 'validation', 'LOGIN_STATE_INVALID');

  // the same (issuer, sub) again: the same account; no redirect asked: JSON
  const again = await providerLogin(h.url);
  const json = await h.req('GET', again.callback.slice(h.url.length));
  t.equal(json.status, 200);
  t.same(Object.keys(json.body).sort(), ['token', 'user']);
  t.equal(json.body.user.id, me.body.user.id, 'matched by issuer and sub');

  // its verified email became the account's: a password can be set through a reset
  t.equal((await h.req('POST', '/v1/auth/forgot-password', { body: { email: 'operator@example.org' } })).status, 200);
  await h.accounts.accounts.drain();
  t.equal((await h.mailer.outbox())[0]?.to, 'operator@example.org');
});

t.test('provider login refuses what it must', async (t) => {
  const h = await harness(t, { oidc: true });
  isProblem(t, await h.req('GET', '/v1/auth/nobody'), 404, 'not-found', 'PROVIDER_UNKNOWN');
  isProblem(t, await h.req('GET', `/v1/auth/test?redirectUrl=${encodeURIComponent('https://evil.example/steal')}`), 400, 'validation', 'REDIRECT_NOT_ALLOWED');
  isProblem(t, await h.req('GET', '/v1/auth/test?other=1'), 400, 'validation');
  isProblem(t, await h.req('GET', '/v1/auth/test/callback?code=abc&state=0000000000000.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'), 400, 'validation', 'LOGIN_STATE_INVALID');

  const { callback } = await providerLogin(h.url);
  const u = new URL(callback);
  u.searchParams.set('code', 'forged-code');
  isProblem(t, await h.req('GET', `${u.pathname}${u.search}`), 401, 'unauthorized', 'PROVIDER_LOGIN_FAILED');

  const late = await providerLogin(h.url);
  h.clock.now += 11 * 60_000;
  const res = await h.req('GET', late.callback.slice(h.url.length));
  isProblem(t, res, 400, 'validation', 'LOGIN_STATE_INVALID');
  t.match(res.body.detail, /10 minutes/);
});
