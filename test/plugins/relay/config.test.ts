import t from 'tap';
import { isLedgerError } from '../../../node/errors.js';
import { parseRelayConfig } from '../../../plugins/relay/config.js';
import { parseSettingsPatch } from '../../../plugins/relay/core/settings.js';

const base = { enabled: true, host: '127.0.0.1', port: 8082 };
const refusal = (fn: () => unknown) => {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    return isLedgerError(err) ? err.message : String(err);
  }
};

t.test('defaults, and refusals that name the option', async (t) => {
  const c = parseRelayConfig(base);
  t.match(c, { publicUrl: undefined, maxEnvelopeBytes: 262144, cryptoQueue: 256, oidc: undefined, defaults: { rateLimitPerDidPerMin: 1200, retentionSeconds: 604800, purgeOnAck: true, manualApproval: false } });
  t.ok(c.cryptoThreads >= 1);
  t.same(parseRelayConfig({ ...base, oidc: { issuer: 'https://id.example.com/', audience: 'relay' } }).oidc, { issuer: 'https://id.example.com', audience: 'relay' });
  t.equal(parseRelayConfig({ ...base, maxEnvelopeBytes: '2048', purgeOnAck: 'false' }).maxEnvelopeBytes, 2048, 'environment values arrive as strings');
  t.match(refusal(() => parseRelayConfig({ ...base, maxEnvlopeBytes: 1 })), /unknown option plugins\.relay\.maxEnvlopeBytes/);
  t.match(refusal(() => parseRelayConfig({ ...base, maxEnvelopeBytes: 10 })), /maxEnvelopeBytes must be an integer from 1024/);
  t.match(refusal(() => parseRelayConfig({ ...base, publicUrl: 'ftp://x' })), /publicUrl must be http/);
  t.match(refusal(() => parseRelayConfig({ ...base, oidc: { issuer: 'https://x' } })), /oidc must be \{issuer, audience\}/);
  t.match(refusal(() => parseRelayConfig({ ...base, purgeOnAck: 'yes' })), /purgeOnAck must be true or false/);
});

t.test('backends: Postgres alone, or Postgres with Redis; Redis alone is refused', async (t) => {
  t.match(parseRelayConfig(base), { postgresUrl: undefined, redisUrl: undefined }, 'the embedded default');
  const pg = 'postgres://relay:pw@db:5432/relay';
  t.match(parseRelayConfig({ ...base, postgresUrl: pg }), { postgresUrl: pg, redisUrl: undefined });
  t.match(parseRelayConfig({ ...base, postgresUrl: pg, redisUrl: 'redis://cache:6379' }), { redisUrl: 'redis://cache:6379' });
  t.match(refusal(() => parseRelayConfig({ ...base, redisUrl: 'redis://cache:6379' })), /redisUrl needs plugins\.relay\.postgresUrl/);
  t.match(refusal(() => parseRelayConfig({ ...base, postgresUrl: 'mysql://db/x' })), /postgresUrl must be postgres or postgresql/);
  t.match(refusal(() => parseRelayConfig({ ...base, postgresUrl: pg, redisUrl: 'http://cache' })), /redisUrl must be redis or rediss/);
});

t.test('tenant settings patches', async (t) => {
  const all = ['rateLimitPerDidPerMin', 'retentionSeconds', 'purgeOnAck', 'manualApproval', 'endpoint'] as const;
  t.same(parseSettingsPatch({ rateLimitPerDidPerMin: 60, purgeOnAck: false }, all), { rateLimitPerDidPerMin: 60, purgeOnAck: false });
  t.same(parseSettingsPatch({ endpoint: null }, all), { endpoint: null });
  t.match(refusal(() => parseSettingsPatch({ retentionSeconds: 5 }, all)), /retentionSeconds must be an integer from 60/);
  t.match(refusal(() => parseSettingsPatch({ rateLimit: 5 }, all)), /unknown field rateLimit/);
  t.match(refusal(() => parseSettingsPatch({}, all)), /changes nothing/);
  t.match(refusal(() => parseSettingsPatch({ endpoint: 'javascript:x' }, all)), /endpoint must be an http\(s\) URL/);
  t.match(refusal(() => parseSettingsPatch({ purgeOnAck: false }, ['retentionSeconds'])), /unknown field purgeOnAck; allowed: retentionSeconds/);
});

t.test('email: the notification mail, like plugins.kyc.email', async (t) => {
  t.same(parseRelayConfig(base).email, { smtpUrl: undefined, from: 'Ledger relay <no-reply@localhost>' }, 'no SMTP: the mail outbox');
  t.same(parseRelayConfig({ ...base, email: { smtpUrl: 'smtps://u:p@mail.example:465', from: 'Relay <r@example.org>' } }).email, { smtpUrl: 'smtps://u:p@mail.example:465', from: 'Relay <r@example.org>' });
  t.match(refusal(() => parseRelayConfig({ ...base, email: { smtpUrl: 'http://mail.example' } })), /email\.smtpUrl must be smtp or smtps/);
  t.match(refusal(() => parseRelayConfig({ ...base, email: { host: 'mail.example' } })), /email/);
  t.match(refusal(() => parseRelayConfig({ ...base, email: 'smtp://mail.example' })), /email must be an object/);
});
