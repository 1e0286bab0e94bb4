import t from 'tap';
import { verifyWebhookSignature } from '../../../../plugins/common/webhooks/signature.js';
import { receiver } from '../../common/webhooks/receiver.js';
import { ERRORS_BASE, TENANT_A, TENANT_B, harness, isProblem, registerCredential } from './harness.js';

t.test('policies: create with validation, list, delete; the test route runs the live gate and emits nothing', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  const missing = await h.req('POST', '/v1/policies', { token, body: { credentialType: 'KYCCredential' } });
  isProblem(t, missing, 400, 'validation', 'name missing');
  t.equal(missing.body.type, `${ERRORS_BASE}/validation`);
  t.equal(missing.body.detail, 'name is required');
  t.equal(missing.body.instance, '/v1/policies');
  for (const [body, field] of [
    [{ name: 'g', credentialType: 'PassportCredential' }, 'credentialType'],
    [{ name: 'g' }, 'credentialType'],
    [{ name: 'g', credentialType: 'KYCCredential', disclosure: 'partial' }, 'disclosure'],
    [{ name: 'g', credentialType: 'KYCCredential', appliesTo: 'pickup' }, 'appliesTo'],
    [{ name: '', credentialType: 'KYCCredential' }, 'name'],
    [{ name: 'g', credentialType: 'KYCCredential', colour: 'red' }, 'colour'],
  ] as const) {
    const res = await h.req('POST', '/v1/policies', { token, body });
    isProblem(t, res, 400, 'validation', JSON.stringify(body));
    t.equal(res.body.field, field);
  }
  const created = await h.req('POST', '/v1/policies', { token, body: { name: 'kyc gate', credentialType: 'KYCCredential', disclosure: 'full', appliesTo: 'mediation' } });
  t.equal(created.status, 201);
  t.match(created.body, { id: /^pol_/, name: 'kyc gate', credentialType: 'KYCCredential', disclosure: 'full', appliesTo: 'mediation', tenantId: TENANT_A });
  const bbs = await h.req('POST', '/v1/policies', { token, body: { name: 'age', credentialType: 'AgeVerificationCredential', disclosure: 'selective (BBS+)' } });
  t.match(bbs.body, { disclosure: 'selective (BBS+)', appliesTo: 'both' }, 'appliesTo defaults to both');
  isProblem(t, await h.req('POST', '/v1/policies', { token, body: { name: 'kyc gate', credentialType: 'KYCCredential' } }), 409, 'conflict', 'duplicate name');
  t.same((await h.req('GET', '/v1/policies', { token })).body.map((p: { name: string }) => p.name), ['kyc gate', 'age']);

  // a webhook subscribed to gate.blocked: the test route must not emit it
  const hook = await receiver(t);
  await h.req('PUT', '/v1/webhooks', { token, body: { url: hook.url, events: ['gate.blocked'] } });
  const good = await registerCredential(h, 'KYCCredential');
  const pass = await h.req('POST', '/v1/policies/test', { token, body: { policyId: created.body.id, credentialRef: good } });
  t.equal(pass.status, 200);
  t.match(pass.body, { policy: created.body.id, pass: true, reason: null });
  t.same(pass.body.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [['presented', true], ['exists', true], ['type', true], ['not-revoked', true], ['issuer-active', true]]);
  const revoked = await registerCredential(h, 'KYCCredential', { revoked: true });
  const fail = await h.req('POST', '/v1/policies/test', { token, body: { policyId: created.body.id, credentialRef: revoked } });
  t.match(fail.body, { pass: false, reason: /^not-revoked/ });
  const wrongType = await h.req('POST', '/v1/policies/test', { token, body: { policyId: created.body.id, credentialRef: await registerCredential(h, 'EmailVerificationCredential') } });
  t.match(wrongType.body, { pass: false, reason: /^type/ });
  const deactivated = await h.req('POST', '/v1/policies/test', { token, body: { policyId: created.body.id, credentialRef: await registerCredential(h, 'KYCCredential', { issuerActive: false }) } });
  t.match(deactivated.body, { pass: false, reason: /^issuer-active/ }, "an issuer whose DID is deactivated on chain");
  const live = await h.services.gates.evaluate((await h.services.gates.policies(TENANT_A)).find((p) => p.id === created.body.id)!, { credentialRef: revoked }, null);
  t.same(fail.body.checks, live.checks, 'the same verdict as the live function');
  const bbsNoProof = await h.req('POST', '/v1/policies/test', { token, body: { policyId: bbs.body.id, credentialRef: await registerCredential(h, 'AgeVerificationCredential'), holder: 'did:key:z6Mkholder' } });
  t.match(bbsNoProof.body, { pass: false, reason: /^bbs-proof/ });
  isProblem(t, await h.req('POST', '/v1/policies/test', { token, body: { policyId: 'pol_nope', credentialRef: good } }), 404, 'not-found', 'unknown policy');
  isProblem(t, await h.req('POST', '/v1/policies/test', { token, body: { policyId: created.body.id } }), 400, 'validation', 'credentialRef missing');
  isProblem(t, await h.req('POST', '/v1/policies/test', { token, body: { policyId: created.body.id, credentialRef: good, holder: 'bob' } }), 400, 'validation', 'holder not a DID');
  isProblem(t, await h.req('POST', '/v1/policies/test', { token, body: { policyId: created.body.id, credentialRef: good, presentation: { proof: 'zz' } } }), 400, 'validation', 'bad presentation');
  await new Promise((r) => setTimeout(r, 100));
  t.equal(hook.received.length, 0, 'the test emitted nothing');
  t.same((await h.req('GET', '/v1/webhooks', { token })).body.deliveries, [], 'nothing in the outbox');

  const del = await h.req('DELETE', `/v1/policies/${created.body.id}`, { token });
  t.same(del.body, { id: created.body.id, deleted: true });
  isProblem(t, await h.req('DELETE', `/v1/policies/${created.body.id}`, { token }), 404, 'not-found', 'deleted already');
  t.equal((await h.req('GET', '/v1/policies', { token })).body.length, 1);
});

