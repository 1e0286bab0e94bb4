import t from 'tap';
import { LedgerError } from '../../../../node/errors.js';
import { validateWebhookUrl } from '../../../../plugins/common/webhooks/index.js';

t.test('https anywhere, plain http only to loopback', async (t) => {
  const ok: Array<[string, string]> = [
    ['https://example.com/hook', 'https://example.com/hook'],
    ['https://example.com:8443/a?b=c', 'https://example.com:8443/a?b=c'],
    ['HTTPS://Example.COM', 'https://example.com/'],
    ['http://localhost:3000/x', 'http://localhost:3000/x'],
    ['http://LOCALHOST/', 'http://localhost/'],
    ['http://127.0.0.1/', 'http://127.0.0.1/'],
    ['http://127.5.6.7:9/', 'http://127.5.6.7:9/'],
    ['http://127.1/', 'http://127.0.0.1/'],
    ['http://[::1]:8080/', 'http://[::1]:8080/'],
    ['http://[0:0::1]/', 'http://[::1]/'],
  ];
  for (const [url, normal] of ok) t.equal(validateWebhookUrl(url), normal, url);
  t.equal(validateWebhookUrl('http://devbox:8080/h', { allowHttpHosts: ['DevBox'] }), 'http://devbox:8080/h', 'an allowed development host');
});

t.test('everything else is WEBHOOK_URL_INVALID with a reason', async (t) => {
  const bad: Array<[unknown, string]> = [
    ['http://example.com/hook', 'not_https'],
    ['http://128.0.0.1/', 'not_https'],
    ['http://10.0.0.1/', 'not_https'],
    ['http://localhost.evil.example/', 'not_https'],
    ['http://127.0.0.1.nip.io/', 'not_https'],
    ['http://[::2]/', 'not_https'],
    ['http://[::ffff:127.0.0.1]/', 'not_https'],
    ['http://devbox/', 'not_https'],
    ['ftp://example.com/', 'scheme'],
    ['ws://localhost/', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['not a url', 'whitespace'],
    ['/relative/path', 'malformed'],
    ['example.com/hook', 'malformed'],
    ['https://', 'malformed'],
    ['https://user:pw@example.com/', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    ['http://user:pw@localhost/', 'credentials'],
    [`https://example.com/${'a'.repeat(2048)}`, 'too_long'],
    ['', 'missing'],
    [42, 'missing'],
    [undefined, 'missing'],
    [' https://example.com/', 'whitespace'],
    ['https://example.com/\n', 'whitespace'],
    ['https://exa\tmple.com/', 'whitespace'],
  ];
  for (const [url, reason] of bad) {
    t.throws(
      () => validateWebhookUrl(url),
      { name: 'LedgerError', code: 'WEBHOOK_URL_INVALID', kind: 'invalid', data: { reason } },
      `${JSON.stringify(url)?.slice(0, 50)}: ${reason}`,
    );
  }
});

t.test('the length limit is 2048 characters', async (t) => {
  const base = 'https://example.com/';
  const at = base + 'a'.repeat(2048 - base.length);
  t.equal(validateWebhookUrl(at), at);
  t.throws(() => validateWebhookUrl(`${at}a`), /at most 2048/);
});

t.test('the error does not repeat the URL (its query may hold a token)', async (t) => {
  try {
    validateWebhookUrl('http://example.com/hook?token=s3cr3t');
    t.fail('should throw');
  } catch (e) {
    t.type(e, LedgerError);
    t.notMatch(String((e as Error).message), /s3cr3t/);
    t.notMatch(JSON.stringify((e as { data: unknown }).data), /s3cr3t/);
  }
});
