import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { checkTotp, isTotpSecret, newTotp, TOTP_PERIOD } from '../../../../plugins/kyc/accounts/totp.js';

t.test('setup: a base32 secret, its otpauth URI and a PNG QR code', async (t) => {
  const s = await newTotp('Ledger KYC', 'ada@example.org');
  t.ok(isTotpSecret(s.secret));
  t.match(s.uri, /^otpauth:\/\/totp\/Ledger%20KYC:ada%40example\.org\?/);
  t.match(s.uri, `secret=${s.secret}`);
  t.match(s.qrCode, /^data:image\/png;base64,iVBORw0KGgo/);
  t.not((await newTotp('x', 'y')).secret, s.secret, 'a new secret each time');
});

t.test('a code: within one step of now, once', async (t) => {
  const { secret } = await newTotp('i', 'l');
  const at = 1_900_000_000_000;
  const gen = (ms: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: ms });
  const now = checkTotp(secret, gen(at), at, undefined);
  t.ok(now.ok);
  const step = (now as { step: number }).step;
  t.equal(step, Math.floor(at / 1000 / TOTP_PERIOD));
  t.same(checkTotp(secret, gen(at), at, step), { ok: false, why: 'replayed' });
  t.same(checkTotp(secret, gen(at - 30_000), at, step), { ok: false, why: 'replayed' }, 'an older code after a newer one');
  t.same(checkTotp(secret, gen(at + 30_000), at, step), { ok: true, step: step + 1 }, 'the next step (drift)');
  t.same(checkTotp(secret, gen(at - 90_000), at, undefined), { ok: false, why: 'wrong' }, 'too old');
  t.same(checkTotp(secret, 'abcdef', at, undefined), { ok: false, why: 'wrong' });
  t.same(checkTotp(secret, '1234567', at, undefined), { ok: false, why: 'wrong' });
});