t.test('rate limit and retention: read, update, validate, per tenant', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  t.same((await h.req('GET', '/v1/policies/rate-limit', { token })).body, { rateLimitPerDidPerMin: 1200 });
  t.same((await h.req('PUT', '/v1/policies/rate-limit', { token, body: { rateLimitPerDidPerMin: 30 } })).body, { rateLimitPerDidPerMin: 30 });
  t.equal((await h.services.settings.get(TENANT_A)).rateLimitPerDidPerMin, 30, 'the live setting changed');
  t.same((await h.req('GET', '/v1/policies/retention', { token })).body, { retentionSeconds: 604800 });
  t.same((await h.req('PUT', '/v1/policies/retention', { token, body: { retentionSeconds: 3600 } })).body, { retentionSeconds: 3600 });
  for (const [path, body] of [
    ['/v1/policies/rate-limit', { rateLimitPerDidPerMin: 0 }],
    ['/v1/policies/rate-limit', { rateLimitPerDidPerMin: '5' }],
    ['/v1/policies/rate-limit', { retentionSeconds: 3600 }],
    ['/v1/policies/retention', { retentionSeconds: 10 }],
    ['/v1/policies/retention', {}],
  ] as const) {
    isProblem(t, await h.req('PUT', path, { token, body }), 400, 'validation', `${path} ${JSON.stringify(body)}`);
  }
  t.same((await h.req('GET', '/v1/policies/rate-limit', { token: await h.session(TENANT_B) })).body, { rateLimitPerDidPerMin: 1200 }, 'tenant B keeps the default');
});

