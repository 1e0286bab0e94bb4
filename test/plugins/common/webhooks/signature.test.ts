import t from 'tap';
import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hmacSha256Hex, newWebhookSecret, signWebhook, verifyWebhookSignature } from '../../../../plugins/common/webhooks/index.js';
import { loadVectors } from '../../../fixtures/vectors.js';

interface HmacVectors {
  source: string;
  cases: Array<{ testCase: number; key: string; data: string; 'HMAC-SHA-256': string }>;
}

const secret = 'whsec_test-secret';
const body = '{"id":"evt_1","type":"did.created","createdAt":"2025-01-01T00:00:00.000Z","data":{"n":1}}';

t.test('the HMAC core reproduces the RFC 4231 HMAC-SHA-256 cases', async (t) => {
  const v = loadVectors<HmacVectors>('hmac-webhook.json');
  t.match(v.source, /RFC 4231/);
  t.ok(v.cases.length >= 2);
  for (const c of v.cases) {
    t.equal(hmacSha256Hex(Buffer.from(c.key, 'hex'), Buffer.from(c.data, 'hex')), c['HMAC-SHA-256'], `test case ${c.testCase}`);
  }
  // String arguments are UTF-8: case 2 is ASCII key 'Jefe'.
  t.equal(hmacSha256Hex('Jefe', 'what do ya want for nothing?'), v.cases[1]!['HMAC-SHA-256']);
});

t.test('the header is t=<seconds>,v1=<hex of HMAC(secret, "t=<seconds>" LF body)>', async (t) => {
  const header = signWebhook(secret, body, 1_700_000_000);
  t.match(header, /^t=1700000000,v1=[0-9a-f]{64}$/);
  // Computed here from the spec's words, not with the module's helper.
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`t=1700000000\n${body}`, 'utf8').digest('hex');
  t.equal(header, `t=1700000000,v1=${expected}`);
  t.equal(signWebhook(secret, Buffer.from(body), 1_700_000_000), header, 'bytes and the same text sign alike');
  t.not(signWebhook(secret, body, 1_700_000_001), header, 't is signed');
  t.not(signWebhook(secret, `${body} `, 1_700_000_000), header, 'the body is signed');
});

t.test('sign then verify; the tolerance applies both ways', async (t) => {
  const header = signWebhook(secret, body, 1000);
  t.equal(verifyWebhookSignature(header, body, secret, { nowSeconds: 1000 }), true);
  t.equal(verifyWebhookSignature(header, new TextEncoder().encode(body), secret, { nowSeconds: 1000 }), true, 'raw bytes');
  t.equal(verifyWebhookSignature(header, body, secret, { nowSeconds: 1300 }), true, 'exactly 5 minutes old');
  t.equal(verifyWebhookSignature(header, body, secret, { nowSeconds: 1301 }), false, 'older than 5 minutes');
  t.equal(verifyWebhookSignature(header, body, secret, { nowSeconds: 700 }), true, '5 minutes ahead');
  t.equal(verifyWebhookSignature(header, body, secret, { nowSeconds: 699 }), false, 'further in the future');
  t.equal(verifyWebhookSignature(header, body, secret, { nowSeconds: 1011, toleranceSeconds: 10 }), false, 'a tighter tolerance');
  t.equal(verifyWebhookSignature(header, body, secret, { nowSeconds: 1010, toleranceSeconds: 10 }), true);
  const now = Math.floor(Date.now() / 1000);
  t.equal(verifyWebhookSignature(signWebhook(secret, body, now), body, secret), true, 'default clock');
  t.equal(verifyWebhookSignature(signWebhook(secret, body, now - 400), body, secret), false, 'default clock and tolerance');
});

t.test('a tampered body, a wrong secret and a replaced timestamp fail', async (t) => {
  const header = signWebhook(secret, body, 1000);
  const opts = { nowSeconds: 1000 };
  t.equal(verifyWebhookSignature(header, body.replace('"n":1', '"n":2'), secret, opts), false, 'tampered body');
  t.equal(verifyWebhookSignature(header, `${body}\n`, secret, opts), false, 'a trailing newline');
  t.equal(verifyWebhookSignature(header, body, 'whsec_other', opts), false, 'wrong secret');
  t.equal(verifyWebhookSignature(header.replace('t=1000', 't=1001'), body, secret, { nowSeconds: 1001 }), false, 'a fresh t on an old signature');
  const v1 = header.split('v1=')[1]!;
  const flipped = v1.slice(0, -1) + (v1.endsWith('0') ? '1' : '0');
  t.equal(verifyWebhookSignature(`t=1000,v1=${flipped}`, body, secret, opts), false, 'one hex digit changed');
});

t.test('several v1 entries (secret rotation): one match is enough', async (t) => {
  const good = signWebhook(secret, body, 1000).split('v1=')[1]!;
  const other = signWebhook('whsec_old', body, 1000).split('v1=')[1]!;
  t.equal(verifyWebhookSignature(`t=1000,v1=${other},v1=${good}`, body, secret, { nowSeconds: 1000 }), true);
  t.equal(verifyWebhookSignature(`t=1000, v1=${good.toUpperCase()}`, body, secret, { nowSeconds: 1000 }), true, 'spaces and upper-case hex');
  t.equal(verifyWebhookSignature(`t=1000,v1=${other}`, body, secret, { nowSeconds: 1000 }), false);
});

