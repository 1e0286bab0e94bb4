import t from 'tap';
import { startRelay, mediate, MEDIATION, PICKUP } from './harness.js';

t.test('invitation, mediation, forward, pickup and acknowledgement with the reference library', async (t) => {
  const relay = await startRelay(t);
  t.match(relay.invite, { type: 'https://didcomm.org/out-of-band/2.0/invitation', from: /^did:key:z6Mk/, body: { goal_code: 'request-mediate', accept: ['didcomm/v2'] } });
  t.same(relay.invite.services[0], { id: '#relay', type: 'DIDCommMessaging', serviceEndpoint: { uri: relay.didcomm, accept: ['didcomm/v2'], routingKeys: [] } });
  const seen = new Set<string>();
  for (let i = 0; i < 3; i++) seen.add(((await (await fetch(`${relay.url}/invite`)).json()) as { id: string }).id);
  t.equal(seen.size, 3, 'each invitation has its own id');

  const alice = relay.agent();
  const { grant, update } = await mediate(relay, alice);
  t.equal(grant.status, 200);
  t.equal(grant.message?.type, `${MEDIATION}/mediate-grant`);
  t.equal((grant.message?.body as { routing_did: string }).routing_did, relay.mediator);
  t.equal(grant.message?.from, relay.mediator, 'authcrypted from the mediator');
  t.same((update.message?.body as { updated: unknown[] }).updated, [{ recipient_did: alice.did, action: 'add', result: 'success' }]);

  const bob = relay.agent();
  const inner = await bob.pack(bob.message('https://example.org/hello/1.0/hi', { text: 'hello alice' }), alice.did);
  const fwd = await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, inner));
  t.equal(fwd.status, 202, 'a forward answers with a status only');
  t.equal(fwd.raw, '');

  const status = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/status-request`, {});
  t.match(status.message, { type: `${PICKUP}/status`, body: { message_count: 1, live_delivery: false } });

  const delivery = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/delivery-request`, { limit: 10 });
  t.equal(delivery.message?.type, `${PICKUP}/delivery`);
  const attachments = delivery.message?.attachments as Array<{ id: string; data: { json: unknown } }>;
  t.equal(attachments.length, 1);
  const opened = await alice.unpack(JSON.stringify(attachments[0]!.data.json));
  t.same(opened.body, { text: 'hello alice' }, 'alice reads what bob sent; the relay only carried it');

  const again = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/delivery-request`, { limit: 10 });
  t.equal((again.message?.attachments as unknown[]).length, 1, 'not acknowledged yet: delivered again');
  t.equal((attachments[0] as { description?: string }).description, undefined, 'a first delivery carries no mark');
  t.match((again.message?.attachments as unknown[])[0], { id: attachments[0]!.id, description: 'redelivery' }, 'a second one is marked, with the same id');
  const ack = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/messages-received`, { message_id_list: [attachments[0]!.id] });
  t.match(ack.message, { type: `${PICKUP}/status`, body: { message_count: 0 } });
  const empty = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/delivery-request`, { limit: 10 });
  t.match(empty.message, { type: `${PICKUP}/status`, body: { message_count: 0 } }, 'acknowledged: never delivered again');

  // the agents send X25519 envelopes, so Node's crypto did all of it
  const crypto = await relay.metrics.getSingleMetric('ledger_relay_crypto_total')!.get();
  const count = (op: string, via: string) => crypto.values.find((v) => v.labels.op === op && v.labels.via === via)?.value ?? 0;
  t.ok(count('unpack', 'node') >= 8 && count('pack', 'node') >= 7, `node: ${count('unpack', 'node')} unpacked, ${count('pack', 'node')} packed`);
  t.same([count('unpack', 'library'), count('pack', 'library')], [0, 0], 'the library: none');
});

t.test('live mode over a WebSocket to /didcomm', async (t) => {
  const relay = await startRelay(t);
  const alice = relay.agent();
  await mediate(relay, alice);
  const bob = relay.agent();
  const early = await bob.pack(bob.message('https://example.org/m', { n: 0 }), alice.did);
  t.equal((await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, early))).status, 202);

  const live = await alice.socket(relay.didcomm);
  t.teardown(() => live.close());
  live.sendRaw(await alice.pack(alice.message(`${PICKUP}/live-delivery-change`, { live_delivery: true }), relay.mediator));
  t.match(await live.next(), { type: `${PICKUP}/status`, body: { live_delivery: true } });
  const queued = await live.next();
  t.equal(queued.type, `${PICKUP}/delivery`, 'what waited is pushed once live mode is on');
  const later = await bob.pack(bob.message('https://example.org/m', { n: 1 }), alice.did);
  t.equal((await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, later))).status, 202);
  const pushed = await live.next();
  t.equal(pushed.type, `${PICKUP}/delivery`);
  const att = (pushed.attachments as Array<{ id: string; data: { json: unknown } }>)[0]!;
  t.same((await alice.unpack(JSON.stringify(att.data.json))).body, { n: 1 });

  const doc = (await (await fetch(`${relay.url}/did-document`)).json()) as { id: string; service: Array<{ serviceEndpoint: { uri: string } }> };
  t.equal(doc.id, relay.mediator);
  t.same(doc.service.map((s) => s.serviceEndpoint.uri), [relay.didcomm, relay.didcomm.replace(/^http/, 'ws')], 'the live URL is advertised in the mediator DID document');

  const bad = await alice.socket(relay.didcomm);
  bad.sendRaw('garbage');
  t.match(await bad.closed, { code: 4400, reason: /^ENVELOPE_MALFORMED/ }, 'a frame that is not an envelope closes the socket with 4000 + status');

  const viaHttp = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/live-delivery-change`, { live_delivery: true });
  t.equal(viaHttp.status, 400);
  t.match(viaHttp.message, { type: 'https://didcomm.org/report-problem/2.0/problem-report', body: { code: 'e.m.live-mode-not-supported' } });
});