t.test('mediator: identity, config update, endpoint only for the wire tenant, throughput windows', async (t) => {
  const clock = Date.parse('2025-03-01T10:30:20Z');
  const h = await harness(t, { now: () => clock });
  const token = await h.session(TENANT_A);
  const m = await h.req('GET', '/v1/mediator', { token });
  t.equal(m.status, 200);
  t.match(m.body, { did: h.services.identity.did, endpoint: 'http://127.0.0.1:1/didcomm', invitationUrl: 'http://127.0.0.1:1/invite', network: 'testnet', settings: { rateLimitPerDidPerMin: 1200, retentionSeconds: 604800, purgeOnAck: true, manualApproval: false, endpoint: null } });
  t.ok(m.body.protocols.includes('https://didcomm.org/coordinate-mediation/2.0'));
  t.equal(m.body.peerDid, h.services.identity.peerDid('http://127.0.0.1:1/didcomm'), 'the did:peer:2 of the same keys, carrying the endpoint');
  t.match(m.body.peerDid, /^did:peer:2\.E/);
  t.equal(m.body.peerInvitationUrl, 'http://127.0.0.1:1/invite?did=peer');
  const put = await h.req('PUT', '/v1/mediator/config', { token, body: { endpoint: 'https://relay.example.org/didcomm', retentionSeconds: 7200, purgeOnAck: false, rateLimitPerDidPerMin: 10, manualApproval: true } });
  t.equal(put.status, 200);
  t.match(put.body, { endpoint: 'https://relay.example.org/didcomm', invitationUrl: 'https://relay.example.org/invite', peerDid: h.services.identity.peerDid('https://relay.example.org/didcomm'), peerInvitationUrl: 'https://relay.example.org/invite?did=peer', settings: { retentionSeconds: 7200, purgeOnAck: false, rateLimitPerDidPerMin: 10, manualApproval: true } });
  const b = await h.session(TENANT_B);
  isProblem(t, await h.req('PUT', '/v1/mediator/config', { token: b, body: { endpoint: 'https://evil.example/didcomm' } }), 400, 'validation', 'endpoint from another tenant');
  t.match((await h.req('PUT', '/v1/mediator/config', { token: b, body: { manualApproval: true } })).body.settings, { manualApproval: true, rateLimitPerDidPerMin: 1200 });
  isProblem(t, await h.req('PUT', '/v1/mediator/config', { token, body: { purgeOnAck: 'yes' } }), 400, 'validation', 'bad boolean');
  isProblem(t, await h.req('PUT', '/v1/mediator/config', { token, body: { colour: 1 } }), 400, 'validation', 'unknown field');

  const counters = h.services.store.counters;
  counters.add(TENANT_A, 'received', clock - 5 * 60_000, 3);
  counters.add(TENANT_A, 'received', clock, 2);
  counters.add(TENANT_A, 'delivered', clock, 1);
  counters.add(TENANT_A, 'received', clock - 3 * 86_400_000, 7);
  const hour = await h.req('GET', '/v1/mediator/throughput?window=1h', { token });
  t.equal(hour.status, 200);
  t.match(hour.body, { window: '1h', bucketSeconds: 60, totals: { received: 5, delivered: 1 } });
  t.equal(hour.body.points.length, 60);
  t.match(hour.body.points.at(-1), { at: '2025-03-01T10:30:00.000Z', received: 2, delivered: 1 });
  t.equal(hour.body.points.at(-6).received, 3);
  const expect = { '6h': [300, 72], '24h': [900, 96], '7d': [3600, 168] } as const;
  for (const [w, [secs, n]] of Object.entries(expect)) {
    const res = await h.req('GET', `/v1/mediator/throughput?window=${w}`, { token });
    t.equal(res.body.bucketSeconds, secs, `${w} bucket`);
    t.equal(res.body.points.length, n, `${w} points`);
  }
  t.equal((await h.req('GET', '/v1/mediator/throughput?window=7d', { token })).body.totals.received, 12);
  t.equal((await h.req('GET', '/v1/mediator/throughput', { token })).body.window, '1h', 'default 1h');
  isProblem(t, await h.req('GET', '/v1/mediator/throughput?window=2h', { token }), 400, 'validation', 'bad window');
  t.equal((await h.req('GET', '/v1/mediator/throughput?window=1h', { token: b })).body.totals.received, 0, 'tenant B has none');
});

t.test('team: list and an always-501 invite; billing', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  for (const creds of [{}, { token }]) {
    const invite = await h.req('POST', '/v1/team', { ...creds, body: { email: 'new@example.org' } });
    t.equal(invite.status, 501);
    t.same(invite.body, { error: 'operator invite is unavailable in v0' }, 'a plain {error}, not a Problem');
    t.match(invite.headers.get('content-type'), /^application\/json/);
  }
  t.same((await h.req('GET', '/v1/team', { token })).body.map((o: { id: string }) => o.id), ['op_default'], 'only the operator of this session');

  const { mediation, keys } = await h.mediation(TENANT_A);
  const rec = await h.services.delivery.accept(mediation, keys[0]!, null, new Uint8Array(3));
  await h.services.delivery.accept(mediation, keys[0]!, null, new Uint8Array(3));
  await h.services.delivery.delivered([rec], 'delivered');
  await h.apiKey(TENANT_A, 'read');
  const bill = await h.req('GET', '/v1/billing', { token });
  t.equal(bill.status, 200);
  t.match(bill.body, { plan: 'self-hosted', provider: null, usage: { messagesReceived: 2, messagesDelivered: 1, mediations: { total: 1, granted: 1, requested: 0 }, apiKeys: 1, policies: 0 } });
  t.match(bill.body.period.start, /^\d{4}-\d{2}-01T00:00:00.000Z$/);
  t.match((await h.req('GET', '/v1/billing', { token: await h.session(TENANT_B) })).body.usage, { messagesReceived: 0, messagesDelivered: 0, mediations: { total: 0 }, apiKeys: 0 });
});

