import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { Test } from 'tap';
import { HttpServer, type RequestContext } from '../../../../node/http/server.js';
import { createLogger } from '../../../../node/logging.js';
import type { ChainView } from '../../../../node/plugins/chain-view.js';
import { openDatabase } from '../../../../node/state/db.js';
import { noCredential, unauthorized } from '../../../../plugins/common/http/problems.js';
import type { Authenticator } from '../../../../plugins/common/http/router.js';
import { parseKycConfig } from '../../../../plugins/kyc/config.js';
import type { KycCaller, KycLevel } from '../../../../plugins/kyc/http/auth-levels.js';
import { createKycRouter } from '../../../../plugins/kyc/http/router.js';
import { mountHostedApi } from '../../../../plugins/kyc/http/routes/hosted-api.js';
import { mountCredentialRoutes } from '../../../../plugins/kyc/http/routes/credentials.js';
import { mountEvidence } from '../../../../plugins/kyc/http/routes/evidence.js';
import { mountTimeline } from '../../../../plugins/kyc/http/routes/timeline.js';
import { JobStore } from '../../../../plugins/kyc/issuance/jobs.js';
import { listCredentials } from '../../../../plugins/kyc/issuance/list.js';
import { SessionHistory } from '../../../../plugins/kyc/verification/history.js';
import { KycWebhooks } from '../../../../plugins/kyc/webhooks/events.js';
import { mountReview } from '../../../../plugins/kyc/http/routes/review.js';
import { mountVerifications } from '../../../../plugins/kyc/http/routes/verifications.js';
import type { CredentialIssuance, EventIdentity, EventSink, IssuedCredential, KycBase, OrganizationDirectory } from '../../../../plugins/kyc/services.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import type { KycEvent, Organization, VerificationSession } from '../../../../plugins/kyc/types.js';
import { createImageChecker, type ImageChecker } from '../../../../plugins/kyc/verification/checks/image.js';
import type { VerificationProvider } from '../../../../plugins/kyc/verification/provider.js';
import { ReviewQueue } from '../../../../plugins/kyc/verification/review.js';
import { SessionService } from '../../../../plugins/kyc/verification/sessions.js';
import { httpCall } from '../../common/http-call.js';

/**
 * Sessions over a real in-memory LevelDB with the real image checks, and the collaborators at
 * the part's boundary (events, issuance, organizations) as small recorders. `serve` mounts the
 * routes on a real HttpServer (port 0) with an authenticator that knows fixed API keys.
 */

export const NETWORK = 'testnet';
export const LEDGER_DID = `did:ledger:${NETWORK}:1111111111111111111111111`;
export const ORG_A = 'org_a';
export const ORG_B = 'org_b';
export const OPERATOR_TOKEN = 'operator-token-for-tests-0123456789';
export const KEYS: Record<string, KycCaller> = {
  sk_live_a: { organizationId: ORG_A, via: 'api-key', apiKey: { id: 'key_live_a', mode: 'live' } },
  sk_sandbox_a: { organizationId: ORG_A, via: 'api-key', apiKey: { id: 'key_sandbox_a', mode: 'sandbox' } },
  sk_live_b: { organizationId: ORG_B, via: 'api-key', apiKey: { id: 'key_live_b', mode: 'live' } },
};

/** Account JWTs of the test authenticator (Bearer), each a member of an organization with a role. */
export const MEMBERS: Record<string, KycCaller> = {
  jwt_owner_a: { organizationId: ORG_A, via: 'jwt', userId: 'usr_owner_a', role: 'owner' },
  jwt_legacy_a: { organizationId: ORG_A, via: 'jwt', userId: 'usr_legacy_a' },
  jwt_reviewer_a: { organizationId: ORG_A, via: 'jwt', userId: 'usr_reviewer_a', role: 'reviewer' },
  jwt_reviewer2_a: { organizationId: ORG_A, via: 'jwt', userId: 'usr_reviewer2_a', role: 'reviewer' },
  jwt_admin_a: { organizationId: ORG_A, via: 'jwt', userId: 'usr_admin_a', role: 'admin' },
  jwt_developer_a: { organizationId: ORG_A, via: 'jwt', userId: 'usr_developer_a', role: 'developer' },
  jwt_reviewer_b: { organizationId: ORG_B, via: 'jwt', userId: 'usr_reviewer_b', role: 'reviewer' },
};

export class RecordingEvents implements EventSink {
  readonly events: Array<{ organizationId: string; type: KycEvent; data: Record<string, unknown> }> = [];
  /** where the events go on to, when a test sends them (the real webhooks part) */
  forward?: EventSink;
  async emit(organizationId: string, type: KycEvent, data: Record<string, unknown>, identity?: EventIdentity): Promise<void> {
    this.events.push({ organizationId, type, data });
    await this.forward?.emit(organizationId, type, data, identity);
  }
  types(): string[] {
    return this.events.map((e) => e.type);
  }
}

export class RecordingIssuance implements CredentialIssuance {
  readonly requests: VerificationSession[] = [];
  async requestCredential(session: VerificationSession): Promise<void> {
    this.requests.push(session);
  }
}

