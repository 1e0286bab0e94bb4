import t from 'tap';
import { generateSeed, keyPairFromSeed } from '../../../../../node/client/index.js';
import { addressFromPublicKey } from '../../../../../node/protocol/address.js';
import { didForPublicKey } from '../../../../../node/protocol/did.js';
import { ERRORS_BASE } from '../../harness.js';
import { cookieOf, signedDidCreate, startUsers } from '../../users/setup.js';

t.test('directory resolve by DID or handle, and the wallet\'s own addresses', async (t) => {
  const h = await startUsers(t);
  const asker = await h.signIn();
  const d = signedDidCreate(h);
  const btc = { chain: 'btc', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', derivation: "m/84'/0'/0'/0/0" };
  const reg = await h.req('POST', '/v1/users/register', { body: { signedDidCreate: d.json, handle: 'Payee', displayName: 'Pay Me', addresses: [btc] } });
  t.equal(reg.status, 201);
  const address = addressFromPublicKey(d.publicKey);
  const resolve = (query: string, cookie = asker.cookie) => h.req('GET', `/v1/directory/resolve${query}`, { cookie });
  const expected = { did: d.did, handle: 'payee', displayName: 'Pay Me', address, addresses: [{ chain: 'ledger', address }, { chain: 'btc', address: btc.address }] };

  const byDid = await resolve(`?did=${encodeURIComponent(d.did)}`);
  t.equal(byDid.status, 200);
  t.same(byDid.body, expected, 'by DID: the receive addresses, without derivation paths');
  t.same((await resolve('?handle=PAYEE')).body, expected, 'by handle, in any case');

  const bad = async (query: string, status: number, detail: RegExp, why: string) => {
    const r = await resolve(query);
    t.equal(r.status, status, why);
    t.match(r.body, { type: `${ERRORS_BASE}/${status}`, status, detail }, why);
  };
  await bad('', 400, /exactly one of did or handle/, 'neither');
  await bad(`?did=${d.did}&handle=payee`, 400, /exactly one of did or handle/, 'both');
  await bad('?did=nope', 400, /did must be a DID/, 'not a DID');
  await bad('?handle=-x', 400, /handle must be/, 'not a handle');
  await bad('?handle=payee&limit=1', 400, /unknown query parameter limit/, 'an unknown parameter');
  await bad(`?did=${didForPublicKey(h.parts.base.network, keyPairFromSeed(generateSeed()).publicKey)}`, 404, /no wallet user is registered with/, 'an unregistered DID');
  await bad('?handle=nobody', 404, /no wallet user has the handle nobody/, 'an unknown handle');
  t.same((await h.req('GET', `/v1/directory/resolve?handle=payee`)).body, { error: 'Unauthorized' }, 'a session is needed');

  const mine = await h.req('GET', '/v1/wallet/addresses', { cookie: cookieOf(reg) });
  t.equal(mine.status, 200);
  t.same(mine.body, [{ chain: 'ledger', address, derivation: '' }, btc], 'the user\'s entries, ledger first');
  t.same((await h.req('GET', '/v1/wallet/addresses', { cookie: asker.cookie })).body, asker.user.addresses);
  t.equal((await h.req('GET', '/v1/wallet/addresses?chain=btc', { cookie: asker.cookie })).status, 400);
  t.equal((await h.req('GET', '/v1/wallet/addresses')).status, 401);
});
