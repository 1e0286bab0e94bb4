import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import { HttpServer } from '../../../../node/http/server.js';
import { createLogger } from '../../../../node/logging.js';
import { chainView, type ChainView } from '../../../../node/plugins/chain-view.js';
import { formatCredentialId } from '../../../../node/protocol/credential-id.js';
import type { CredentialType } from '../../../../node/protocol/credential-types.js';
import { didForIdentifier } from '../../../../node/protocol/did.js';
import { didKey, encodeDid } from '../../../../node/protocol/records.js';
import type { ChainStore } from '../../../../node/state/chain-store.js';
import { openDatabase, type BinarySublevel } from '../../../../node/state/db.js';
import { OidcVerifier } from '../../../../plugins/common/auth/oidc.js';
import { SessionTokens } from '../../../../plugins/common/auth/session-token.js';
import { WebhookOutbox } from '../../../../plugins/common/webhooks/outbox.js';
import { createRelayServices } from '../../../../plugins/relay/compose.js';
import { parseRelayConfig } from '../../../../plugins/relay/config.js';
import type { RelayServices } from '../../../../plugins/relay/core/services.js';
import { mountOperatorApi, type OperatorOptions } from '../../../../plugins/relay/operator/index.js';
import { OperatorDirectory } from '../../../../plugins/relay/operator/operators.js';
import type { Mediation } from '../../../../plugins/relay/store/types.js';
import { didKeyFromSeed } from '../../../../plugins/relay/wire/dids/did-key.js';
import { nextBlock } from '../../../fixtures/chain-blocks.js';
import { credentialPuts, credentialRecord } from '../../../fixtures/credential-records.js';
import { NETWORK, setup } from '../../../rpc/ledger/harness.js';
import { startOidcProvider, type TestOidcProvider } from '../../common/auth/oidc-provider.js';
import { httpCall } from '../../common/http-call.js';
import { testSecrets } from '../store/contract/backend.js';

/**
 * The operator API on a real HTTP server over real relay services (createRelayServices on an
 * in-memory LevelDB, a real WebhookOutbox), reading a real ChainStore through the chain view
 * plugins get (test/rpc/ledger/harness.ts: genesis and two blocks, a did:ledger DID among them;
 * or, with `genesis: false`, a store with no head). Credentials and their issuers' DIDs are
 * committed in blocks of their own. Sessions are issued directly with SessionTokens, or through
 * a real OpenID provider (`oidc: true`).
 */

export const ERRORS_BASE = 'https://errors.test/relay';
export const TENANT_A = 'default';
export const TENANT_B = 'tenant-b';

let credentials = 0;

/**
 * Commits a block with a credential of `type` (registered; revoked at block time 2 000 with
 * `revoked`) and its issuer's DID (active, or deactivated with `issuerActive: false`); returns
 * the credential's URN.
 */
export async function registerCredential(h: Pick<Harness, 'store'>, type: CredentialType, opts: { revoked?: boolean; issuerActive?: boolean } = {}): Promise<string> {
  const n = ++credentials;
  const id = new Uint8Array(randomBytes(16));
  const issuer = new Uint8Array(randomBytes(20));
  const active = opts.issuerActive ?? true;
  const record = credentialRecord(n, { id, issuer, subject: new Uint8Array(randomBytes(20)), credentialType: type, kycLevel: type === 'KYCCredential' ? 2 : 0, statusIndex: 0, revokedMs: opts.revoked ? 2_000 : null });
  const did = { did: didForIdentifier(NETWORK, issuer), publicKey: active ? new Uint8Array(32).fill(1) : null, service: [], active, createdMs: 1_000, updatedMs: 1_000, versionId: 1, txHash: new Uint8Array(32).fill(n) };
  await h.store.commitBlock(await nextBlock(h.store, { puts: [{ key: didKey(issuer), value: encodeDid(did) }, ...credentialPuts([record])] }));
  return formatCredentialId(id);
}

export interface Res {
  status: number;
  headers: Headers;
  body: any;
}

