import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import type ProviderClass from 'oidc-provider';

/**
 * A real OpenID provider for tests (panva's certified oidc-provider 9) on 127.0.0.1, plain
 * http, port 0. `idToken()` drives the authorization-code flow the way a browser and a relying
 * party would: /auth -> login interaction -> consent interaction -> redirect with a code ->
 * POST /token -> id_token. The "user" is automatic: our own interaction route logs in the
 * account named by `login_hint` and grants what is asked, so no HTML form is parsed.
 *
 * Reused by the relay, KYC and wallet tests: `startOidcProvider({tenant: 't1'})`.
 */

export interface OidcProviderOptions {
  /** default 'ledger-operator' */
  clientId?: string;
  /** default a random 32-byte string */
  clientSecret?: string;
  /** the default account's sub; default 'operator-1' */
  sub?: string;
  /** default 'operator@example.org' */
  email?: string;
  /** default true */
  emailVerified?: boolean;
  /** default 'Test Operator' */
  name?: string;
  /** the custom `tenant` claim; default 'tenant-1' */
  tenant?: string;
  /** id_token lifetime; default 600 s */
  idTokenTtlSeconds?: number;
  /** the id_token signing algorithm; default RS256 */
  alg?: 'RS256' | 'ES256';
  /** more redirect URIs the client may use: the callback of a relying party under test */
  redirectUris?: string[];
  /**
   * Public clients (no secret, PKCE required), such as a console running the code flow in the
   * browser: they may exchange a code from their redirect URIs' origins (CORS).
   */
  publicClients?: Array<{ clientId: string; redirectUris: string[] }>;
  /**
   * The login and consent steps as HTML forms a browser fills in and submits (an account name,
   * then "Allow"), instead of the automatic user; `idToken()` then cannot run. Default false.
   */
  interactive?: boolean;
}

