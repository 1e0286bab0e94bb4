import t from 'tap';
import { httpCall } from '../../../common/http-call.js';
import { docForm, framesForm, jpegImage, LEDGER_DID, pngImage, serve } from '../../verification/harness.js';

const IMG = jpegImage(400, 300);
const FRAME = jpegImage(96, 96);

t.test('create, read, list over HTTP; errors are Problems', async (t) => {
  const h = await serve(t);
  const created = await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 2, subjectDid: LEDGER_DID, redirectUrl: 'https://shop.test/done', metadata: { order: '17' } } });
  t.equal(created.status, 201);
  const { session, sessionUrl } = created.body;
  t.match(session, { id: /^ver_/, status: 'pending', level: 2, sandbox: false, subjectDid: LEDGER_DID, metadata: { order: '17' }, sessionToken: /^sess_tok_/ });
  t.equal(sessionUrl, `https://kyc.test/v/s/${session.sessionToken}`);
  const read = await h.req('GET', `/v1/verifications/${session.id}`, { key: 'sk_live_a' });
  t.equal(read.status, 200);
  t.notOk('sessionToken' in read.body.session);
  t.notOk('tokenHash' in read.body.session);
  t.notOk('steps' in read.body.session);
  const list = await h.req('GET', '/v1/verifications?status=pending&limit=5', { key: 'sk_live_a' });
  t.same(list.body, { sessions: [{ id: session.id, status: 'pending', level: 2, sandbox: false, subjectDid: LEDGER_DID, credentialId: null, createdAt: session.createdAt, completedAt: null, metadata: { order: '17' } }], total: 1 });

  const bad = async (body: unknown, field: string, key = 'sk_live_a', status = 400) => {
    const r = await h.req('POST', '/v1/verifications', { key, body });
    t.equal(r.status, status, JSON.stringify(body));
    t.equal(r.body.field, field, JSON.stringify(body));
    t.match(r.headers.get('content-type'), /problem\+json/);
    return r;
  };
  await bad({}, 'level');
  await bad({ level: 4 }, 'level');
  await bad({ level: '1' }, 'level');
  await bad({ level: 1, subjectDid: 'alice' }, 'subjectDid');
  await bad({ level: 1, sandboxOutcome: 'pass' }, 'sandboxOutcome');
  await bad({ level: 1, sandbox: true, sandboxOutcome: 'maybe' }, 'sandboxOutcome');
  await bad({ level: 1, redirectUrl: 'javascript:alert(1)' }, 'redirectUrl');
  await bad({ level: 1, metadata: ['a'] }, 'metadata');
  await bad({ level: 1, metadata: 'order=17' }, 'metadata');
  await bad({ level: 1, colour: 'red' }, 'colour');
  const forbidden = await bad({ level: 1, sandbox: false }, 'sandbox', 'sk_sandbox_a', 403);
  t.equal(forbidden.body.code, 'SANDBOX_KEY_LIVE_SESSION');
  const defaulted = await h.req('POST', '/v1/verifications', { key: 'sk_sandbox_a', body: { level: 1 } });
  t.equal(defaulted.body.session.sandbox, true, 'a sandbox key defaults to sandbox');
  t.equal((await h.req('GET', '/v1/verifications?limit=101', { key: 'sk_live_a' })).status, 400);
  t.equal((await h.req('GET', '/v1/verifications?status=done', { key: 'sk_live_a' })).status, 400);
  t.equal((await h.req('GET', '/v1/verifications')).status, 401);
  t.equal((await h.req('GET', '/v1/verifications', { key: 'sk_nope' })).status, 401);
});