t.test('health: real probes, ok; degraded with 503 when the chain has no head', async (t) => {
  const h = await harness(t);
  const head = h.store.head()!;
  t.equal(head.height, 4, 'genesis, then blocks at heights 1 and 4');
  const headMs = (await h.store.blocks.bySeq(head.seq))!.header.timestampMs;
  for (const path of ['/health', '/v1/health']) {
    const before = Date.now();
    const res = await h.req('GET', path);
    const after = Date.now();
    t.equal(res.status, 200, path);
    t.match(res.body, { status: 'ok', service: 'relay', version: '9.9.9-test', network: 'testnet', checks: { postgres: { ok: true, backend: 'leveldb' }, redis: { ok: true, backend: 'in-process' }, ledgerRpc: { ok: true, backend: 'in-process', height: 4 } } });
    for (const c of Object.values(res.body.checks) as Array<{ ms: number }>) t.ok(Number.isInteger(c.ms) && c.ms >= 0, 'ms is a measured integer');
    const age = res.body.checks.ledgerRpc.headAgeMs;
    t.ok(age >= before - headMs && age <= after - headMs, `the head age is measured from the head block's time (${age})`);
    t.ok(Date.parse(res.body.time) >= before && Date.parse(res.body.time) <= after, 'the ISO time of the answer');
  }
  await registerCredential(h, 'KYCCredential');
  t.match((await h.req('GET', '/v1/health')).body.checks.ledgerRpc, { ok: true, height: 5 }, 'a new block: the probe reads the new head');
  const noHead = await harness(t, { genesis: false });
  t.equal(noHead.chain.head(), undefined, 'a store with no genesis has no head');
  const down = await noHead.req('GET', '/v1/health');
  t.equal(down.status, 503);
  t.match(down.body, { status: 'degraded', checks: { ledgerRpc: { ok: false, error: /no head/ }, postgres: { ok: true } } });
});

