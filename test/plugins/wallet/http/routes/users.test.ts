import t from 'tap';
import { generateSeed } from '../../../../../node/client/index.js';
import { ERRORS_BASE } from '../../harness.js';
import { signedDidCreate, signChallenge, startUsers } from '../../users/setup.js';

t.test('users/me and its settings', async (t) => {
  const h = await startUsers(t);
  const me = await h.signIn({ handle: 'grace' });
  await h.signIn({ handle: 'taken' });
  const patch = (body: unknown) => h.req('PATCH', '/v1/users/me/settings', { cookie: me.cookie, body });

  const view = await h.req('GET', '/v1/users/me', { cookie: me.cookie });
  t.equal(view.status, 200);
  t.same(Object.keys(view.body).sort(), ['address', 'addresses', 'createdAt', 'did', 'didStatus', 'didStatusReason', 'didTx', 'displayName', 'email', 'handle', 'id', 'origin', 'publicKey', 'settings'].sort());
  t.match(view.body, { id: me.user.id, handle: 'grace', settings: { hideBalances: false, displayName: null }, didStatus: 'missing' }, 'a DID never submitted here and not on chain is missing');
  t.same((await h.req('GET', '/v1/users/me')).body, { error: 'Unauthorized' });
  t.equal((await h.req('GET', '/v1/users/me?x=1', { cookie: me.cookie })).status, 400);

  const set = await patch({ hideBalances: true, displayName: 'Grace H.' });
  t.equal(set.status, 200);
  t.match(set.body, { settings: { hideBalances: true, displayName: 'Grace H.' }, displayName: 'Grace H.', handle: 'grace' });
  t.match((await patch({ handle: 'Grace.H' })).body, { handle: 'grace.h', settings: { hideBalances: true } }, 'one field alone; the rest stays');
  t.match((await patch({ displayName: null })).body, { displayName: null, settings: { displayName: null } }, 'null clears the display name');
  t.match((await patch({ handle: null })).body, { handle: null });

  const bad = async (body: unknown, detail: RegExp, why: string) => {
    const r = await patch(body);
    t.equal(r.status, 400, why);
    t.match(r.body, { type: `${ERRORS_BASE}/400`, detail }, why);
  };
  await bad({}, /at least one of hideBalances, displayName, handle/, 'nothing to change');
  await bad({ theme: 'dark' }, /unknown field theme/, 'an unknown field');
  await bad({ hideBalances: 'yes' }, /hideBalances must be true or false/, 'not a boolean');
  await bad({ displayName: 'x'.repeat(65) }, /at most 64/, 'a long name');
  await bad({ handle: 'a' }, /handle must be/, 'a short handle');
  await bad({ hideBalances: true, nested: { Seed_Phrase: 'x' } }, /^this service never accepts private keys/, 'a secret before anything else');
  const taken = await patch({ handle: 'TAKEN' });
  t.same([taken.status, taken.body.code], [409, 'HANDLE_TAKEN']);
  t.equal((await h.req('PATCH', '/v1/users/me/settings', { body: { hideBalances: false } })).status, 401);
});

t.test('no route takes a private key: a body carrying one anywhere is refused with 400', async (t) => {
  const h = await startUsers(t);
  const d = signedDidCreate(h);
  const refused = async (body: unknown, why: string) => {
    const r = await h.req('POST', '/v1/users/register', { body });
    t.equal(r.status, 400, why);
    t.match(r.body, { detail: /^this service never accepts private keys/, code: 'PRIVATE_KEY_REFUSED' }, why);
    t.notMatch(r.text, /abandon/, 'the value is never echoed');
  };
  await refused({ signedDidCreate: d.json, mnemonic: 'abandon abandon about' }, 'at the top');
  await refused({ signedDidCreate: d.json, addresses: [{ chain: 'eth', address: '0x52908400098527886e0f7030069857d2e4169ee7', meta: { backup: { MNEMONIC: 'abandon' } } }] }, 'nested in an array, any case');
  await refused({ did: 'did:ledger:x:y', proof: { challenge: 'c', signature: 'ab', privateKey: 'abandon' } }, 'inside the proof');
  await refused({ seed: Array.from(generateSeed()) }, 'a seed as bytes');
  await refused({ signedDidCreate: d.json, note: `xprv${'9'.repeat(107)}` }, 'an extended private key under any name');
  const query = await h.req('GET', '/v1/users/challenge?did=did:ledger:x:y&private_key=abandon');
  t.match([query.status, query.body.detail], [400, /^this service never accepts private keys/], 'in a query too');
  t.equal(await h.parts.users.byDid(d.did), undefined, 'nothing registered');
  t.equal((await h.req('POST', '/v1/users/register', { body: { signedDidCreate: d.json } })).status, 201, 'the same body without the secret registers');
});

t.test('register and challenge are rate limited per remote address', async (t) => {
  const h = await startUsers(t, { limit: { max: 4, windowMs: 60_000 } });
  const seed = generateSeed();
  const did = await h.createDid(seed);
  const c1 = await h.req('GET', `/v1/users/challenge?did=${did}`);
  t.equal(c1.status, 200);
  t.equal((await h.req('POST', '/v1/users/register', { body: { did, proof: { challenge: c1.body.challenge, signature: signChallenge(seed, c1.body.challenge) } } })).status, 201);
  t.equal((await h.req('POST', '/v1/users/register', { body: {} })).status, 400, 'a refused attempt counts too');
  t.equal((await h.req('GET', `/v1/users/challenge?did=${did}`)).status, 200);
  const limited = await h.req('GET', `/v1/users/challenge?did=${did}`);
  t.equal(limited.status, 429);
  t.match(limited.body, { type: `${ERRORS_BASE}/429`, status: 429, code: 'RATE_LIMITED' });
  t.ok(Number(limited.headers.get('retry-after')) >= 1, 'Retry-After says how long');
  t.equal((await h.req('POST', '/v1/users/register', { body: { signedDidCreate: signedDidCreate(h).json } })).status, 429, 'register shares the budget');
  t.equal((await h.req('POST', '/v1/auth/session', { body: { sub: 's' }, headers: { 'x-internal-secret': 'x'.repeat(40) } })).status, 403, 'the handoff has its own');
});