t.test('metadata: any JSON values, kept as given on create, GET and list; over a limit a Problem naming it', async (t) => {
  const h = await serve(t);
  const metadata = { orderId: 12345, vip: true, none: null, price: 19.99, negative: -0.5, tags: ['a', 1, false, null, []], address: { city: 'Zürich', lines: ['x'], geo: { lat: 47.37 } }, empty: {}, '✓ ok': 'ünïcode 😀' };
  const created = await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1, metadata } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.same(created.body.session.metadata, metadata);
  const id = created.body.session.id;
  t.same((await h.req('GET', `/v1/verifications/${id}`, { key: 'sk_live_a' })).body.session.metadata, metadata);
  t.same((await h.req('GET', '/v1/verifications', { key: 'sk_live_a' })).body.sessions[0].metadata, metadata);
  t.same((await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1 } })).body.session.metadata, {}, 'none given is {}');
  t.same((await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1, metadata: null } })).body.session.metadata, {});

  const refused = async (metadata: unknown, code: string, detail: RegExp, raw?: string) => {
    const headers = { 'x-api-key': 'sk_live_a', 'content-type': 'application/json' };
    const r = await httpCall(h.url, 'POST', '/v1/verifications', { headers, raw: raw ?? JSON.stringify({ level: 1, metadata }) });
    t.equal(r.status, 400, code);
    t.match(r.headers.get('content-type'), /problem\+json/);
    t.match(r.body, { status: 400, code, field: 'metadata', detail });
  };
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  t.equal((await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1, metadata: keys(50) } })).status, 201, '50 keys');
  await refused(keys(51), 'METADATA_TOO_MANY_KEYS', /at most 50 keys; it has 51/);
  await refused({ ['k'.repeat(41)]: 1 }, 'METADATA_KEY_INVALID', /1 to 40 characters/);
  await refused({ '': 1 }, 'METADATA_KEY_INVALID', /1 to 40 characters/);
  const big = { note: 'x'.repeat(8192 - '{"note":""}'.length) };
  t.equal((await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1, metadata: big } })).status, 201, 'exactly 8192 bytes of JSON');
  await refused({ note: `${big.note}x` }, 'METADATA_TOO_LARGE', /8193 bytes of JSON; the limit is 8192 bytes \(8 KB\)/);
  await refused({ name: 'é'.repeat(4091) }, 'METADATA_TOO_LARGE', /the limit is 8192 bytes/);
  let deep: unknown = 1;
  for (let i = 0; i < 7; i++) deep = [deep];
  t.equal((await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1, metadata: { a: deep } } })).status, 201, '8 levels in all');
  await refused({ a: [deep] }, 'METADATA_TOO_DEEP', /at most 8 levels/);
  await refused(undefined, 'METADATA_NUMBER_UNSAFE', /metadata\.orderId is an integer beyond 2\^53 - 1 \(12345678901234567890\).*send it as a string/, '{"level":1,"metadata":{"orderId":12345678901234567890}}');
});

t.test('organizations are isolated', async (t) => {
  const h = await serve(t);
  const { session } = (await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 2 } })).body;
  for (const [method, path, form] of [
    ['GET', `/v1/verifications/${session.id}`],
    ['GET', `/v1/verifications/${session.id}/liveness-challenge`],
    ['POST', `/v1/verifications/${session.id}/documents`, docForm(IMG, { type: 'passport', side: 'front' })],
    ['POST', `/v1/verifications/${session.id}/liveness`, framesForm([FRAME])],
  ] as Array<[string, string, FormData?]>) {
    const r = await h.req(method, path, { key: 'sk_live_b', ...(form ? { form } : {}) });
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.body.code, 'SESSION_NOT_FOUND');
  }
  t.equal((await h.req('GET', '/v1/verifications', { key: 'sk_live_b' })).body.total, 0);
  t.equal((await h.req('GET', '/v1/verifications/ver_unknown', { key: 'sk_live_a' })).status, 404);
});

