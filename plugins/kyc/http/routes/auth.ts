import { randomBytes } from 'node:crypto';
import { validation } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { onlyFields, onlyQuery, optionalString, queryString, requiredString } from '../../../common/http/validate.js';
import { checkPassword } from '../../accounts/passwords.js';
import type { ProviderLogins } from '../../accounts/provider-login.js';
import type { AccountService } from '../../accounts/service.js';
import { isTotpCode } from '../../accounts/totp.js';
import type { KycRouter } from '../router.js';

/**
 * The /v1/auth routes (seed "Endpoints", first rows): register, login, me, TOTP, password reset,
 * and provider logins (`GET /v1/auth/<provider>`, back at `GET /v1/auth/<provider>/callback`).
 * `me` answers `{user, organization}`: the seed's `{organization}` and the caller's user.
 * `accept-invitation` makes the account of a team invitation (routes/team.ts makes invitations).
 */

export interface AuthRouteDeps {
  accounts: AccountService;
  providers: ProviderLogins;
  /** the service's public base URL, to rebuild the callback URL the provider redirected to */
  publicUrl: () => string;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
/** an email address, surrounding blanks dropped (pasted addresses carry them) */
export const email = (body: Record<string, unknown>) =>
  requiredString({ email: typeof body.email === 'string' ? body.email.trim() : body.email }, 'email', { max: 254, pattern: EMAIL, patternText: 'an email address' });
const RESERVED = '(?!(?:register|login|me|totp|forgot-password|reset-password|accept-invitation|callback)(?:/|$))';

function totpCode(body: Record<string, unknown>, required: boolean): string | undefined {
  const v = body.totpCode;
  if (v === undefined || v === null) {
    if (required) throw validation('totpCode is required', 'totpCode');
    return undefined;
  }
  if (!isTotpCode(v)) throw validation('totpCode must be the 6 digits your authenticator app shows', 'totpCode');
  return v;
}

export function mountAuth(router: KycRouter, deps: AuthRouteDeps): void {
  const { accounts, providers } = deps;

  router.add('POST', '/v1/auth/register', 'none', async (req) => {
    const body = await req.body();
    onlyFields(body, ['email', 'password', 'name', 'organizationName']);
    const input = { email: email(body), password: checkPassword(body.password), name: requiredString(body, 'name', { max: 100 }).trim() };
    const organizationName = optionalString(body, 'organizationName', { max: 100 })?.trim();
    return new Reply(201, await accounts.register(organizationName === undefined ? input : { ...input, organizationName }));
  });

  router.add('POST', '/v1/auth/login', 'none', async (req) => {
    const body = await req.body();
    onlyFields(body, ['email', 'password', 'totpCode']);
    const input = { email: email(body), password: requiredString(body, 'password', { max: 128 }) };
    const code = totpCode(body, false);
    return accounts.login(code === undefined ? input : { ...input, totpCode: code }, req.ctx.req.socket.remoteAddress ?? 'unknown');
  });

  router.add('POST', '/v1/auth/accept-invitation', 'none', async (req) => {
    const body = await req.body();
    onlyFields(body, ['token', 'name', 'password']);
    const token = requiredString(body, 'token', { max: 100 });
    const input = { name: requiredString(body, 'name', { max: 100 }).trim(), password: checkPassword(body.password) };
    return new Reply(201, await accounts.acceptInvitation(token, input));
  });

  router.add('GET', '/v1/auth/me', 'jwt', async (req) => {
    onlyQuery(req.query, []);
    return accounts.me(req.caller.userId!);
  });

  router.add('POST', '/v1/auth/totp/setup', 'jwt', async (req) => accounts.totpSetup(req.caller.userId!));

  router.add('POST', '/v1/auth/totp/enable', 'jwt', async (req) => {
    const body = await req.body();
    onlyFields(body, ['secret', 'totpCode']);
    await accounts.totpEnable(req.caller.userId!, requiredString(body, 'secret', { max: 64 }), totpCode(body, true)!);
    return { message: 'TOTP is enabled; logins now need a code.' };
  });

  router.add('POST', '/v1/auth/forgot-password', 'none', async (req) => {
    const body = await req.body();
    onlyFields(body, ['email']);
    return accounts.forgotPassword(email(body));
  });

  router.add('GET', '/v1/auth/reset-password', 'none', async (req) => {
    onlyQuery(req.query, ['token']);
    const token = queryString(req.query, 'token', 100);
    if (token === undefined) throw validation('token is required: open the link from the reset mail', 'token');
    const page = resetPage(token);
    req.ctx.send(200, page.html, 'text/html; charset=utf-8', page.headers);
    // the page is sent: the router's JSON answer of null is then a no-op
    return null;
  });

  router.add('POST', '/v1/auth/reset-password', 'none', async (req) => {
    const body = await req.body();
    onlyFields(body, ['token', 'password']);
    const token = requiredString(body, 'token', { max: 100 });
    return accounts.resetPassword(token, checkPassword(body.password));
  });

  router.add('GET', new RegExp(`^/v1/auth/${RESERVED}([a-z][a-z0-9-]{0,31})/callback$`), 'none', async (req) => {
    const name = req.params[0]!;
    const current = new URL(`${deps.publicUrl()}/v1/auth/${name}/callback`);
    current.search = req.query.toString();
    const { identity, redirectUrl } = await providers.complete(name, current);
    const session = await accounts.providerLogin(identity);
    if (redirectUrl === null) return session;
    const landing = new URL(redirectUrl);
    landing.hash = `token=${encodeURIComponent(session.token)}`;
    return new Reply(302, { redirect: landing.origin + landing.pathname }, { location: landing.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  });

  router.add('GET', new RegExp(`^/v1/auth/${RESERVED}([a-z][a-z0-9-]{0,31})$`), 'none', async (req) => {
    onlyQuery(req.query, ['redirectUrl']);
    const name = req.params[0]!;
    const location = await providers.begin(name, queryString(req.query, 'redirectUrl', 2000));
    return new Reply(302, { redirect: location }, { location, 'cache-control': 'no-store' });
  });
}

/**
 * The page the reset mail links to (`GET /v1/auth/reset-password?token=…`): a form for the new
 * password that POSTs `{token, password}` to the same path as JSON. The token stays in the page;
 * it is checked when the form is sent, so opening the link spends nothing.
 */

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function resetPage(token: string): { html: string; headers: Record<string, string> } {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Choose a new password</title>
<style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label,input,button{display:block;width:100%;box-sizing:border-box}input{font:inherit;padding:.5rem;margin:.25rem 0 1rem}button{font:inherit;padding:.6rem}#out{margin-top:1rem}</style>
</head><body><main>
<h1>Choose a new password</h1>
<form id="f"><input type="hidden" name="token" value="${escape(token)}">
<label for="p">New password (at least 8 characters)</label><input id="p" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="128" required>
<button type="submit">Set the password</button></form>
<p id="out" role="status" aria-live="polite"></p>
</main>
<script nonce="${nonce}">
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = new FormData(e.target);
  const out = document.getElementById('out');
  const res = await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: form.get('token'), password: form.get('password') }) });
  const body = await res.json().catch(() => ({}));
  out.textContent = res.ok ? body.message : (body.detail || 'the password could not be set');
});
</script></body></html>`;
  return {
    html,
    headers: {
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
  };
}
