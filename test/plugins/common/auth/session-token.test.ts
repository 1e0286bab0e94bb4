import t, { type Test } from 'tap';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { LedgerError } from '../../../../node/errors.js';
import { openDatabase } from '../../../../node/state/db.js';
import { authFailure, loadOrCreateSecret, parseTtl, SessionTokens } from '../../../../plugins/common/auth/index.js';

const secret = (fill: number) => new Uint8Array(32).fill(fill);
const opts = { secret: secret(7), issuer: 'ledger-relay', audience: 'relay-operator-api', ttl: '12h' };

async function rejects(t: Test, promise: Promise<unknown>, code: string, reason: string) {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof LedgerError, `a LedgerError (${String(err)})`);
  t.equal((err as LedgerError).code, code);
  t.equal((err as LedgerError).data['reason'], reason);
  return err as LedgerError;
}

t.test('issue and verify round trip: the claims come back, HS256, expiresIn from the ttl', async (t) => {
  const tokens = new SessionTokens(opts);
  const { token, expiresIn } = await tokens.issue({ sub: 'op-1', tenantId: 'acme', email: 'ops@acme.test', role: 'admin', did: 'did:ledger:testnet:abc' });
  t.equal(expiresIn, 12 * 3600);
  t.match(decodeProtectedHeader(token), { alg: 'HS256', typ: 'JWT' });
  const raw = decodeJwt(token);
  t.equal(raw.exp! - raw.iat!, expiresIn);
  t.match(raw, { iss: 'ledger-relay', aud: 'relay-operator-api', sub: 'op-1', tid: 'acme' });
  const claims = await tokens.verify(token);
  t.match(claims, { sub: 'op-1', tenantId: 'acme', email: 'ops@acme.test', role: 'admin', did: 'did:ledger:testnet:abc', iat: raw.iat, exp: raw.exp });
  t.match(claims.jti, /^[A-Za-z0-9_-]{22}$/);
  const minimal = await tokens.verify((await tokens.issue({ sub: 'op-2', tenantId: 'beta' })).token);
  t.notOk('email' in minimal || 'role' in minimal || 'did' in minimal, 'absent claims stay absent');
  t.not((await tokens.issue({ sub: 'op-1', tenantId: 'acme' })).token, token, 'each token has its own jti');
});

t.test('expiry: a token past exp is SESSION_EXPIRED, not SESSION_INVALID', async (t) => {
  const tokens = new SessionTokens({ ...opts, ttl: '1s' });
  const { token } = await tokens.issue({ sub: 'op-1', tenantId: 'acme' });
  await new Promise((r) => setTimeout(r, decodeJwt(token).exp! * 1000 - Date.now() + 50));
  const err = await rejects(t, tokens.verify(token), 'SESSION_EXPIRED', 'exp');
  t.same(authFailure(err), { status: 401, detail: 'the session has expired; log in again', code: 'SESSION_EXPIRED' });
});

t.test('tampering, another secret, another audience or issuer, alg none, garbage', async (t) => {
  const tokens = new SessionTokens(opts);
  const { token } = await tokens.issue({ sub: 'op-1', tenantId: 'acme', role: 'viewer' });
  const [h, p, s] = token.split('.');
  const payload = { ...decodeJwt(token), role: 'admin' };
  await rejects(t, tokens.verify(`${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`), 'SESSION_INVALID', 'signature');
  await rejects(t, tokens.verify(`${h}.${p}.${s!.startsWith('A') ? 'B' : 'A'}${s!.slice(1)}`), 'SESSION_INVALID', 'signature');
  await rejects(t, new SessionTokens({ ...opts, secret: secret(8) }).verify(token), 'SESSION_INVALID', 'signature');
  await rejects(t, new SessionTokens({ ...opts, audience: 'kyc-operator-api' }).verify(token), 'SESSION_INVALID', 'aud');
  await rejects(t, new SessionTokens({ ...opts, issuer: 'ledger-kyc' }).verify(token), 'SESSION_INVALID', 'iss');
  const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
  await rejects(t, tokens.verify(none), 'SESSION_INVALID', 'alg');
  await rejects(t, tokens.verify('garbage'), 'SESSION_INVALID', 'format');
  await rejects(t, tokens.verify(''), 'SESSION_INVALID', 'format');
  await rejects(t, tokens.verify('a'.repeat(5000)), 'SESSION_INVALID', 'size');
  // signed with our secret but without a tenant: not one of our sessions
  const now = Math.floor(Date.now() / 1000);
  const noTenant = await new SignJWT({ jti: 'j' }).setProtectedHeader({ alg: 'HS256' }).setSubject('op-1').setIssuer(opts.issuer).setAudience(opts.audience).setIssuedAt(now).setExpirationTime(now + 60).sign(opts.secret);
  await rejects(t, tokens.verify(noTenant), 'SESSION_INVALID', 'tid');
});

t.test('configuration and claims are checked', async (t) => {
  t.throws(() => new SessionTokens({ ...opts, secret: new Uint8Array(31) }), { code: 'SESSION_CONFIG_INVALID', message: /at least 32 bytes/ });
  for (const ttl of ['12', '12x', '0h', '-1h', '400d', '']) t.throws(() => new SessionTokens({ ...opts, ttl }), { code: 'SESSION_CONFIG_INVALID' }, `ttl ${JSON.stringify(ttl)}`);
  t.same([parseTtl('30s'), parseTtl('15m'), parseTtl('12h'), parseTtl('7d')], [30, 900, 43200, 604800]);
  const tokens = new SessionTokens(opts);
  await t.rejects(tokens.issue({ sub: '', tenantId: 'acme' }), { code: 'SESSION_CLAIMS_INVALID' });
  await t.rejects(tokens.issue({ sub: 'op', tenantId: '' }), { code: 'SESSION_CLAIMS_INVALID' });
  // the signer keeps its own copy of the secret
  const mine = secret(9);
  const signer = new SessionTokens({ ...opts, secret: mine });
  const { token } = await signer.issue({ sub: 'op', tenantId: 'acme' });
  mine.fill(0);
  t.equal((await signer.verify(token)).sub, 'op');
});

t.test('the secret lives in the plugin namespace: two instances on one store share it; another key or namespace does not', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = db.pluginStore('relay');
  const [a, b] = await Promise.all([loadOrCreateSecret(store), loadOrCreateSecret(store)]);
  t.equal(a.length, 32);
  t.same(b, a, 'concurrent first calls agree');
  const before = new SessionTokens({ ...opts, secret: a });
  const { token } = await before.issue({ sub: 'op-1', tenantId: 'acme' });
  // a "restart": a new signer from what the store holds
  const after = new SessionTokens({ ...opts, secret: await loadOrCreateSecret(store) });
  t.equal((await after.verify(token)).sub, 'op-1', 'tokens survive a restart');
  t.notSame(await loadOrCreateSecret(store, 'other-secret'), a, 'another key, another secret');
  t.notSame(await loadOrCreateSecret(db.pluginStore('kyc')), a, 'another plugin, another secret');
  await store.put(new TextEncoder().encode('short'), new Uint8Array(5));
  await t.rejects(loadOrCreateSecret(store, 'short'), { code: 'SESSION_SECRET_CORRUPT', kind: 'internal' });
});