export class Orgs implements OrganizationDirectory {
  async organization(id: string): Promise<Organization | undefined> {
    if (id !== ORG_A && id !== ORG_B) return undefined;
    return { id, name: id === ORG_A ? 'Acme Bank' : 'Other Org', email: `${id}@example.test`, plan: 'free', totpEnabled: false, createdAt: '2025-01-01T00:00:00.000Z' };
  }
}

export function issued(subjectDid: string, n = 1): IssuedCredential {
  return {
    credentialId: `urn:ledger:credential:${String(n).padStart(32, '0')}`,
    type: ['VerifiableCredential', 'KYCCredential'],
    issuer: `did:ledger:${NETWORK}:issuer`,
    subjectDid,
    issuanceDate: '2025-01-01T00:00:00.000Z',
    expirationDate: '2026-01-01T00:00:00.000Z',
    txHash: `0x${'ab'.repeat(32)}`,
    credentialOfferUri: `openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fkyc.test%2Foffers%2F${n}`,
  };
}

/** A JPEG of `w`x`h` (a gradient, so it is not trivially compressible). */
export function jpegImage(w: number, h: number): Buffer {
  const data = Buffer.alloc(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([(i * 7) & 255, (i >> 3) & 255, (i * 13) & 255, 255], i * 4);
  return jpeg.encode({ data, width: w, height: h }, 80).data;
}

export function pngImage(w: number, h: number): Buffer {
  const png = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) png.data.set([(i * 5) & 255, (i >> 2) & 255, 90, 255], i * 4);
  return PNG.sync.write(png);
}

export interface Setup {
  base: KycBase;
  clock: { now: number };
  events: RecordingEvents;
  issuance: RecordingIssuance;
  sessions: SessionService;
  review: ReviewQueue;
  /** the image checks, for another SessionService over the same store (a restart) */
  images: ImageChecker;
}

/** The chain is not read by the sessions; any use of it fails the test loudly. */
const noChain = new Proxy({}, { get: (_t, p) => { throw new Error(`sessions read the chain (${String(p)})`); } }) as ChainView;

export async function setup(t: Test, opts: { config?: Record<string, unknown>; provider?: VerificationProvider; imageThreads?: number } = {}): Promise<Setup> {
  const db = await openDatabase('memory');
  const images = createImageChecker({ threads: opts.imageThreads ?? 0 });
  t.teardown(async () => {
    await images.close();
    await db.close();
  });
  const clock = { now: Date.parse('2025-06-01T12:00:00.000Z') };
  const config = parseKycConfig({ enabled: true, host: '127.0.0.1', port: 0, sessionTtlSeconds: 3600, reviewTtlSeconds: 7200, ...opts.config });
  const base: KycBase = {
    config,
    db: new PluginDb(db.pluginStore('kyc')),
    log: createLogger({ level: 'silent' }),
    chain: noChain,
    network: NETWORK,
    chainId: 'ledger-testnet',
    submit: async () => {
      throw new Error('sessions submit no transactions');
    },
    publicUrl: () => 'https://kyc.test',
    now: () => clock.now,
  };
  const events = new RecordingEvents();
  const issuance = new RecordingIssuance();
  const sessions = new SessionService({ base, events, issuance, orgs: new Orgs(), images, ...(opts.provider ? { provider: opts.provider } : {}) });
  t.teardown(() => sessions.idle());
  return { base, clock, events, issuance, sessions, review: new ReviewQueue(sessions), images };
}

/**
 * Accepts the fixed API keys of KEYS (x-api-key), the operator token (Bearer) and, on `member`
 * routes, the fixed account JWTs of MEMBERS (Bearer); http/auth.ts's own tests cover the real checks.
 */
export class TestAuthenticator implements Authenticator<KycLevel, KycCaller> {
  async require(ctx: RequestContext, level: Exclude<KycLevel, 'none'>): Promise<KycCaller> {
    if (level === 'member' && ctx.req.headers['x-api-key'] === undefined) {
      const auth = ctx.req.headers.authorization;
      if (auth === undefined) throw noCredential('kyc', 'this route needs x-api-key or an account JWT');
      if (auth === `Bearer ${OPERATOR_TOKEN}`) return { organizationId: '', via: 'operator' };
      const member = MEMBERS[auth.replace(/^Bearer /, '')];
      if (!member) throw unauthorized('kyc', 'unknown account JWT');
      return member;
    }
    if (level === 'operator') {
      const auth = ctx.req.headers.authorization;
      if (auth === undefined) throw noCredential('kyc', 'this route needs the operator token');
      if (auth !== `Bearer ${OPERATOR_TOKEN}`) throw unauthorized('kyc', 'the operator token is wrong');
      return { organizationId: '', via: 'operator' };
    }
    const key = ctx.req.headers['x-api-key'];
    if (typeof key !== 'string') throw noCredential('kyc', 'this route needs x-api-key');
    const caller = KEYS[key];
    if (!caller) throw unauthorized('kyc', 'unknown API key');
    return caller;
  }
}