t.test('the wire refuses what it must', async (t) => {
  const relay = await startRelay(t, { config: { maxEnvelopeBytes: 4096 } });
  t.equal((await fetch(relay.didcomm)).status, 404, 'GET /didcomm is 404');
  const post = (body: string, type = 'application/didcomm-encrypted+json') => fetch(relay.didcomm, { method: 'POST', headers: { 'content-type': type }, body });
  const garbage = await post('not json');
  t.equal(garbage.status, 400);
  t.match(await garbage.json(), { status: 400, code: 'ENVELOPE_MALFORMED' });
  t.equal((await post('{}', 'text/plain')).status, 415);
  t.equal((await post('x'.repeat(5000))).status, 413);

  const alice = relay.agent();
  const stranger = relay.agent();
  const notForUs = await alice.pack(alice.message('https://didcomm.org/trust-ping/2.0/ping', {}), stranger.did);
  t.match(await (await post(notForUs)).json(), { status: 400, code: 'NOT_FOR_THIS_MEDIATOR' });

  const unknown = await alice.send(relay.didcomm, relay.mediator, 'https://example.org/other/1.0/thing', {});
  t.equal(unknown.status, 400, 'any other type is 400');
  t.match(unknown.message?.body, { code: 'e.p.msg.unsupported-type' });

  const anonPickup = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/status-request`, {}, { anon: true });
  t.equal(anonPickup.status, 401, 'pickup needs an identifiable sender');

  const notMediated = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/status-request`, {});
  t.equal(notMediated.status, 403);
  t.match(notMediated.message, { body: { code: 'e.p.req.not-mediated' } });

  const toNobody = await alice.post(relay.didcomm, await alice.forward(relay.mediator, stranger.did, await alice.pack(alice.message('x', {}), stranger.did)));
  t.equal(toNobody.status, 404);

  const grantReply = await alice.send(relay.didcomm, relay.mediator, `${MEDIATION}/mediate-grant`, { routing_did: 'did:example:x' });
  t.match(grantReply.message?.body, { code: 'e.p.msg.unthreaded' }, 'a response type with no thread of ours');

  const ping = await alice.pack(alice.message('https://didcomm.org/trust-ping/2.0/ping', {}), relay.mediator);
  t.equal((await alice.post(relay.didcomm, ping)).status, 200);
  t.equal((await alice.post(relay.didcomm, ping)).status, 409, 'a replayed envelope is refused');
});

t.test('trust ping and discover features, with the crypto in a worker thread', async (t) => {
  const relay = await startRelay(t, { config: { cryptoThreads: 1 } });
  const alice = relay.agent();
  const ping = alice.message('https://didcomm.org/trust-ping/2.0/ping', { response_requested: true });
  const pong = await alice.post(relay.didcomm, await alice.pack(ping, relay.mediator));
  t.equal(pong.message?.type, 'https://didcomm.org/trust-ping/2.0/ping-response');
  t.equal(pong.message?.thid, ping.id, 'replies are threaded');
  const quiet = await alice.send(relay.didcomm, relay.mediator, 'https://didcomm.org/trust-ping/2.0/ping', { response_requested: false });
  t.equal(quiet.status, 202);
  const disclose = await alice.send(relay.didcomm, relay.mediator, 'https://didcomm.org/discover-features/2.0/queries', { queries: [{ 'feature-type': 'protocol', match: 'https://didcomm.org/messagepickup/*' }] });
  t.same((disclose.message?.body as { disclosures: unknown[] }).disclosures, [{ 'feature-type': 'protocol', id: 'https://didcomm.org/messagepickup/3.0', roles: ['mediator'] }]);
});

