import t from 'tap';
import { TxIndex } from '../../../../../plugins/wallet/chain/tx-index.js';
import { mountHistory } from '../../../../../plugins/wallet/http/routes/history.js';
import { until } from '../../../../fixtures/wait.js';
import { ERRORS_BASE, startWallet } from '../../harness.js';

/** GET /v1/transactions on a real node: the plugin's own index of the block stream, the caller's accounts only. */

t.test('the caller\'s history from the block stream, with filters, paging and precise 400s', async (t) => {
  let index!: TxIndex;
  const h = await startWallet(t, ({ ctx, base, router, users }) => {
    index = new TxIndex(base.db);
    const stop = new AbortController();
    const run = index.run((from, signal) => ctx.blocks(from, signal), stop.signal);
    t.teardown(async () => {
      stop.abort();
      await run;
    });
    mountHistory(router, { index, users, now: base.now });
  });
  const me = await h.signIn();
  const other = await h.signIn();
  for (const amount of [1_000n, 2_000n, 3_000n]) await h.fund(me.user.address, amount);
  await h.fund(other.user.address, 4_000n);

  const page = await until('three receives indexed', async () => {
    const res = await h.req('GET', '/v1/transactions', { cookie: me.cookie });
    return res.body.items?.length === 3 && res.body;
  }, 30_000);
  t.same(page.items.map((r: any) => r.amount), ['3000', '2000', '1000'], 'newest first, only the caller\'s');
  t.match(page.items[0], { hash: /^[0-9a-f]{64}$/, type: 'receive', direction: 'in', address: me.user.address, from: h.node.dev.address, status: 'success', assetId: 'lgr' });
  t.equal(page.nextCursor, null);

  const first = await h.req('GET', '/v1/transactions?limit=2&type=receive&dateRange=30d', { cookie: me.cookie });
  t.equal(first.body.items.length, 2);
  const rest = await h.req('GET', `/v1/transactions?limit=2&type=receive&dateRange=30d&cursor=${first.body.nextCursor}`, { cookie: me.cookie });
  t.same(rest.body.items.map((r: any) => r.amount), ['1000']);
  t.same((await h.req('GET', '/v1/transactions?type=stake', { cookie: me.cookie })).body.items, []);
  t.same((await h.req('GET', '/v1/transactions?assetId=eth', { cookie: me.cookie })).body.items, []);
  const found = await h.req('GET', `/v1/transactions?search=${page.items[1].hash.slice(10, 30).toUpperCase()}`, { cookie: me.cookie });
  t.same(found.body.items.map((r: any) => r.hash), [page.items[1].hash], 'search by part of the hash, any case');

  for (const [query, field] of [['dateRange=2w', 'dateRange'], ['type=swap', 'type'], ['limit=500', 'limit'], ['cursor=nope', undefined], ['page=2', 'page']] as const) {
    const res = await h.req('GET', `/v1/transactions?${query}`, { cookie: me.cookie });
    t.match([res.status, res.body], [400, { type: `${ERRORS_BASE}/400`, ...(field ? { field } : {}) }], query);
  }
  t.same((await h.req('GET', '/v1/transactions')).body, { error: 'Unauthorized' });
});
