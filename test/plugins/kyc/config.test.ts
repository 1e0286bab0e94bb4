import t from 'tap';
import { isLedgerError } from '../../../node/errors.js';
import { parseKycConfig } from '../../../plugins/kyc/config.js';

const base = { enabled: true, host: '127.0.0.1', port: 0 };

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isLedgerError(err) && err.code === 'CONFIG_INVALID') return err.message;
    throw err;
  }
  throw new Error('the config was accepted');
}

t.test('defaults', async (t) => {
  const c = parseKycConfig(base);
  t.match(c, {
    publicUrl: undefined,
    errorsBase: 'https://ledger.dev/problems/kyc',
    sessionTtlSeconds: 86_400,
    reviewTtlSeconds: 604_800,
    jwtTtl: '12h',
    email: { smtpUrl: undefined, from: 'Ledger KYC <no-reply@localhost>' },
    providers: {},
    webhooks: { retryOffsetsSeconds: [0, 10, 20, 40, 80, 160], timeoutMs: 10_000, allowHttpHosts: [] },
    verificationProvider: undefined,
    operatorToken: undefined,
    issuer: { name: 'Ledger KYC', credentialValidityDays: 365, jurisdiction: 'XX' },
    oid4vci: { offerTtlSeconds: 2_592_000, txCode: false },
  });
});

t.test('options are read, trailing slashes dropped', async (t) => {
  const c = parseKycConfig({
    ...base,
    publicUrl: 'https://verify.example/',
    email: { smtpUrl: 'smtp://127.0.0.1:2525', from: 'KYC <k@example.org>' },
    providers: { google: { issuer: 'https://accounts.example', clientId: 'c', clientSecret: 's' } },
    webhooks: { retryOffsetsSeconds: [0, 0.5, 1] },
    oid4vci: { txCode: 'true' },
    sessionTtlSeconds: '600',
  });
  t.equal(c.publicUrl, 'https://verify.example');
  t.equal(c.email.smtpUrl, 'smtp://127.0.0.1:2525');
  t.same(c.providers.google, { issuer: 'https://accounts.example', clientId: 'c', clientSecret: 's', scope: 'openid email profile' });
  t.same(c.webhooks.retryOffsetsSeconds, [0, 0.5, 1]);
  t.equal(c.oid4vci.txCode, true);
  t.equal(c.sessionTtlSeconds, 600);
});

t.test('bad options are refused, naming the option', async (t) => {
  t.match(refusal(() => parseKycConfig({ ...base, sessionTtl: 5 })), /unknown option plugins\.kyc\.sessionTtl/);
  t.match(refusal(() => parseKycConfig({ ...base, email: { smtp: 'x' } })), /unknown option plugins\.kyc\.email\.smtp; allowed: smtpUrl, from/);
  t.match(refusal(() => parseKycConfig({ ...base, email: { smtpUrl: 'http://mail' } })), /plugins\.kyc\.email\.smtpUrl must be smtp or smtps/);
  t.match(refusal(() => parseKycConfig({ ...base, publicUrl: 'ftp://x' })), /plugins\.kyc\.publicUrl must be http or https/);
  t.match(refusal(() => parseKycConfig({ ...base, sessionTtlSeconds: 1 })), /sessionTtlSeconds must be an integer from 5/);
  t.match(refusal(() => parseKycConfig({ ...base, oid4vci: { txCode: 'yes' } })), /oid4vci\.txCode must be true or false/);
  t.match(refusal(() => parseKycConfig({ ...base, operatorToken: 'short' })), /operatorToken must be at least 24 characters/);
  t.match(refusal(() => parseKycConfig({ ...base, webhooks: { retryOffsetsSeconds: [5, 10] } })), /retryOffsetsSeconds must be 1 to 50 non-decreasing/);
  t.match(refusal(() => parseKycConfig({ ...base, providers: { login: { issuer: 'https://x', clientId: 'c' } } })), /not an account route/);
  t.match(refusal(() => parseKycConfig({ ...base, providers: { g: { issuer: 'https://x' } } })), /providers\.g\.clientId must be a non-empty string/);
});

t.test('explorerUrl: unset by default, read as a URL without its trailing slash, refused when not a URL', async (t) => {
  t.equal(parseKycConfig(base).explorerUrl, undefined);
  t.equal(parseKycConfig({ ...base, explorerUrl: 'https://explorer.example/' }).explorerUrl, 'https://explorer.example');
  t.match(refusal(() => parseKycConfig({ ...base, explorerUrl: 'not a url' })), /plugins\.kyc\.explorerUrl/);
});

t.test('evidenceRetentionDays: 30 by default, null keeps the images, 0 and negatives refused naming the option', async (t) => {
  t.equal(parseKycConfig(base).evidenceRetentionDays, 30);
  t.equal(parseKycConfig({ ...base, evidenceRetentionDays: 7 }).evidenceRetentionDays, 7);
  t.equal(parseKycConfig({ ...base, evidenceRetentionDays: '90' }).evidenceRetentionDays, 90);
  t.equal(parseKycConfig({ ...base, evidenceRetentionDays: null }).evidenceRetentionDays, null);
  for (const bad of [0, -1, 1.5, 'soon', true, 36_501]) {
    t.match(refusal(() => parseKycConfig({ ...base, evidenceRetentionDays: bad })), /^plugins\.kyc\.evidenceRetentionDays must be a whole number of days from 1 to 36500, or null/, `${JSON.stringify(bad)} is refused`);
  }
});