t.test('a sandbox session through the API-key routes: documents, liveness, completion', async (t) => {
  const h = await serve(t);
  const { session } = (await h.req('POST', '/v1/verifications', { key: 'sk_sandbox_a', body: { level: 2, sandbox: true } })).body;
  const base = `/v1/verifications/${session.id}`;
  const front = await h.req('POST', `${base}/documents`, { key: 'sk_sandbox_a', form: docForm(pngImage(300, 220), { type: 'driving_license', side: 'front' }, 'front.txt', 'text/plain') });
  t.equal(front.status, 201, 'the type is judged by the bytes, not the name or declared type');
  t.match(front.body.document, { id: /^doc_/, type: 'driving_license', side: 'front', status: 'uploaded', checks: { mediaType: 'image/png' } });
  const gif = await h.req('POST', `${base}/documents`, { key: 'sk_sandbox_a', form: docForm(Buffer.from('GIF89a\x01\x00'), { type: 'passport', side: 'front' }, 'x.jpg') });
  t.match(gif, { status: 400, body: { code: 'IMAGE_TYPE_UNSUPPORTED', field: 'file' } });
  const small = await h.req('POST', `${base}/documents`, { key: 'sk_sandbox_a', form: docForm(jpegImage(120, 120), { type: 'passport', side: 'front' }) });
  t.match(small, { status: 400, body: { code: 'IMAGE_TOO_SMALL' } });
  const noType = await h.req('POST', `${base}/documents`, { key: 'sk_sandbox_a', form: docForm(IMG, { side: 'front' }) });
  t.match(noType, { status: 400, body: { field: 'type' } });
  const addr = await h.req('POST', `${base}/documents`, { key: 'sk_sandbox_a', form: docForm(IMG, { type: 'address_proof', side: 'front' }) });
  t.match(addr, { status: 400, body: { code: 'ADDRESS_PROOF_NOT_IN_LEVEL' } });
  const back = await h.req('POST', `${base}/documents`, { key: 'sk_sandbox_a', form: docForm(IMG, { type: 'driving_license', side: 'back', final: 'true' }) });
  t.equal(back.status, 201);
  t.equal((await h.req('GET', base, { key: 'sk_sandbox_a' })).body.session.status, 'pending', 'liveness still to do');
  const noChallenge = await h.req('POST', `${base}/liveness`, { key: 'sk_sandbox_a', form: framesForm([FRAME]) });
  t.match(noChallenge, { status: 409, body: { code: 'LIVENESS_CHALLENGE_REQUIRED' } });
  const ch = await h.req('GET', `${base}/liveness-challenge`, { key: 'sk_sandbox_a' });
  t.match(ch.body.challenge, { id: /^chl_/, type: 'head_turn' });
  const tooMany = await h.req('POST', `${base}/liveness`, { key: 'sk_sandbox_a', form: framesForm(Array(11).fill(FRAME)) });
  t.match(tooMany, { status: 400, body: { code: 'TOO_MANY_FILES' } });
  const live = await h.req('POST', `${base}/liveness`, { key: 'sk_sandbox_a', form: framesForm([FRAME, FRAME], { challengeId: ch.body.challenge.id }) });
  t.same(live.body, { liveness: { status: 'passed', score: 0.99 } });
  const done = (await h.req('GET', base, { key: 'sk_sandbox_a' })).body.session;
  t.match(done, { status: 'completed', liveness: { status: 'passed', score: 0.99 }, documents: [{ status: 'verified' }, { status: 'verified' }] });
  t.same(h.events.types(), ['verification.completed']);
  const late = await h.req('POST', `${base}/documents`, { key: 'sk_sandbox_a', form: docForm(IMG, { type: 'passport', side: 'front' }) });
  t.match(late, { status: 409, body: { code: 'SESSION_NOT_PENDING', type: 'https://errors.test/kyc/conflict' } });
});

t.test('upload limits: 10 MB per document (413), multipart only', async (t) => {
  const h = await serve(t);
  const { session } = (await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1 } })).body;
  const path = `/v1/verifications/${session.id}/documents`;
  const big = Buffer.alloc(10 * 1024 * 1024 + 1);
  IMG.copy(big);
  const r = await h.req('POST', path, { key: 'sk_live_a', form: docForm(big, { type: 'passport', side: 'front' }) });
  t.equal(r.status, 413);
  t.equal(r.body.code, 'FILE_TOO_LARGE');
  const json = await h.req('POST', path, { key: 'sk_live_a', body: { type: 'passport' } });
  t.match(json, { status: 400, body: { code: 'MULTIPART_REQUIRED' } });
  const mrz = await h.req('POST', path, { key: 'sk_live_a', form: docForm(IMG, { type: 'passport', side: 'front', mrz: 'P<UTOERIKSSON' }) });
  t.match(mrz, { status: 400, body: { code: 'MRZ_FORMAT', field: 'mrz' } });
  const ok = await h.req('POST', path, { key: 'sk_live_a', form: docForm(IMG, { type: 'passport', side: 'front', final: 'true' }) });
  t.equal(ok.status, 201);
  t.equal((await h.req('GET', `/v1/verifications/${session.id}`, { key: 'sk_live_a' })).body.session.status, 'processing', 'final=true triggers processing');
  t.same(h.events.events, [], 'live mode: no decision by itself');
});

