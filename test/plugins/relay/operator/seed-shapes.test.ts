import t, { type Test } from 'tap';
import { TENANT_B, harness } from './harness.js';

/**
 * The answers of the main routes against the field types seed 000 gives: a field the seed types
 * as a string, integer, boolean, array or object must be one, never null or missing. The data
 * covers the cases that used to answer null: a login whose id token has no `did` claim, an API
 * key's /me, mediations in every state with no policy applying.
 */

type Shape = 'string' | 'integer' | 'boolean' | 'string[]' | { [field: string]: Shape };

function conforms(t: Test, value: unknown, shape: Shape, path: string): void {
  if (typeof shape === 'object') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      t.fail(`${path} is ${JSON.stringify(value)}, the seed says an object`);
      return;
    }
    for (const [field, inner] of Object.entries(shape)) conforms(t, (value as Record<string, unknown>)[field], inner, `${path}.${field}`);
    return;
  }
  const ok =
    shape === 'string' ? typeof value === 'string' :
    shape === 'integer' ? Number.isInteger(value) :
    shape === 'boolean' ? typeof value === 'boolean' :
    Array.isArray(value) && value.every((v) => typeof v === 'string');
  t.ok(ok, `${path} is ${shape}: ${JSON.stringify(value)?.slice(0, 80)}`);
}

const OPERATOR = { id: 'string', did: 'string', email: 'string', role: 'string' } as const;
const SHAPES = {
  session: { token: 'string', expiresIn: 'string', operator: OPERATOR },
  me: { authenticated: 'boolean', tenantId: 'string', operator: { ...OPERATOR, plan: 'string' }, via: 'string' },
  mediation: { id: 'string', recipientDid: 'string', state: 'string', gate: { policy: 'string', state: 'string' }, keylistSize: 'integer', queued: 'integer', delivered24h: 'integer', grantedAgo: 'string', protocols: 'string[]' },
  agent: { did: 'string', presence: 'string', mediationState: 'string', queued: 'integer', ratePerMin: 'integer', rateLimit: 'integer', lastSeenAgo: 'string' },
  logEntry: { id: 'string', at: 'string', level: 'string', message: 'string' },
  health: { status: 'string', service: 'string', version: 'string', network: 'string', time: 'string', checks: { postgres: { ok: 'boolean', ms: 'integer' }, redis: { ok: 'boolean', ms: 'integer' }, ledgerRpc: { ok: 'boolean', ms: 'integer' } } },
  teamMember: { id: 'string', did: 'string', email: 'string', role: 'string' },
} satisfies Record<string, Shape>;

t.test('the main routes answer the seed types, no null where it says string or object', async (t) => {
  const h = await harness(t, { oidc: true });
  // an id token without a `did` claim
  const login = await h.req('POST', '/v1/auth/session', { body: { id_token: await h.oidc!.idToken() } });
  t.equal(login.status, 200);
  conforms(t, login.body, SHAPES.session, 'POST /v1/auth/session');
  const token = login.body.token as string;
  conforms(t, (await h.req('GET', '/v1/auth/me', { token })).body, SHAPES.me, 'GET /v1/auth/me (session)');
  const key = await h.req('POST', '/v1/api-keys', { token, body: { name: 'ro', scope: 'read' } });
  conforms(t, (await h.req('GET', '/v1/auth/me', { token: key.body.key })).body, SHAPES.me, 'GET /v1/auth/me (API key)');
  for (const o of (await h.req('GET', '/v1/team', { token })).body) conforms(t, o, SHAPES.teamMember, 'GET /v1/team[]');

  const ids: string[] = [];
  for (const state of ['requested', 'granted', 'denied', 'revoked'] as const) ids.push((await h.mediation(TENANT_B, { state, keys: 2 })).mediation.id);
  const { mediation, keys } = await h.mediation(TENANT_B);
  await h.services.delivery.accept(mediation, keys[0]!, null, new Uint8Array(3));
  const mediations = (await h.req('GET', '/v1/mediations', { token })).body;
  t.equal(mediations.length, 5);
  for (const m of mediations) conforms(t, m, SHAPES.mediation, `GET /v1/mediations[${m.state}]`);
  t.same(mediations[0].gate, { policy: 'none', state: 'pass' }, 'no policy applies: none, pass');
  for (const action of ['grant', 'revoke']) conforms(t, (await h.req('POST', `/v1/mediations/${ids[0]}/${action}`, { token })).body, SHAPES.mediation, `POST /v1/mediations/<id>/${action}`);

  const agents = (await h.req('GET', '/v1/agents', { token })).body;
  t.equal(agents.length, 5);
  for (const a of agents) conforms(t, a, SHAPES.agent, 'GET /v1/agents[]');
  const log = (await h.req('GET', '/v1/delivery-log', { token })).body;
  t.ok(log.length > 0, 'the delivery log has entries');
  for (const e of log) conforms(t, e, SHAPES.logEntry, 'GET /v1/delivery-log[]');
  conforms(t, (await h.req('GET', '/v1/health')).body, SHAPES.health, 'GET /v1/health');
});
