import t from 'tap';
import { generateSeed, keyPairFromSeed } from '../../../../node/client/index.js';
import { addressFromPublicKey } from '../../../../node/protocol/address.js';
import { openDatabase } from '../../../../node/state/db.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { AddressBookStore, MAX_ENTRIES_PER_USER } from '../../../../plugins/wallet/addressbook/store.js';
import { mountAddressBook } from '../../../../plugins/wallet/http/routes/address-book.js';
import { ERRORS_BASE, startWallet } from '../harness.js';

/**
 * The address book: per-user list, create and delete over the real wallet routes (sessions,
 * Problems), every body checked with a precise 400, and the store's per-user limit.
 */

const ledgerAddress = () => addressFromPublicKey(keyPairFromSeed(generateSeed()).publicKey);
// EIP-55 test vector, and a P2PKH / a bech32 P2WPKH / a bech32m P2TR address (BIP 173, BIP 350 vectors)
const ETH = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BTC_P2PKH = '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2';
const BTC_BECH32 = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const BTC_TAPROOT = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';

t.test('address book routes', async (t) => {
  let book!: AddressBookStore;
  const h = await startWallet(t, ({ router, base }) => {
    book = new AddressBookStore(base.db, base.now);
    mountAddressBook(router, { book });
  });
  const alice = await h.signIn();
  const bob = await h.signIn();

  await t.test('create, list, delete', async (t) => {
    t.same((await h.req('GET', '/v1/address-book', { cookie: alice.cookie })).body, [], 'empty: []');
    const carolDid = 'did:ledger:testnet:2WRXAwiHCW7rvEpkN1nPmFY5hiUC';
    const ledger = ledgerAddress();
    const created = await h.req('POST', '/v1/address-book', {
      cookie: alice.cookie,
      body: { name: '  Carol  ', did: carolDid, addresses: [{ chain: 'ledger', address: ledger }, { chain: 'eth', address: ETH }, { chain: 'btc', address: BTC_BECH32 }] },
    });
    t.equal(created.status, 201);
    t.match(created.body, { id: /^ab_[0-9a-f]{24}$/, name: 'Carol', did: carolDid, createdAt: /Z$/ });
    t.same(created.body.addresses, [{ chain: 'ledger', address: ledger }, { chain: 'eth', address: ETH }, { chain: 'btc', address: BTC_BECH32 }]);
    const onlyDid = await h.req('POST', '/v1/address-book', { cookie: alice.cookie, body: { name: 'alex', did: 'did:web:example.com' } });
    t.match([onlyDid.status, onlyDid.body], [201, { name: 'alex', did: 'did:web:example.com', addresses: [] }]);
    const onlyAddress = await h.req('POST', '/v1/address-book', { cookie: alice.cookie, body: { name: 'Bitcoin savings', addresses: [{ chain: 'btc', address: BTC_P2PKH }, { chain: 'btc', address: BTC_TAPROOT }] } });
    t.match([onlyAddress.status, onlyAddress.body], [201, { did: null }]);

    const list = await h.req('GET', '/v1/address-book', { cookie: alice.cookie });
    t.equal(list.status, 200);
    t.same(list.body.map((e: { name: string }) => e.name), ['alex', 'Bitcoin savings', 'Carol'], 'by name, case-insensitive');
    t.same((await h.req('GET', '/v1/address-book', { cookie: bob.cookie })).body, [], "bob does not see alice's entries");

    const foreign = await h.req('DELETE', `/v1/address-book/${created.body.id}`, { cookie: bob.cookie });
    t.equal(foreign.status, 404, "another user's entry is not found");
    t.match(foreign.body, { type: `${ERRORS_BASE}/404` });
    t.equal((await h.req('DELETE', '/v1/address-book/ab_000000000000000000000000', { cookie: alice.cookie })).status, 404);
    t.equal((await h.req('DELETE', '/v1/address-book/nonsense', { cookie: alice.cookie })).status, 404);
    const deleted = await h.req('DELETE', `/v1/address-book/${created.body.id}`, { cookie: alice.cookie });
    t.equal(deleted.status, 204);
    t.equal(deleted.text, '');
    t.equal((await h.req('DELETE', `/v1/address-book/${created.body.id}`, { cookie: alice.cookie })).status, 404, 'deleted once');
    t.same((await h.req('GET', '/v1/address-book', { cookie: alice.cookie })).body.map((e: { name: string }) => e.name), ['alex', 'Bitcoin savings']);

    t.same((await h.req('GET', '/v1/address-book')).body, { error: 'Unauthorized' });
    t.equal((await h.req('POST', '/v1/address-book', { body: { name: 'x', did: 'did:web:x' } })).status, 401);
    t.equal((await h.req('DELETE', `/v1/address-book/${onlyDid.body.id}`)).status, 401);
    t.equal((await h.req('GET', '/v1/address-book?limit=5', { cookie: alice.cookie })).status, 400, 'no query parameters');
  });

  await t.test('every fault of a body is a 400 naming it', async (t) => {
    const ok = ledgerAddress();
    const cases: Array<[unknown, string, RegExp]> = [
      [{ did: 'did:web:x' }, 'name', /name is required/],
      [{ name: '', did: 'did:web:x' }, 'name', /must not be empty/],
      [{ name: 'x'.repeat(65), did: 'did:web:x' }, 'name', /at most 64/],
      [{ name: 'a\u0007b', did: 'did:web:x' }, 'name', /control characters/],
      [{ name: 'x' }, 'did', /needs a did, addresses, or both/],
      [{ name: 'x', addresses: [] }, 'did', /needs a did, addresses, or both/],
      [{ name: 'x', did: 'not-a-did' }, 'did', /must be a DID/],
      [{ name: 'x', addresses: 'abc' }, 'addresses', /must be an array/],
      [{ name: 'x', addresses: Array.from({ length: 21 }, () => ({ chain: 'ledger', address: ledgerAddress() })) }, 'addresses', /at most 20 addresses/],
      [{ name: 'x', addresses: [{ chain: 'ledger', address: ok }, { chain: 'ledger', address: ok }] }, 'addresses', /listed twice/],
      [{ name: 'x', addresses: [{ chain: 'eth', address: ETH }, { chain: 'eth', address: ETH.toLowerCase() }] }, 'addresses', /listed twice/],
      [{ name: 'x', addresses: ['abc'] }, 'addresses[0]', /must be an object/],
      [{ name: 'x', addresses: [{ chain: 'sol', address: 'abc' }] }, 'addresses[0].chain', /one of ledger, eth, btc/],
      [{ name: 'x', addresses: [{ chain: 'ledger' }] }, 'addresses[0].address', /is required/],
      [{ name: 'x', addresses: [{ chain: 'ledger', address: ok, memo: 1 }] }, 'addresses[0].memo', /unknown field memo/],
      [{ name: 'x', addresses: [{ chain: 'ledger', address: '0OIl' }] }, 'addresses[0].address', /not a ledger address/],
      [{ name: 'x', addresses: [{ chain: 'eth', address: '0x1234' }] }, 'addresses[0].address', /not an Ethereum address/],
      [{ name: 'x', addresses: [{ chain: 'eth', address: ETH.replace('aA', 'Aa') }] }, 'addresses[0].address', /EIP-55 checksum/],
      [{ name: 'x', addresses: [{ chain: 'btc', address: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3' }] }, 'addresses[0].address', /not a Bitcoin address/],
      [{ name: 'x', addresses: [{ chain: 'btc', address: ETH }] }, 'addresses[0].address', /not a Bitcoin address/],
      [{ name: 'x', did: 'did:web:x', tags: [] }, 'tags', /unknown field tags/],
      [{ name: 'x', did: 'did:web:x', mnemonic: 'abandon' }, 'mnemonic', /never accepts private keys/],
    ];
    for (const [body, field, detail] of cases) {
      const res = await h.req('POST', '/v1/address-book', { cookie: alice.cookie, body });
      t.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.body?.detail}`);
      t.match(res.body, { type: `${ERRORS_BASE}/400`, field, detail });
    }
    t.equal((await h.req('POST', '/v1/address-book', { cookie: alice.cookie, raw: '[1]', headers: { 'content-type': 'application/json' } })).status, 400, 'not an object');
    t.equal((await h.req('GET', '/v1/address-book', { cookie: alice.cookie })).body.length, 2, 'nothing was stored');
  });
});

t.test('the store: per-user entries, at most 500 each', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const book = new AddressBookStore(new PluginDb(db.pluginStore('wallet')), () => Date.parse('2025-01-01T00:00:00Z'));
  const entry = { name: 'n', did: 'did:web:x', addresses: [] };
  await Promise.all(Array.from({ length: MAX_ENTRIES_PER_USER + 3 }, () => book.create('usr_a', entry).catch((e: unknown) => e)));
  t.equal((await book.list('usr_a')).length, MAX_ENTRIES_PER_USER, 'concurrent creates stop at the limit');
  await t.rejects(book.create('usr_a', entry), { code: 'ADDRESS_BOOK_FULL', kind: 'conflict' });
  const b = await book.create('usr_b', entry);
  t.match(b, { createdAt: '2025-01-01T00:00:00.000Z' });
  t.equal(await book.remove('usr_a', b.id), false, "usr_a cannot delete usr_b's entry");
  t.equal(await book.remove('usr_b', b.id), true);
  t.equal((await book.list('usr_b')).length, 0);
  const first = (await book.list('usr_a'))[0]!;
  t.equal(await book.remove('usr_a', first.id), true);
  t.match(await book.create('usr_a', entry), { id: /^ab_/ }, 'room again after a delete');
});