t.test("a member's account reads the sessions; the list filters by mode and createdAt", async (t) => {
  const h = await serve(t);
  const at = (iso: string) => (h.clock.now = Date.parse(iso));
  at('2025-06-01T08:00:00.000Z');
  const live1 = (await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1 } })).body.session;
  at('2025-06-01T23:59:59.999Z');
  const sandbox1 = (await h.req('POST', '/v1/verifications', { key: 'sk_sandbox_a', body: { level: 1 } })).body.session;
  at('2025-06-02T00:00:00.000Z');
  const live2 = (await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 2 } })).body.session;
  at('2025-06-03T12:00:00.000Z');
  const sandbox2 = (await h.req('POST', '/v1/verifications', { key: 'sk_sandbox_a', body: { level: 1 } })).body.session;
  await h.req('POST', '/v1/verifications', { key: 'sk_live_b', body: { level: 1 } });

  const ids = async (query: string, as: { key?: string; jwt?: string } = { jwt: 'jwt_developer_a' }) => {
    const r = await h.req('GET', `/v1/verifications${query}`, as);
    t.equal(r.status, 200, query);
    return r.body.sessions.map((s: { id: string }) => s.id);
  };
  t.same(await ids(''), [sandbox2.id, live2.id, sandbox1.id, live1.id], 'any member, newest first, its organization only');
  t.same(await ids('', { key: 'sk_live_a' }), [sandbox2.id, live2.id, sandbox1.id, live1.id], 'the API key as before');
  t.same(await ids('', { jwt: 'jwt_reviewer_b' }), [(await h.req('GET', '/v1/verifications', { key: 'sk_live_b' })).body.sessions[0].id]);
  t.same(await ids('?mode=live'), [live2.id, live1.id]);
  t.same(await ids('?mode=sandbox'), [sandbox2.id, sandbox1.id]);
  t.same(await ids('?from=2025-06-02'), [sandbox2.id, live2.id], 'a date is from its start');
  t.same(await ids('?to=2025-06-01'), [sandbox1.id, live1.id], 'a date is to its end, inclusive');
  t.same(await ids('?from=2025-06-01T08:00:00Z&to=2025-06-02T00:00:00Z'), [live2.id, sandbox1.id, live1.id], 'date-times are inclusive');
  t.same(await ids('?from=2025-06-01T10:00:00%2B02:00&to=2025-06-01T09:00:00Z&mode=live'), [live1.id], 'with a zone offset');
  t.same(await ids('?from=2025-06-02&mode=live&status=pending'), [live2.id]);
  const page = await h.req('GET', '/v1/verifications?mode=sandbox&limit=1&offset=1', { jwt: 'jwt_owner_a' });
  t.same(page.body, { sessions: [{ id: sandbox1.id, status: 'pending', level: 1, sandbox: true, subjectDid: null, credentialId: null, createdAt: sandbox1.createdAt, completedAt: null, metadata: {} }], total: 2 });

  const bad = async (query: string, field: string, code?: string) => t.match(await h.req('GET', `/v1/verifications?${query}`, { jwt: 'jwt_owner_a' }), { status: 400, body: { field, ...(code ? { code } : {}) } }, query);
  await bad('mode=test', 'mode');
  await bad('from=yesterday', 'from', 'DATE_INVALID');
  await bad('to=2025-02-30', 'to', 'DATE_INVALID');
  await bad('from=2025-06-01T12:00:00', 'from', 'DATE_INVALID');
  await bad('from=2025-06-03&to=2025-06-01', 'from', 'DATE_RANGE_INVALID');
  await bad('from=2025-06-01&from=2025-06-02', 'from');
  await bad('since=2025-06-01', 'since');

  const read = await h.req('GET', `/v1/verifications/${live1.id}`, { jwt: 'jwt_reviewer_a' });
  t.match(read, { status: 200, body: { session: { id: live1.id, sandbox: false } } });
  t.match(await h.req('GET', `/v1/verifications/${live1.id}`, { jwt: 'jwt_reviewer_b' }), { status: 404 }, "another organization's session");
  t.match(await h.req('GET', '/v1/verifications', { operator: true }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } }, 'the operator reads through the review desk');
  t.equal((await h.req('GET', '/v1/verifications')).status, 401);
  t.equal((await h.req('POST', '/v1/verifications', { jwt: 'jwt_owner_a', body: { level: 1 } })).status, 401, 'creating still takes an API key');
});