export interface Served extends Setup {
  url: string;
  /** the real webhooks part, on the same store: the sessions' events go to it */
  webhooks: KycWebhooks;
  req(method: string, path: string, opts?: CallAs): Promise<{ status: number; headers: Headers; body: any }>;
  /** a GET whose answer is bytes (an evidence image) */
  bytes(path: string, opts?: CallAs): Promise<{ status: number; headers: Headers; bytes: Buffer }>;
}

/** who calls: an API key, the operator, or a member's JWT (a MEMBERS key) */
export interface CallAs {
  key?: string;
  operator?: boolean;
  jwt?: string;
  body?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
}

export async function serve(t: Test, opts: Parameters<typeof setup>[1] = {}): Promise<Served> {
  const s = await setup(t, opts);
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 64 * 1024 });
  const router = createKycRouter(http, new TestAuthenticator(), { errorsBase: 'https://errors.test/kyc', log: s.base.log });
  mountVerifications(router, { sessions: s.sessions });
  mountHostedApi(router, { sessions: s.sessions });
  mountReview(router, { review: s.review, emailOf: async (userId) => `${userId.slice(4)}@example.test` });
  mountEvidence(router, { evidence: s.review.evidence });
  const webhooks = new KycWebhooks({ config: s.base.config, db: s.base.db, log: s.base.log, now: () => Date.now() });
  await webhooks.start();
  t.teardown(() => webhooks.stop());
  s.events.forward = webhooks;
  mountTimeline(router, { history: new SessionHistory(s.sessions, webhooks) });
  mountCredentialRoutes({
    router,
    revoker: { revoke: async () => { throw new Error('revocations need the chain: test/e2e covers them'); } },
    findSession: async (org, id) => (await s.sessions.store.get(id))?.organizationId === org ? s.sessions.store.get(id) : undefined,
    list: (org, filter) => listCredentials(new JobStore(s.base.db).credentials, org, (id) => s.sessions.store.get(id), filter),
  });
  router.fallback('/v1');
  const { port } = await http.listen();
  t.teardown(() => http.close());
  const url = `http://127.0.0.1:${port}`;
  const headersOf = (o: CallAs): Record<string, string> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers['x-api-key'] = o.key;
    if (o.operator) headers.authorization = `Bearer ${OPERATOR_TOKEN}`;
    if (o.jwt) headers.authorization = `Bearer ${o.jwt}`;
    return headers;
  };
  const req: Served['req'] = async (method, path, o = {}) => httpCall(url, method, path, { headers: headersOf(o), ...(o.form ? { form: o.form } : { body: o.body }) });
  const bytes: Served['bytes'] = async (path, o = {}) => {
    const res = await fetch(`${url}${path}`, { headers: headersOf(o) });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  return { ...s, url, webhooks, req, bytes };
}

/** A document upload form. */
export function docForm(file: Uint8Array, fields: Record<string, string>, filename = 'id.jpg', type = 'image/jpeg'): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([file], { type }), filename);
  return fd;
}

export function framesForm(frames: Uint8Array[], fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  frames.forEach((f, i) => fd.append('frames', new Blob([f], { type: 'image/jpeg' }), `frame-${i}.jpg`));
  return fd;
}

/**
 * A live session through the routes, left awaiting its decision: level 1 (one document), or
 * level 2 with a front and a back and `frames` liveness frames.
 */
export async function liveSession(h: Served, key: string, o: { level?: 1 | 2; frames?: Uint8Array[]; subjectDid?: string } = {}): Promise<{ id: string; documentIds: string[] }> {
  const level = o.level ?? 1;
  const { session } = (await h.req('POST', '/v1/verifications', { key, body: { level, ...(o.subjectDid ? { subjectDid: o.subjectDid } : {}) } })).body;
  const base = `/v1/verifications/s/${session.sessionToken}`;
  const img = jpegImage(400, 300);
  const sides = level === 1 ? ['front'] : ['front', 'back'];
  const documentIds: string[] = [];
  for (const [i, side] of sides.entries()) {
    const doc = await h.req('POST', `${base}/documents`, { form: docForm(img, { type: 'national_id', side, final: String(i === sides.length - 1) }) });
    documentIds.push(doc.body.document.id);
  }
  if (level === 2) {
    await h.req('GET', `${base}/liveness-challenge`);
    const res = await h.req('POST', `${base}/liveness`, { form: framesForm(o.frames ?? [jpegImage(96, 96)]) });
    if (res.status !== 200) throw new Error(`liveness refused: ${JSON.stringify(res.body)}`);
  }
  return { id: session.id, documentIds };
}

/** A sandbox level-1 session, completed at once by its final upload (its image stored); its id. */
export async function finished(h: Setup): Promise<string> {
  const { session } = await h.sessions.create({ organizationId: ORG_A, apiKey: { id: 'key_sandbox_a', mode: 'sandbox' } }, { level: 1, sandbox: true, metadata: {} });
  await h.sessions.uploadDocument({ token: session.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: jpegImage(300, 300) });
  const s = await h.sessions.store.get(session.id as string);
  if (s?.status !== 'completed') throw new Error(`the sandbox session is ${s?.status}`);
  return s.id;
}
