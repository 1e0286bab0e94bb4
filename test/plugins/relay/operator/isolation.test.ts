import t from 'tap';
import { receiver } from '../../common/webhooks/receiver.js';
import { TENANT_A, TENANT_B, harness, isProblem, registerCredential } from './harness.js';

/** Tenant A fills every kind of data; tenant B, by session and by API key, sees none of it. */
t.test('tenant isolation on every route', async (t) => {
  const h = await harness(t);
  const a = await h.session(TENANT_A);
  const hook = await receiver(t);

  // tenant A's data, of every kind
  const { mediation, keys } = await h.mediation(TENANT_A, { keys: 2 });
  const { mediation: requested } = await h.mediation(TENANT_A, { state: 'requested' });
  const rec = await h.services.delivery.accept(mediation, keys[0]!, null, new Uint8Array(5));
  await h.services.delivery.accept(mediation, keys[1]!, null, new Uint8Array(5));
  await h.services.delivery.delivered([rec], 'delivered');
  await h.services.delivery.flushLog();
  await h.services.coordination.limiter.hit(mediation.recipientDid, 100);
  const policy = (await h.req('POST', '/v1/policies', { token: a, body: { name: 'kyc', credentialType: 'KYCCredential' } })).body;
  const keyA = await h.apiKey(TENANT_A, 'full');
  t.equal((await h.req('PUT', '/v1/webhooks', { token: a, body: { url: hook.url, events: ['resolution.failed', 'message.queued'] } })).status, 201);
  await h.req('POST', '/v1/webhooks/test', { token: a, body: { event: 'message.queued' } });
  await h.req('PUT', '/v1/notifications', { token: a, body: { channels: { email: { enabled: true, target: 'a@example.org' } } } });
  await h.req('PUT', '/v1/policies/rate-limit', { token: a, body: { rateLimitPerDidPerMin: 7 } });
  await h.req('PUT', '/v1/policies/retention', { token: a, body: { retentionSeconds: 600 } });
  await h.req('PUT', '/v1/mediator/config', { token: a, body: { manualApproval: true, purgeOnAck: false } });
  await h.services.store.documents.put(TENANT_A, 'operator', 'op_a', { id: 'op_a', did: null, email: 'a@example.org', name: null, role: 'owner', issuer: 'x', subject: 'a', firstLoginAt: '2025-01-01T00:00:00.000Z', lastLoginAt: '2025-01-01T00:00:00.000Z' });
  const credential = await registerCredential(h, 'KYCCredential');
  const received = hook.received.length;

  const bSession = await h.session(TENANT_B);
  const bKey = (await h.apiKey(TENANT_B, 'full')).key;
  for (const [who, b] of [
    ['session', bSession],
    ['api key', bKey],
  ] as const) {
    const get = async (path: string) => {
      const res = await h.req('GET', path, { token: b });
      t.equal(res.status, 200, `${who} GET ${path}`);
      return res.body;
    };
    t.equal((await get('/v1/auth/me')).tenantId, TENANT_B, `${who}: /me`);
    t.same(await get('/v1/mediations'), [], `${who}: mediations`);
    t.same(await get('/v1/agents'), [], `${who}: agents`);
    t.match(await get('/v1/messages'), { items: [], total: 0 }, `${who}: messages`);
    t.match(await get(`/v1/messages?recipient=${encodeURIComponent(keys[0]!)}`), { items: [], total: 0 }, `${who}: messages of A's key`);
    t.match(await get('/v1/queue/status'), { pending: 0, counts: { queued: 0, delivered: 0 }, oldestPendingAt: null }, `${who}: queue`);
    t.same(await get('/v1/resolutions'), [], `${who}: resolutions of granted mediations`);
    t.same(await get('/v1/policies'), [], `${who}: policies`);
    t.same(await get('/v1/policies/rate-limit'), { rateLimitPerDidPerMin: 1200 }, `${who}: rate limit`);
    t.same(await get('/v1/policies/retention'), { retentionSeconds: 604800 }, `${who}: retention`);
    t.notOk((await get('/v1/api-keys')).some((k: { id: string }) => k.id === keyA.id), `${who}: A's key not listed`);
    t.match(await get('/v1/webhooks'), { config: null, deliveries: [] }, `${who}: webhooks`);
    t.match((await get('/v1/mediator')).settings, { manualApproval: false, purgeOnAck: true, rateLimitPerDidPerMin: 1200 }, `${who}: mediator settings`);
    t.match((await get('/v1/mediator/throughput?window=1h')).totals, { received: 0, delivered: 0 }, `${who}: throughput`);
    t.same((await get('/v1/team')).map((o: { id: string }) => o.id), ['op_tenant-b'], `${who}: team (B's own operator only)`);
    t.match((await get('/v1/notifications')).channels.email, { enabled: false, target: null }, `${who}: notifications`);
    t.match((await get('/v1/billing')).usage, { messagesReceived: 0, messagesDelivered: 0, mediations: { total: 0 }, policies: 0 }, `${who}: billing`);
    t.same(await get('/v1/delivery-log'), [], `${who}: delivery log`);
    t.same(await get(`/v1/delivery-log?recipient=${encodeURIComponent(keys[0]!)}`), [], `${who}: delivery log of A's key`);

    // A's ids are unknown to B: 404, and nothing changes
    isProblem(t, await h.req('POST', `/v1/mediations/${requested.id}/grant`, { token: b }), 404, 'not-found', `${who}: grant A's`);
    isProblem(t, await h.req('POST', `/v1/mediations/${requested.id}/deny`, { token: b, body: { reason: 'x' } }), 404, 'not-found', `${who}: deny A's`);
    isProblem(t, await h.req('POST', `/v1/mediations/${mediation.id}/revoke`, { token: b }), 404, 'not-found', `${who}: revoke A's`);
    isProblem(t, await h.req('GET', `/v1/mediations/${mediation.id}/keylist`, { token: b }), 404, 'not-found', `${who}: keylist of A's`);
    isProblem(t, await h.req('DELETE', `/v1/mediations/${mediation.id}/keylist/${encodeURIComponent(keys[0]!)}`, { token: b }), 404, 'not-found', `${who}: remove A's key`);
    isProblem(t, await h.req('DELETE', `/v1/policies/${policy.id}`, { token: b }), 404, 'not-found', `${who}: delete A's policy`);
    isProblem(t, await h.req('POST', '/v1/policies/test', { token: b, body: { policyId: policy.id, credentialRef: credential } }), 404, 'not-found', `${who}: test A's policy`);
    isProblem(t, await h.req('DELETE', `/v1/api-keys/${keyA.id}`, { token: b }), 404, 'not-found', `${who}: revoke A's key`);
    isProblem(t, await h.req('POST', '/v1/webhooks/test', { token: b, body: { event: 'message.queued' } }), 409, 'conflict', `${who}: test with no webhook of its own`);
    // a failed resolution asked by B goes to B's webhook (none), not A's
    await h.req('POST', `/v1/resolutions/${encodeURIComponent('did:ledger:testnet:1111111111111111111111')}/re-resolve`, { token: b });
  }

  // B's writes do not reach A
  await h.req('PUT', '/v1/policies/rate-limit', { token: bSession, body: { rateLimitPerDidPerMin: 99 } });
  await h.req('PUT', '/v1/webhooks', { token: bSession, body: { url: hook.url, events: [] } });
  await h.req('POST', '/v1/policies', { token: bSession, body: { name: 'b', credentialType: 'EmailVerificationCredential' } });
  t.same((await h.req('GET', '/v1/policies/rate-limit', { token: a })).body, { rateLimitPerDidPerMin: 7 });
  t.same((await h.req('GET', '/v1/policies', { token: a })).body.map((p: { id: string }) => p.id), [policy.id]);
  t.match((await h.req('GET', '/v1/webhooks', { token: a })).body.config, { events: ['message.queued', 'resolution.failed'] });
  t.equal((await h.req('GET', '/v1/mediations', { token: a })).body.length, 2, 'A still has its mediations');
  t.equal((await h.req('GET', `/v1/mediations/${requested.id}/keylist`, { token: a })).status, 200);
  t.equal((await h.req('GET', '/v1/mediations', { token: keyA.key })).status, 200, "A's key still works");
  t.equal((await h.req('GET', '/v1/messages', { token: a })).body.total, 2);
  await new Promise((r) => setTimeout(r, 100));
  t.equal(hook.received.length, received, "B's failed resolutions reached no webhook of A");
});
