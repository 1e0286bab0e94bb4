import t from 'tap';
import { isLedgerError } from '../../../node/errors.js';
import { DEFAULT_FUND_AMOUNT, parseWalletConfig } from '../../../plugins/wallet/config.js';

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

t.test('defaults: everything optional is off, and says so', async (t) => {
  t.same(parseWalletConfig(base), {
    publicUrl: undefined,
    errorsBase: 'https://ledger.dev/problems/wallet',
    internalSecret: undefined,
    session: { ttl: '15m', maxAgeHours: 720, trustProxy: false },
    kycUrl: 'http://127.0.0.1:8083',
    chains: { eth: undefined, btc: undefined },
    prices: { url: undefined, cacheSeconds: 60, coinIds: { lgr: 'ledger-lgr', eth: 'ethereum', btc: 'bitcoin' } },
    email: { smtpUrl: undefined, from: 'Ledger Wallet <no-reply@localhost>' },
    sponsor: { fundAmount: DEFAULT_FUND_AMOUNT, perHour: 60 },
    inviteTtlSeconds: 604_800,
    recoveryTtlSeconds: 604_800,
    recovery: { powBits: 18, maxPendingKeys: 3, perAddressPerHour: 10, perKeyPerHour: 5 },
  });
});

t.test('options are read and normalized', async (t) => {
  const c = parseWalletConfig({
    ...base,
    publicUrl: 'https://wallet.example.org/',
    internalSecret: 'x'.repeat(24),
    session: { ttl: '30m', trustProxy: 'true' },
    chains: { eth: 'http://127.0.0.1:8545', btc: 'https://blockstream.info/api' },
    prices: { url: 'https://api.coingecko.com/api/v3', coinIds: { lgr: 'my-lgr' } },
    sponsor: { fundAmount: '123456789012345678901', perHour: 0 },
  });
  t.equal(c.publicUrl, 'https://wallet.example.org');
  t.same(c.session, { ttl: '30m', maxAgeHours: 720, trustProxy: true });
  t.same(c.chains, { eth: 'http://127.0.0.1:8545', btc: 'https://blockstream.info/api' });
  t.same(c.prices.coinIds, { lgr: 'my-lgr', eth: 'ethereum', btc: 'bitcoin' });
  t.equal(c.sponsor.fundAmount, 123456789012345678901n, 'amounts above 2^53 stay exact');
  t.equal(c.sponsor.perHour, 0, 'sponsoring can be turned off');
});

t.test('bad options fail at start with the option named', async (t) => {
  t.match(refusal(() => parseWalletConfig({ ...base, sponser: {} })), /unknown option plugins\.wallet\.sponser/);
  t.match(refusal(() => parseWalletConfig({ ...base, internalSecret: 'short' })), /plugins\.wallet\.internalSecret must be at least 24 characters/);
  t.match(refusal(() => parseWalletConfig({ ...base, kycUrl: 'ftp://x' })), /plugins\.wallet\.kycUrl must be http or https/);
  t.match(refusal(() => parseWalletConfig({ ...base, chains: { sol: 'http://x' } })), /unknown option plugins\.wallet\.chains\.sol/);
  t.match(refusal(() => parseWalletConfig({ ...base, sponsor: { fundAmount: 1.5 } })), /plugins\.wallet\.sponsor\.fundAmount must be a whole number/);
  t.match(refusal(() => parseWalletConfig({ ...base, sponsor: { perHour: -1 } })), /plugins\.wallet\.sponsor\.perHour must be an integer/);
  t.match(refusal(() => parseWalletConfig({ ...base, email: { smtpUrl: 'http://mail' } })), /plugins\.wallet\.email\.smtpUrl must be smtp or smtps/);
  t.match(refusal(() => parseWalletConfig({ ...base, prices: { coinIds: { doge: 'dogecoin' } } })), /unknown option plugins\.wallet\.prices\.coinIds\.doge/);
  t.match(refusal(() => parseWalletConfig({ ...base, recovery: { powBits: 33 } })), /plugins\.wallet\.recovery\.powBits must be an integer from 0 to 32/);
  t.match(refusal(() => parseWalletConfig({ ...base, recovery: { maxPendingKeys: 0 } })), /plugins\.wallet\.recovery\.maxPendingKeys must be an integer from 1 to 20/);
});