export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
  tenant?: string;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`, exactly as discovery and the tokens say it */
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /**
   * The provider's own signing key, for negative tests that need a token with one claim wrong
   * and a signature that verifies. Never mint a happy-path token with it: use idToken().
   */
  signingKey: { kid: string; alg: string; privateKey: CryptoKey };
  /** A genuine id_token from the code flow; `sub` logs in another account with its own claims. */
  idToken(opts?: { sub?: string; claims?: AccountClaims; nonce?: string }): Promise<string>;
  close(): Promise<void>;
}

/** Imports oidc-provider without its console warnings (it warns on Node 20, which it runs on fine). */
async function loadProvider(): Promise<typeof ProviderClass> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider WARNING: Unsupported runtime')) return;
    warn(...args);
  };
  try {
    return (await import('oidc-provider')).default;
  } finally {
    console.warn = warn;
  }
}

/** The provider's own sign-in pages (with `interactive`): an account name, then consent. */
function interactionPage(uid: string, prompt: string, clientId: string): string {
  const escape = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const body =
    prompt === 'login'
      ? `<h1>Sign in to the test provider</h1><form method="post" action="/interaction/${escape(uid)}"><label for="login">Account</label> <input id="login" name="login" autocomplete="username"> <button type="submit">Sign in</button></form>`
      : `<h1>Allow ${escape(clientId)}?</h1><p>${escape(clientId)} asks for your identity, email and profile.</p><form method="post" action="/interaction/${escape(uid)}"><button type="submit">Allow</button></form>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test OpenID provider</title></head><body><main>${body}</main></body></html>`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

/** The provider's storage, one per provider (its built-in memory adapter is process-global and warns). */
function mapAdapter() {
  const store = new Map<string, { payload: Record<string, any>; expiresAt: number | undefined }>();
  const live = (key: string) => {
    const entry = store.get(key);
    if (entry && entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry;
  };
  return class MapAdapter {
    constructor(private readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Record<string, any>, expiresIn?: number) {
      store.set(this.key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
      if (payload['uid']) store.set(`uid:${payload['uid']}`, { payload: { id }, expiresAt: undefined });
    }
    async find(id: string) {
      return live(this.key(id))?.payload;
    }
    async findByUid(uid: string) {
      const id = live(`uid:${uid}`)?.payload['id'];
      return id === undefined ? undefined : this.find(id as string);
    }
    async findByUserCode() {
      return undefined;
    }
    async consume(id: string) {
      const entry = live(this.key(id));
      if (entry) entry.payload['consumed'] = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, entry] of store) if (entry.payload['grantId'] === grantId) store.delete(key);
    }
  };
}

export async function startOidcProvider(opts: OidcProviderOptions = {}): Promise<TestOidcProvider> {
  const Provider = await loadProvider();
  const clientId = opts.clientId ?? 'ledger-operator';
  const clientSecret = opts.clientSecret ?? randomBytes(32).toString('base64url');
  const alg = opts.alg ?? 'RS256';
  const idTokenTtl = opts.idTokenTtlSeconds ?? 600;
  const defaultSub = opts.sub ?? 'operator-1';
  const accounts = new Map<string, AccountClaims>([
    [defaultSub, { email: opts.email ?? 'operator@example.org', email_verified: opts.emailVerified ?? true, name: opts.name ?? 'Test Operator', tenant: opts.tenant ?? 'tenant-1' }],
  ]);

  // the issuer must be known before the provider exists, so listen first and attach it after
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // never served: the flow reads the code from the Location header, as a relying party's callback would
  const redirectUri = `${issuer}/operator/callback`;

  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `test-${randomBytes(6).toString('hex')}`;
  const jwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };

  const provider = new Provider(issuer, {
    adapter: mapAdapter(),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri, ...(opts.redirectUris ?? [])],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: alg,
      },
      ...(opts.publicClients ?? []).map((c) => ({
        client_id: c.clientId,
        token_endpoint_auth_method: 'none' as const,
        redirect_uris: c.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: alg,
      })),
    ],
    // the library's default rule, spelled out: a public client's redirect origins may call /token
    clientBasedCORS: (_ctx: unknown, origin: string, client: { clientAuthMethod: string; redirectUris: string[] }) =>
      origin !== 'null' && client.clientAuthMethod === 'none' && client.redirectUris.some((uri) => new URL(uri).origin === origin),
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    // scope -> claims; `tenant` is our custom claim, asked for with the `tenant` scope
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], tenant: ['tenant'] },
    // put the scope's claims in the id_token itself, not only in userinfo
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, sub: string) {
      const claims = accounts.get(sub);
      if (!claims) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: idTokenTtl,
      Interaction: 600,
      Session: 600,
    },
    async renderError(ctx: { type: string; body: unknown }, out: Record<string, unknown>) {
      ctx.type = 'json';
      ctx.body = out;
    },
  });
  const serveProvider = provider.callback();

  /** The automatic user: log in as login_hint (or the default account), then grant what is asked. With `interactive`, the browser's user does. */
  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (opts.interactive && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(interactionPage(details.uid, details.prompt.name, String(details.params.client_id)));
      return;
    }
    if (details.prompt.name === 'login') {
      let accountId = typeof details.params.login_hint === 'string' ? details.params.login_hint : defaultSub;
      if (opts.interactive) {
        accountId = new URLSearchParams(await readBody(req)).get('login')?.trim() || defaultSub;
        if (!accounts.has(accountId)) accounts.set(accountId, {});
      }
      await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
      return;
    }
    if (details.prompt.name === 'consent') {
      const grant = (details.grantId && (await provider.Grant.find(details.grantId))) || new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id });
      if (details.prompt.details.missingOIDCScope) grant.addOIDCScope(details.prompt.details.missingOIDCScope.join(' '));
      if (details.prompt.details.missingOIDCClaims) grant.addOIDCClaims(details.prompt.details.missingOIDCClaims);
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      return;
    }
    res.writeHead(501).end(`prompt ${details.prompt.name} is not handled`);
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/interaction/')) {
      serveProvider(req, res);
      return;
    }
    interaction(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    });
  });

  async function idToken(req: { sub?: string; claims?: AccountClaims; nonce?: string } = {}): Promise<string> {
    const sub = req.sub ?? defaultSub;
    if (req.claims) accounts.set(sub, req.claims);
    else if (!accounts.has(sub)) accounts.set(sub, {});
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const params = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      scope: 'openid email profile tenant',
      redirect_uri: redirectUri,
      state,
      nonce: req.nonce ?? randomBytes(16).toString('base64url'),
      login_hint: sub,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });

    // a browser: follow redirects by hand, carrying the provider's cookies
    const jar = new Map<string, string>();
    let url = `${issuer}/auth?${params}`;
    let code: string | undefined;
    for (let hop = 0; hop < 10 && code === undefined; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const cookie of res.headers.getSetCookie()) {
        const [pair = '', ...attrs] = cookie.split(';');
        const eq = pair.indexOf('=');
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        const expired = attrs.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) <= Date.now()) || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
        if (expired || value === '') jar.delete(name);
        else jar.set(name, value);
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`the authorization flow stopped at ${url}: HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
      await res.body?.cancel();
      const next = new URL(location, url);
      if (next.href.startsWith(`${redirectUri}?`)) {
        if (next.searchParams.get('state') !== state) throw new Error('the callback carried another state');
        const error = next.searchParams.get('error');
        if (error) throw new Error(`the provider refused: ${error} ${next.searchParams.get('error_description') ?? ''}`);
        code = next.searchParams.get('code') ?? undefined;
      }
      url = next.href;
    }
    if (!code) throw new Error('the authorization flow did not reach the callback');

    // the relying party's back channel: exchange the code with the client secret and the PKCE verifier
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }),
    });
    const body = (await res.json()) as { id_token?: string; error?: string; error_description?: string };
    if (res.status !== 200 || typeof body.id_token !== 'string') throw new Error(`the token endpoint answered ${res.status}: ${JSON.stringify(body)}`);
    return body.id_token;
  }

  return {
    issuer,
    clientId,
    clientSecret,
    redirectUri,
    signingKey: { kid, alg, privateKey },
    idToken,
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