t.test('keylist-query paginates and keylist-update answers per entry', async (t) => {
  const relay = await startRelay(t);
  const alice = relay.agent();
  const extra = [relay.agent().did, relay.agent().did];
  const { update } = await mediate(relay, alice, [alice.did, ...extra, alice.did]);
  t.same((update.message?.body as { updated: Array<{ result: string }> }).updated.map((u) => u.result), ['success', 'success', 'success', 'no_change']);
  const page = await alice.send(relay.didcomm, relay.mediator, `${MEDIATION}/keylist-query`, { paginate: { offset: 1, limit: 1 } });
  t.match(page.message, { type: `${MEDIATION}/keylist`, body: { pagination: { count: 1, offset: 1, remaining: 1 } } });
  const bad = await alice.send(relay.didcomm, relay.mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: 'not-a-did', action: 'add' }, { recipient_did: extra[0], action: 'remove' }] });
  t.same((bad.message?.body as { updated: Array<{ result: string }> }).updated.map((u) => u.result), ['client_error', 'success']);
});

t.test('floods: live connections are capped per address, envelopes in flight per socket', async (t) => {
  const relay = await startRelay(t, { config: { maxLiveConnectionsPerIp: 2 } });
  const alice = relay.agent();
  const open = [await alice.socket(relay.didcomm), await alice.socket(relay.didcomm)];
  t.teardown(() => open.forEach((s) => s.close()));
  await t.rejects(alice.socket(relay.didcomm), /503/, 'the third socket from one address is refused with 503');
  const ws = open[0]!;
  for (let i = 0; i < 40; i++) ws.sendRaw('x'.repeat(10));
  t.match(await ws.closed, { code: 4400 }, 'garbage closes the socket at the first frame');
  open[0] = await alice.socket(relay.didcomm);
  t.pass('a closed socket frees its place');
});

t.test('the rate limit: 429 with Retry-After, counted per authenticated sender', async (t) => {
  const relay = await startRelay(t, { config: { rateLimitPerDidPerMin: 3 } });
  const alice = relay.agent();
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 4; i++) {
    const packed = await alice.pack(alice.message('https://didcomm.org/trust-ping/2.0/ping', {}), relay.mediator);
    const res = await fetch(relay.didcomm, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed });
    statuses.push(res.status);
    if (res.status === 429) {
      retryAfter = res.headers.get('retry-after');
      t.match(await res.json(), { code: 'RATE_LIMITED', detail: /over its limit of 3 envelopes a minute/ });
    } else await res.arrayBuffer();
  }
  t.same(statuses, [200, 200, 200, 429]);
  t.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After ${retryAfter}`);
  const bob = relay.agent();
  t.equal((await bob.send(relay.didcomm, relay.mediator, 'https://didcomm.org/trust-ping/2.0/ping', {})).status, 200, 'another sender is not limited by alice');
});

t.test('live mode turned on before the keylist is filled (as Identus does) still pushes for later keys', async (t) => {
  const relay = await startRelay(t);
  const alice = relay.agent();
  t.equal((await alice.send(relay.didcomm, relay.mediator, `${MEDIATION}/mediate-request`, {})).message?.type, `${MEDIATION}/mediate-grant`);
  const live = await alice.socket(relay.didcomm);
  t.teardown(() => live.close());
  live.sendRaw(await alice.pack(alice.message(`${PICKUP}/live-delivery-change`, { live_delivery: true }), relay.mediator));
  t.match(await live.next(), { body: { live_delivery: true, message_count: 0 } });
  const later = relay.agent().did;
  await alice.send(relay.didcomm, relay.mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: later, action: 'add' }] });
  const bob = relay.agent();
  const inner = await bob.pack(bob.message('https://example.org/m', { late: true }), later);
  t.equal((await bob.post(relay.didcomm, await bob.forward(relay.mediator, later, inner))).status, 202);
  const pushed = await live.next();
  t.equal(pushed.type, `${PICKUP}/delivery`);
  t.equal((pushed.body as { recipient_did?: string }).recipient_did, later);
});
