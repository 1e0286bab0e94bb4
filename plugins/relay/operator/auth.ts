import type { RequestContext } from '../../../node/http/server.js';
import { bearerToken } from '../../common/auth/bearer.js';
import { hashApiKey, looksLikeApiKey, sameHash } from '../../common/auth/api-keys.js';
import type { OidcVerifier } from '../../common/auth/oidc.js';
import type { SessionTokens } from '../../common/auth/session-token.js';
import type { DocumentRepo } from '../store/types.js';
import { HttpProblem, noCredential as missing, unauthorized as wrong } from '../../common/http/problems.js';
import { KeyedSerial } from '../../common/http/router.js';

/**
 * Who is calling the operator REST, and what they may do (seed 000 "Authentication").
 *
 * Two credentials, both as `Authorization: Bearer …`:
 *   - a session JWT (POST /v1/auth/session): full access to its tenant;
 *   - an API key `slk_…`: access by scope. Only its SHA-256 is stored, with a global index from
 *     the hash to the tenant's key record, so a request finds its key with one lookup.
 *
 * Route levels: `read` (requireAuth), `manage` (requireManage), `full` (requireManage on API-key
 * management and the webhook configuration, whose secret a manage key must not be able to
 * replace or read). Scopes: `read` reaches `read` routes; `manage` reaches `read` and `manage`;
 * `full` (and a session) reaches everything. The credential is checked, and then the scope,
 * before a handler runs: a read key gets 403 on a write route even for an id that does not
 * exist, so it cannot probe which ids exist.
 */

export const API_KEY_PREFIX = 'slk_';
export const API_KEY_KIND = 'api-key';
export const API_KEY_INDEX = 'api-key-hash';
export const OPERATOR_KIND = 'operator';
export const API_KEY_SCOPES = ['read', 'manage', 'full'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
export type Level = 'none' | 'read' | 'manage' | 'full';
/** `lastUsedAt` is written at most once per this interval per key */
export const LAST_USED_GRANULARITY_MS = 60_000;
export const PLAN = 'self-hosted';

export interface OperatorAuth {
  /** signs and checks session JWTs (ttl `12h`); its secret lives in the relay's namespace */
  sessions: SessionTokens;
  /** null when plugins.relay.oidc is unset: POST /v1/auth/session then answers 503 */
  oidc: Pick<OidcVerifier, 'verify'> | null;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  scope: ApiKeyScope;
  /** the first characters of the key and `…`, to tell keys apart */
  prefix: string;
  /** SHA-256 of the key, hex; never leaves the server */
  hash: string;
  createdAt: string;
  /** the operator (or key) that created it */
  createdBy: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface OperatorRecord {
  id: string;
  did: string | null;
  email: string | null;
  name: string | null;
  role: string;
  issuer: string;
  subject: string;
  firstLoginAt: string;
  lastLoginAt: string;
}

export interface Caller {
  tenantId: string;
  via: 'session' | 'api-key';
  /** what the caller may reach: a session is `full` */
  scope: ApiKeyScope;
  /** the operator id (session) or the key id (API key) */
  id: string;
  session?: { did: string | null; email: string | null; role: string; exp: number };
  apiKey?: { id: string; name: string; scope: ApiKeyScope };
}

const RANK: Record<Exclude<Level, 'none'>, number> = { read: 0, manage: 1, full: 2 };

export function scopeReaches(scope: ApiKeyScope, level: Exclude<Level, 'none'>): boolean {
  return RANK[scope] >= RANK[level];
}

const LEVEL_TEXT: Record<Exclude<Level, 'none'>, string> = {
  read: 'any credential',
  manage: 'a session, or an API key of scope manage or full',
  full: 'a session, or an API key of scope full',
};

const noCredential = () => missing('relay', 'this route needs Authorization: Bearer <session token or slk_ API key>');
const unauthorized = (detail: string) => wrong('relay', detail);

export class Authenticator {
  /** per key id: the last lastUsedAt written (ms) */
  private touched = new Map<string, number>();
  /** read-modify-writes of one key record (lastUsedAt, revoke) run one after another */
  readonly serial = new KeyedSerial();

  constructor(
    private readonly auth: OperatorAuth,
    private readonly docs: DocumentRepo,
    private readonly now: () => number,
  ) {}

  /** The caller of `ctx`, or a 401 Problem. */
  async authenticate(ctx: RequestContext): Promise<Caller> {
    const header = ctx.req.headers.authorization;
    const token = bearerToken(ctx.req);
    if (token === undefined) {
      if (header === undefined) throw noCredential();
      throw unauthorized('the Authorization header is not "Bearer <token>"');
    }
    if (token.startsWith(API_KEY_PREFIX)) return this.apiKey(token);
    const claims = await this.auth.sessions.verify(token);
    return {
      tenantId: claims.tenantId,
      via: 'session',
      scope: 'full',
      id: claims.sub,
      session: { did: claims.did ?? null, email: claims.email ?? null, role: claims.role ?? 'owner', exp: claims.exp },
    };
  }

  /** Authenticates, then checks the scope against the route's level: 401, then 403. */
  async require(ctx: RequestContext, level: Exclude<Level, 'none'>): Promise<Caller> {
    const caller = await this.authenticate(ctx);
    if (!scopeReaches(caller.scope, level)) {
      throw new HttpProblem('forbidden', `${ctx.method} ${ctx.path.slice(0, 200)} needs ${LEVEL_TEXT[level]}; this API key has scope ${caller.scope}`);
    }
    return caller;
  }

  private async apiKey(key: string): Promise<Caller> {
    if (!looksLikeApiKey(key, API_KEY_PREFIX)) throw unauthorized('the API key is malformed (slk_ and 43 base64url characters)');
    const hash = hashApiKey(key);
    const target = await this.docs.index(API_KEY_INDEX, hash);
    const record = target && (await this.docs.get<ApiKeyRecord>(target.tenantId, API_KEY_KIND, target.id));
    if (!target || !record || !sameHash(record.hash, hash)) throw unauthorized('unknown API key');
    if (record.revokedAt !== null) throw unauthorized(`the API key ${record.id} was revoked at ${record.revokedAt}`);
    await this.touch(target.tenantId, record.id);
    return { tenantId: target.tenantId, via: 'api-key', scope: record.scope, id: record.id, apiKey: { id: record.id, name: record.name, scope: record.scope } };
  }

  /** Writes lastUsedAt at most once a minute per key; never un-revokes a key revoked meanwhile. */
  private async touch(tenantId: string, id: string): Promise<void> {
    const now = this.now();
    const last = this.touched.get(id);
    if (last !== undefined && now - last < LAST_USED_GRANULARITY_MS) return;
    this.touched.set(id, now);
    if (this.touched.size > 10_000) this.touched.delete(this.touched.keys().next().value!);
    await this.serial.run(id, async () => {
      const fresh = await this.docs.get<ApiKeyRecord>(tenantId, API_KEY_KIND, id);
      if (!fresh || fresh.revokedAt !== null) return;
      const stored = fresh.lastUsedAt === null ? -Infinity : Date.parse(fresh.lastUsedAt);
      if (now - stored < LAST_USED_GRANULARITY_MS) return;
      await this.docs.put(tenantId, API_KEY_KIND, id, { ...fresh, lastUsedAt: new Date(now).toISOString() });
    });
  }
}
