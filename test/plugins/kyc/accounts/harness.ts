import type { Test } from 'tap';
import { HttpServer } from '../../../../node/http/server.js';
import { createLogger } from '../../../../node/logging.js';
import { openDatabase } from '../../../../node/state/db.js';
import { Mailer } from '../../../../plugins/common/mail/index.js';
import { createAccounts, type Accounts } from '../../../../plugins/kyc/accounts/index.js';
import { parseKycConfig, type KycConfig } from '../../../../plugins/kyc/config.js';
import { KycAuthenticator } from '../../../../plugins/kyc/http/auth.js';
import { createKycRouter, type KycRouter } from '../../../../plugins/kyc/http/router.js';
import { mountApiKeys } from '../../../../plugins/kyc/http/routes/api-keys.js';
import { mountAuth } from '../../../../plugins/kyc/http/routes/auth.js';
import { mountOperatorMail } from '../../../../plugins/kyc/http/routes/operator-mail.js';
import { mountOrganization } from '../../../../plugins/kyc/http/routes/organization.js';
import { mountTeam } from '../../../../plugins/kyc/http/routes/team.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { startOidcProvider, type TestOidcProvider } from '../../common/auth/oidc-provider.js';
import { startSmtp, type TestSmtp } from '../../common/mail/smtp.js';
import { httpCall } from '../../common/http-call.js';

/**
 * The accounts routes on a real HTTP server (port 0): the KYC router with the real
 * authenticator, the accounts part on an in-memory LevelDB, a real SMTP server (`smtp: true`)
 * or the outbox, and a real OpenID provider (`oidc: true`) registered as provider `test`.
 * The clock of the accounts part is `h.clock.now`, which tests move.
 */

export const ERRORS_BASE = 'https://errors.test/kyc';
export const OPERATOR_TOKEN = 'operator-token-of-at-least-24-chars';

export interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface Harness {
  url: string;
  config: KycConfig;
  accounts: Accounts;
  mailer: Mailer;
  router: KycRouter;
  smtp: TestSmtp | undefined;
  oidc: TestOidcProvider | undefined;
  clock: { now: number };
  req(method: string, path: string, opts?: { token?: string; apiKey?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Res>;
  /** registers an account and answers its token and user */
  register(email?: string, password?: string, name?: string): Promise<{ token: string; user: any }>;
}

let n = 0;
export const uniqueEmail = (tag = 'user'): string => `${tag}-${++n}-${process.pid}@example.org`;

export async function harness(t: Test, opts: { smtp?: boolean; oidc?: boolean; operatorToken?: boolean; config?: Record<string, unknown>; probe?: boolean } = {}): Promise<Harness> {
  const db = await openDatabase('memory');
  const ns = db.pluginStore('kyc');
  const log = createLogger({ level: 'silent' });
  const clock = { now: Date.now() };
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 * 1024 });
  const { port } = await http.listen();
  const url = `http://127.0.0.1:${port}`;
  const smtp = opts.smtp ? await startSmtp() : undefined;
  const oidc = opts.oidc ? await startOidcProvider({ clientId: 'kyc-test', redirectUris: [`${url}/v1/auth/test/callback`] }) : undefined;
  const config = parseKycConfig({
    enabled: true,
    host: '127.0.0.1',
    port: 0,
    errorsBase: ERRORS_BASE,
    ...(smtp ? { email: { smtpUrl: smtp.url, from: 'KYC <kyc@ledger.test>' } } : {}),
    ...(oidc ? { providers: { test: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret } } } : {}),
    ...(opts.operatorToken === false ? {} : { operatorToken: OPERATOR_TOKEN }),
    ...opts.config,
  });
  const mailer = new Mailer({ store: ns, smtpUrl: config.email.smtpUrl, from: config.email.from, log });
  mailer.start();
  const accounts = await createAccounts({ config, db: new PluginDb(ns), log, now: () => clock.now, publicUrl: () => url }, mailer);
  const auth = new KycAuthenticator({ tokens: accounts.tokens, accounts: accounts.accounts, apiKeys: accounts.apiKeys, operatorToken: config.operatorToken });
  const router = createKycRouter(http, auth, { errorsBase: ERRORS_BASE, log });
  mountAuth(router, { accounts: accounts.accounts, providers: accounts.providers, publicUrl: () => url });
  mountApiKeys(router, { apiKeys: accounts.apiKeys });
  mountOperatorMail(router, { mailer });
  mountOrganization(router, { accounts: accounts.accounts });
  mountTeam(router, { team: accounts.team });
  if (opts.probe) {
    // echoes the caller of each level, to test the authenticator through real requests
    for (const level of ['jwt', 'apiKey', 'bearer', 'operator', 'member'] as const) router.add('GET', `/v1/probe/${level}`, level, (req) => req.caller);
  }
  router.fallback('/v1');
  t.teardown(async () => {
    await accounts.accounts.drain();
    await http.close();
    await mailer.stop();
    await smtp?.close();
    await oidc?.close();
    await db.close();
  });

  const req: Harness['req'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    if (o.apiKey !== undefined) headers['x-api-key'] = o.apiKey;
    return httpCall(url, method, path, { headers, body: o.body, ...(o.raw !== undefined ? { raw: o.raw } : {}), redirect: 'manual' });
  };

  const register: Harness['register'] = async (email = uniqueEmail(), password = 'correct horse battery', name = 'Ada Lovelace') => {
    const res = await req('POST', '/v1/auth/register', { body: { email, password, name } });
    if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  return { url, config, accounts, mailer, router, smtp, oidc, clock, req, register };
}

/** Asserts an RFC 7807 body of the KYC surface, with its code when given. */
export function isProblem(t: Test, res: Res, status: number, slug: string, code?: string): void {
  t.equal(res.status, status, `status ${status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  t.match(res.headers.get('content-type'), /application\/problem\+json/, 'problem content type');
  t.equal(res.body?.type, `${ERRORS_BASE}/${slug}`, `type …/${slug}`);
  t.type(res.body?.title, 'string');
  t.equal(res.body?.status, status);
  t.type(res.body?.detail, 'string');
  t.type(res.body?.instance, 'string');
  if (code !== undefined) t.equal(res.body?.code, code, `code ${code}`);
}

export const MEMBER_PASSWORD = 'a member password';

/** The link token of the newest invitation mail to `email`, from the outbox (GET /v1/operator/mail). */
export async function invitationToken(h: Harness, email: string): Promise<string> {
  const box = await h.req('GET', '/v1/operator/mail', { token: OPERATOR_TOKEN });
  const mail = box.body.mails.find((m: { to: string }) => m.to === email);
  const token = mail && /#\/accept\?token=(inv_[\w-]+)/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no invitation mail to ${email} in the outbox`);
  return token;
}

/** A new member of `inviter`'s organization with `role`, by invitation, mail and acceptance. */
export async function joinTeam(h: Harness, inviter: { token: string }, role: string, email = uniqueEmail(role)): Promise<{ token: string; user: any }> {
  const invited = await h.req('POST', '/v1/team/invitations', { token: inviter.token, body: { email, role } });
  if (invited.status !== 201) throw new Error(`invitation failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const accepted = await h.req('POST', '/v1/auth/accept-invitation', { body: { token: await invitationToken(h, email), name: `A ${role}`, password: MEMBER_PASSWORD } });
  if (accepted.status !== 201) throw new Error(`accepting failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return accepted.body;
}