export interface Harness {
  url: string;
  services: RelayServices;
  /** the node's committed state (genesis and blocks, or no head with `genesis: false`) */
  store: ChainStore;
  /** the read-only view of it the relay was given */
  chain: ChainView;
  sessions: SessionTokens;
  /** the sessions' HS256 secret, to mint tokens with another ttl */
  sessionSecret: Uint8Array;
  outbox: WebhookOutbox;
  /** the relay's namespace, which the store and the outbox share (to start another outbox on it) */
  ns: BinarySublevel;
  oidc: TestOidcProvider | undefined;
  req(method: string, path: string, opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Res>;
  session(tenantId?: string, sub?: string): Promise<string>;
  apiKey(tenantId: string, scope: 'read' | 'manage' | 'full', name?: string): Promise<{ key: string; id: string }>;
  /** a granted mediation in `tenantId` with `keys` fresh did:key routing keys */
  mediation(tenantId: string, opts?: { keys?: number; state?: Mediation['state'] }): Promise<{ mediation: Mediation; keys: string[] }>;
}

export function newDidKey(): string {
  return didKeyFromSeed(randomBytes(32)).did;
}

export async function harness(t: Test, opts: { genesis?: boolean; oidc?: boolean; verifier?: Pick<OidcVerifier, 'verify'>; maxBodyBytes?: number; operator?: OperatorOptions; now?: () => number; config?: Record<string, unknown> } = {}): Promise<Harness> {
  const db = await openDatabase('memory');
  const ns = db.pluginStore('relay');
  const log = createLogger({ level: 'silent' });
  const oidc = opts.oidc ? await startOidcProvider({ tenant: TENANT_B }) : undefined;
  const config = parseRelayConfig({ enabled: true, host: '127.0.0.1', port: 0, errorsBase: ERRORS_BASE, ...(oidc ? { oidc: { issuer: oidc.issuer, audience: oidc.clientId } } : {}), ...opts.config });
  // the same layout as the plugin: the store and the outbox share the relay's namespace
  const outbox = new WebhookOutbox({ store: ns, log, timeoutMs: 3000 });
  await outbox.start();
  const { store } = await setup(t, opts.genesis === false ? { genesis: false } : { blocks: true });
  const chain = chainView(store, NETWORK);
  const services = await createRelayServices({
    config,
    network: NETWORK,
    chain,
    db: ns,
    outbox,
    verifyBbs: async () => false,
    log,
    serviceKeySecret: testSecrets.serviceKeySecret,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const sessionSecret = new Uint8Array(randomBytes(32));
  const sessions = new SessionTokens({ secret: sessionSecret, issuer: 'ledger-relay', audience: 'relay-operator', ttl: '12h' });
  const verifier = opts.verifier ?? (oidc ? new OidcVerifier({ issuer: oidc.issuer, audience: oidc.clientId, fetchTimeoutMs: 1000 }) : null);
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024 });
  mountOperatorApi(http, services, { sessions, oidc: verifier }, { version: '9.9.9-test', endpoint: () => 'http://127.0.0.1:1/didcomm', ...opts.operator });
  const { port } = await http.listen();
  const url = `http://127.0.0.1:${port}`;
  t.teardown(async () => {
    await http.close();
    await outbox.stop();
    await services.delivery.flushLog();
    await services.events.notifier.close();
    await services.store.close();
    await db.close();
    await oidc?.close();
  });

  const req: Harness['req'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    return httpCall(url, method, path, { headers, body: o.body, ...(o.raw !== undefined ? { raw: o.raw } : {}) });
  };

  // a session as login issues it: the operator recorded in the tenant, the session carrying its DID
  const operators = new OperatorDirectory(services.store.documents);
  const session: Harness['session'] = async (tenantId = TENANT_A, sub = `op_${tenantId}`) => {
    const email = `${sub}@example.org`;
    const at = new Date(services.now()).toISOString();
    const { record } = await operators.upsert(tenantId, sub, (known) => known ?? { id: sub, did: null, email, name: null, role: 'owner', issuer: 'https://id.test', subject: sub, firstLoginAt: at, lastLoginAt: at });
    return (await sessions.issue({ sub, tenantId, role: 'owner', email, did: record.did! })).token;
  };

  const apiKey: Harness['apiKey'] = async (tenantId, scope, name = `${scope} key`) => {
    const res = await req('POST', '/v1/api-keys', { token: await session(tenantId), body: { name, scope } });
    if (res.status !== 201) throw new Error(`api key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { key: res.body.key, id: res.body.id };
  };

  const mediation: Harness['mediation'] = async (tenantId, o = {}) => {
    const at = services.now();
    const m: Mediation = { id: `med_${randomBytes(6).toString('hex')}`, tenantId, recipientDid: newDidKey(), state: o.state ?? 'granted', reason: null, gate: null, createdAt: at, updatedAt: at, grantedAt: (o.state ?? 'granted') === 'granted' ? at : null };
    await services.store.mediations.put(m);
    const keys = Array.from({ length: o.keys ?? 1 }, () => newDidKey());
    if (keys.length > 0) await services.store.mediations.updateKeys(m.id, keys, [], at);
    return { mediation: m, keys };
  };

  return { url, services, store, chain, sessions, sessionSecret, outbox, ns, oidc, req, session, apiKey, mediation };
}

/** Asserts an RFC 7807 body of this surface. */
export function isProblem(t: Test, res: Res, status: number, slug: string, what?: string): void {
  t.equal(res.status, status, `${what ?? 'status'} ${status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  t.match(res.headers.get('content-type'), /application\/problem\+json/, 'problem content type');
  t.equal(res.body?.type, `${ERRORS_BASE}/${slug}`, `type …/${slug}`);
  t.type(res.body?.title, 'string');
  t.equal(res.body?.status, status);
  t.type(res.body?.detail, 'string');
  t.type(res.body?.instance, 'string');
}