t.test('webhooks: secret once, rotation, validation, forget; a signed test delivery to a real receiver', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  t.same((await h.req('GET', '/v1/webhooks', { token })).body.config, null);
  isProblem(t, await h.req('POST', '/v1/webhooks/test', { token, body: { event: 'message.queued' } }), 409, 'conflict', 'no webhook yet');
  const hook = await receiver(t);
  const first = await h.req('PUT', '/v1/webhooks', { token, body: { url: hook.url, events: ['message.queued', 'mediation.granted', 'message.queued'] } });
  t.equal(first.status, 201);
  t.match(first.body, { id: /^wh_/, url: hook.url, events: ['mediation.granted', 'message.queued'] });
  t.match(first.body.secret, /^whsec_/);
  const second = await h.req('PUT', '/v1/webhooks', { token, body: { url: hook.url, events: ['message.queued'] } });
  t.equal(second.status, 200);
  t.notOk('secret' in second.body, 'the secret is not shown again');
  t.equal(second.body.id, first.body.id);
  t.equal((await h.services.events.webhook(TENANT_A))?.events.length, 1, 'the events cache was forgotten');
  const got = await h.req('GET', '/v1/webhooks', { token });
  t.notMatch(JSON.stringify(got.body), /whsec_/, 'GET never shows the secret');
  t.match(got.body.config, { id: first.body.id, url: hook.url, events: ['message.queued'] });

  const test = await h.req('POST', '/v1/webhooks/test', { token, body: { event: 'gate.blocked' } });
  t.equal(test.status, 200, JSON.stringify(test.body));
  t.match(test.body, { id: /^evt_test_/, status: 'delivered', statusCode: 200, request: { url: hook.url } });
  t.type(test.body.duration, 'number');
  t.equal(hook.received.length, 1);
  const arrived = hook.received[0]!;
  t.ok(verifyWebhookSignature(arrived.headers['ledger-signature'], arrived.body, first.body.secret), 'Ledger-Signature verifies with the secret shown once');
  t.match(JSON.parse(arrived.body.toString()), { id: test.body.id, type: 'gate.blocked', data: { test: true } });
  t.match(test.body.request.headers, { 'Ledger-Signature': /^t=\d+,v1=[0-9a-f]{64}$/ });
  const listed = (await h.req('GET', '/v1/webhooks', { token })).body.deliveries;
  t.match(listed[0], { eventId: test.body.id, event: 'gate.blocked', status: 'delivered', test: true });

  const rotated = await h.req('PUT', '/v1/webhooks', { token, body: { url: hook.url, events: ['message.queued'], rotateSecret: true } });
  t.match(rotated.body.secret, /^whsec_/);
  t.not(rotated.body.secret, first.body.secret);
  await h.req('POST', '/v1/webhooks/test', { token, body: { event: 'message.queued' } });
  t.ok(verifyWebhookSignature(hook.received[1]!.headers['ledger-signature'], hook.received[1]!.body, rotated.body.secret), 'signed with the new secret');
  t.notOk(verifyWebhookSignature(hook.received[1]!.headers['ledger-signature'], hook.received[1]!.body, first.body.secret), 'not with the old one');

  // a live event reaches the receiver through the outbox, per the subscription
  const { mediation, keys } = await h.mediation(TENANT_A);
  await h.services.delivery.accept(mediation, keys[0]!, null, new Uint8Array(1));
  for (let i = 0; i < 200 && hook.received.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(JSON.parse(hook.received[2]!.body.toString()).type, 'message.queued');

  for (const [body, field] of [
    [{ url: 'http://example.org/hook', events: [] }, 'url'],
    [{ url: 'ftp://example.org/hook', events: [] }, 'url'],
    [{ events: [] }, 'url'],
    [{ url: hook.url }, 'events'],
    [{ url: hook.url, events: ['message.read'] }, 'events[0]'],
    [{ url: hook.url, events: [], rotateSecret: 'yes' }, 'rotateSecret'],
    [{ url: hook.url, events: [], secret: 'mine' }, 'secret'],
  ] as const) {
    const res = await h.req('PUT', '/v1/webhooks', { token, body });
    isProblem(t, res, 400, 'validation', JSON.stringify(body));
    t.equal(res.body.field, field);
  }
  isProblem(t, await h.req('POST', '/v1/webhooks/test', { token, body: { event: 'everything' } }), 400, 'validation', 'unknown event');
  t.equal((await h.req('PUT', '/v1/webhooks', { token, body: { url: 'https://hooks.example.org/relay', events: [] } })).status, 200, 'https anywhere');

  // a receiver that is down: the test answers how it went
  await h.req('PUT', '/v1/webhooks', { token, body: { url: 'http://127.0.0.1:9/hook', events: [] } });
  const down = await h.req('POST', '/v1/webhooks/test', { token, body: { event: 'message.queued' } });
  t.equal(down.status, 200);
  t.match(down.body, { status: 'failed', statusCode: null });
});

t.test('webhooks under concurrency: one first PUT shows the secret; one test at a time per tenant', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  const slow = await receiver(t, () => 200, { holdMs: 300 });
  const puts = await Promise.all([0, 1, 2].map(() => h.req('PUT', '/v1/webhooks', { token, body: { url: slow.url, events: ['message.queued'] } })));
  const shown = puts.filter((p) => 'secret' in p.body);
  t.equal(shown.length, 1, 'exactly one answer shows a secret');
  t.same(puts.map((p) => p.status).sort(), [200, 200, 201]);
  const stored = await h.services.events.webhook(TENANT_A);
  t.equal(stored?.secret, shown[0]!.body.secret, 'the secret shown is the one kept');

  const [x, y] = await Promise.all([
    h.req('POST', '/v1/webhooks/test', { token, body: { event: 'message.queued' } }),
    new Promise((r) => setTimeout(r, 50)).then(() => h.req('POST', '/v1/webhooks/test', { token, body: { event: 'message.queued' } })),
  ]);
  t.equal(x.status, 200);
  isProblem(t, y, 429, 'rate-limited', 'a second test while one is in flight');
  t.equal(y.headers.get('retry-after'), '1');
  const other = await h.session(TENANT_B);
  await h.req('PUT', '/v1/webhooks', { token: other, body: { url: slow.url, events: [] } });
  t.equal((await h.req('POST', '/v1/webhooks/test', { token: other, body: { event: 'message.queued' } })).status, 200, 'another tenant is not held up');
});