t.test('malformed headers are false, never an exception', async (t) => {
  const good = signWebhook(secret, body, 1000);
  const v1 = good.split('v1=')[1]!;
  const cases: unknown[] = [
    undefined,
    null,
    42,
    ['t=1000', `v1=${v1}`],
    '',
    'garbage',
    `v1=${v1}`,
    't=1000',
    't=1000,v1=',
    `t=,v1=${v1}`,
    `t=abc,v1=${v1}`,
    `t=-1000,v1=${v1}`,
    `t=1000.0,v1=${v1}`,
    `t=1e3,v1=${v1}`,
    `t=1000,t=1000,v1=${v1}`,
    `t=1000,v1=${v1.slice(1)}`,
    `t=1000,v1=${v1}00`,
    `t=1000,v1=${'z'.repeat(64)}`,
    `t=1000;v1=${v1}`,
    `t=1000,${v1}`,
    `t=1000,v0=${v1}`,
    `t=99999999999999999999,v1=${v1}`,
    `${good},${'x'.repeat(2000)}`,
  ];
  for (const h of cases) {
    let result: boolean | undefined;
    t.doesNotThrow(() => (result = verifyWebhookSignature(h, body, secret, { nowSeconds: 1000 })), String(h).slice(0, 40));
    t.equal(result, false, `${JSON.stringify(h)?.slice(0, 60)} is false`);
  }
  t.equal(verifyWebhookSignature(good, body, '', { nowSeconds: 1000 }), false, 'an empty secret');
  t.equal(verifyWebhookSignature(good, 42 as unknown as string, secret, { nowSeconds: 1000 }), false, 'a body that is not text or bytes');
  t.equal(verifyWebhookSignature(good, body, secret, { nowSeconds: Number.NaN }), false, 'a broken clock');
  t.equal(verifyWebhookSignature(good, body, secret, { nowSeconds: 1000 }), true, 'the unmodified header still verifies');
});

t.test('newWebhookSecret: whsec_ and 32 random bytes in base64url', async (t) => {
  const a = newWebhookSecret();
  const b = newWebhookSecret();
  t.match(a, /^whsec_[A-Za-z0-9_-]{43}$/);
  t.equal(Buffer.from(a.slice(6), 'base64url').length, 32);
  t.not(a, b);
  t.equal(verifyWebhookSignature(signWebhook(a, body, 5), body, a, { nowSeconds: 5 }), true);
});

t.test('signWebhook rejects a bad timestamp or secret with a typed error', async (t) => {
  for (const ts of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e13]) {
    t.throws(() => signWebhook(secret, body, ts), { name: 'LedgerError', code: 'WEBHOOK_TIMESTAMP_INVALID', kind: 'invalid' }, String(ts));
  }
  t.throws(() => signWebhook('', body, 1), { name: 'LedgerError', code: 'WEBHOOK_SECRET_INVALID' });
});

t.test('docs/webhooks.md: the worked example is signed right, and the receiver snippet agrees with the module', async (t) => {
  const doc = await readFile(new URL('../../../../docs/webhooks.md', import.meta.url), 'utf8');
  const request = /```\nPOST [^\n]*\n([\s\S]*?)\n\n(\{[^\n]*\})\n```/.exec(doc);
  t.ok(request, 'the example request');
  const header = /^Ledger-Signature: (.*)$/m.exec(request![1]!)![1]!;
  const exampleBody = request![2]!;
  const exampleSecret = /signed with the secret\s+`(whsec_[^`]+)`/.exec(doc)![1]!;
  const ts = Number(/^t=(\d+),/.exec(header)![1]);
  t.equal(signWebhook(exampleSecret, exampleBody, ts), header, 'the documented header is what the node sends');
  t.equal(/^Ledger-Event-Id: (.*)$/m.exec(request![1]!)![1], JSON.parse(exampleBody).id);

  const snippet = /```js\n([\s\S]*?)```/.exec(doc)![1]!;
  const dir = await mkdtemp(join(tmpdir(), 'ledger-webhooks-doc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'verify.mjs'), snippet);
  const { verifyLedgerSignature } = (await import(pathToFileURL(join(dir, 'verify.mjs')).href)) as {
    verifyLedgerSignature: (h: unknown, b: Buffer, s: string, tol?: number) => boolean;
  };
  const now = Math.floor(Date.now() / 1000);
  const raw = Buffer.from(body);
  t.equal(verifyLedgerSignature(signWebhook(secret, body, now), raw, secret), true, 'accepts what the node signs');
  t.equal(verifyLedgerSignature(signWebhook(secret, body, now), Buffer.from(`${body} `), secret), false, 'a changed body');
  t.equal(verifyLedgerSignature(signWebhook('whsec_other', body, now), raw, secret), false, 'another secret');
  t.equal(verifyLedgerSignature(signWebhook(secret, body, now - 301), raw, secret), false, 'too old');
  t.equal(verifyLedgerSignature(signWebhook(secret, body, now + 301), raw, secret), false, 'too far ahead');
  t.equal(verifyLedgerSignature('garbage', raw, secret), false);
  t.equal(verifyLedgerSignature(header, Buffer.from(exampleBody), exampleSecret, Number.MAX_SAFE_INTEGER), true, 'the worked example, clock check skipped');
});
