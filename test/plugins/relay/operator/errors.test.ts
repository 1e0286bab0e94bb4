import t from 'tap';
import { ERRORS_BASE, TENANT_A, harness, isProblem } from './harness.js';

t.test('Problem Details: unknown routes, wrong methods, bad JSON, oversize bodies', async (t) => {
  const h = await harness(t, { operator: { maxBodyBytes: 1024 } });
  const token = await h.session(TENANT_A);

  for (const path of ['/v1/nothing', '/v1', '/v1/mediations/x/y/z', '/v1/operators']) {
    const res = await h.req('GET', path, { token });
    isProblem(t, res, 404, 'not-found', path);
    t.equal(res.body.instance, path, 'instance is the request path');
  }
  isProblem(t, await h.req('POST', '/v1/operators', { body: { email: 'x' } }), 404, 'not-found', 'no self-service registration');

  const wrong = await h.req('DELETE', '/v1/mediations', { token });
  isProblem(t, wrong, 405, 'method-not-allowed');
  t.equal(wrong.headers.get('allow'), 'GET, HEAD, OPTIONS');
  const options = await h.req('OPTIONS', '/v1/webhooks');
  t.equal(options.status, 204);
  t.equal(options.headers.get('allow'), 'GET, PUT, HEAD, OPTIONS');
  const head = await h.req('HEAD', '/v1/mediations', { token });
  t.equal(head.status, 200, 'HEAD served by GET');

  const badJson = await h.req('POST', '/v1/policies', { token, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
  isProblem(t, badJson, 400, 'validation', 'malformed JSON');
  t.match(badJson.body.detail, /not valid JSON/);
  t.equal(badJson.body.type, `${ERRORS_BASE}/validation`);
  isProblem(t, await h.req('POST', '/v1/policies', { token, raw: '[1,2]' }), 400, 'validation', 'array body');
  isProblem(t, await h.req('POST', '/v1/policies', { token, raw: '' }), 400, 'validation', 'empty body');
  isProblem(t, await h.req('POST', '/v1/policies', { token, raw: '{"name":"a","name":"b","credentialType":"KYCCredential"}' }), 400, 'validation', 'duplicate keys');
  isProblem(t, await h.req('PUT', '/v1/policies/rate-limit', { token, raw: '{"rateLimitPerDidPerMin": 123456789012345678901234567890}' }), 400, 'validation', 'a huge integer');

  const big = await h.req('POST', '/v1/policies', { token, body: { name: 'x'.repeat(2000), credentialType: 'KYCCredential' } });
  isProblem(t, big, 413, 'payload-too-large', 'over the operator body cap');
  t.match(big.body.detail, /exceeds 1024 bytes/);
  // a read key is refused before its (oversize) body is read
  const read = (await h.apiKey(TENANT_A, 'read')).key;
  isProblem(t, await h.req('POST', '/v1/policies', { token: read, body: { name: 'x'.repeat(2000) } }), 403, 'forbidden', 'scope before body');

  const longName = await h.req('POST', '/v1/policies', { token, body: { name: 'x'.repeat(101), credentialType: 'KYCCredential' } });
  isProblem(t, longName, 400, 'validation');
  t.equal(longName.body.detail, 'name is at most 100 characters (got 101)');
});

t.test('a route reads its body with the operator cap, not the server default', async (t) => {
  const h = await harness(t, { maxBodyBytes: 512, operator: { maxBodyBytes: 64 * 1024 } });
  const token = await h.session(TENANT_A);
  const res = await h.req('PUT', '/v1/notifications', { token, body: { channels: { email: { enabled: true, target: `${'a'.repeat(600)}@example.org` } } } });
  // the route's own cap (64 KiB) is used, so a 600-byte body is read and validated
  isProblem(t, res, 400, 'validation', 'read with the route cap, then validated');
  t.equal(res.body.field, 'channels.email.target');
});
