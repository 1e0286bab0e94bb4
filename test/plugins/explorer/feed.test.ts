import t, { type Test } from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { createLogger } from '../../../node/logging.js';
import { Feed, type FeedLimits } from '../../../plugins/explorer/feed.js';
import type { Indexed, VerificationRow } from '../../../plugins/explorer/rows.js';

const log = createLogger({ level: 'silent' });
const limits: FeedLimits = { maxClients: 2, maxMessageBytes: 256, maxMessagesPerMinute: 5, maxBufferedBytes: 1024 * 1024, pingMs: 60_000 };

async function serve(t: Test, l: FeedLimits = limits) {
  const server: Server = createServer((_req, res) => res.end());
  const feed = new Feed(server, log, l);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(async () => {
    await feed.close();
    await new Promise((r) => server.close(r));
  });
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const connect = async (path = '/ws') => {
    const ws = new WebSocket(`${url}${path}`);
    const messages: Array<Record<string, unknown>> = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const next = async (n = 1) => {
      for (let i = 0; i < 100 && messages.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      return messages.splice(0, n);
    };
    return { ws, next, messages };
  };
  return { feed, connect };
}

const indexed: Indexed = {
  block: { height: '5', hash: 'ab', parent_hash: 'aa', proposer: 'p', timestamp_ms: '1', tx_count: 1, round: '5', state_root: 'cc', created_at: 'now' },
  txs: [{ hash: 'h1', block_height: 5, tx_index: 0, sender: 's', type: 'Transfer', recipient: 'r', amount: '10', fee: '1', status: 'success', timestamp_ms: '1', raw_payload: { Transfer: { to: 'r', amount: 10n } }, created_at: 'now' }],
  dids: [],
  credentials: [],
  verifications: [],
};

t.test('subscribe, receive items of the subscribed topics in REST row shape, unsubscribe', async (t) => {
  const { feed, connect } = await serve(t);
  const c = await connect();
  c.ws.send(JSON.stringify({ subscribe: ['blocks', 'transactions'] }));
  t.same(await c.next(), [{ type: 'subscribed', topics: ['blocks', 'transactions'] }]);
  feed.publish(indexed);
  const got = await c.next(2);
  t.same(got[0], { type: 'block', data: indexed.block });
  t.match(got[1], { type: 'transaction', data: { hash: 'h1', amount: '10', raw_payload: { Transfer: { amount: 10 } } } });
  t.notOk('created_at' in (got[1]!.data as object), 'the list row shape');
  c.ws.send(JSON.stringify({ unsubscribe: ['transactions'] }));
  t.same(await c.next(), [{ type: 'unsubscribed', topics: ['blocks'] }]);
  feed.publish(indexed);
  t.same((await c.next()).map((m) => m.type), ['block']);
  await new Promise((r) => setTimeout(r, 50));
  t.equal(c.messages.length, 0, 'no transaction after unsubscribing');
});

t.test('the verifications topic: a row each time a request changes, in the REST row shape', async (t) => {
  const { feed, connect } = await serve(t);
  const c = await connect();
  c.ws.send(JSON.stringify({ subscribe: ['verifications'] }));
  t.same(await c.next(), [{ type: 'subscribed', topics: ['verifications'] }]);
  const row: VerificationRow = {
    request_id: 'req-1',
    requester_did: 'did:ledger:testnet:a',
    subject_did: 'did:ledger:testnet:b',
    purpose: 'account opening',
    claim_types: ['KYCCredential'],
    fee: '100000',
    status: 'final',
    verified: true,
    answers: 1,
    request_height: 4,
    deadline_height: 304,
    final_height: 6,
    consensus_round: 6,
    request_ms: '1',
    final_ms: '2',
    tx_hash: 'h1',
  };
  feed.publish({ ...indexed, verifications: [row] });
  t.same(await c.next(), [{ type: 'verification', data: row }], 'only the subscribed topic');
});

t.test('bad messages get an error; limits close the connection; other paths and extra clients are refused', async (t) => {
  const { connect } = await serve(t);
  const c = await connect();
  c.ws.send('not json');
  t.match(await c.next(), [{ type: 'error', message: /JSON text/ }]);
  c.ws.send(JSON.stringify({ subscribe: ['weather'] }));
  t.match(await c.next(), [{ type: 'error', message: /topics from blocks, transactions, dids, credentials/ }]);
  const second = await connect();
  await t.rejects(connect(), /503/, 'a third client is over maxClients');
  const closed = new Promise<number>((r) => second.ws.once('close', (code) => r(code)));
  for (let i = 0; i < 6; i++) second.ws.send('{"subscribe":[]}');
  t.equal(await closed, 1008, 'too many messages');
  const big = new Promise<number>((r) => c.ws.once('close', (code) => r(code)));
  c.ws.send('x'.repeat(300));
  t.equal(await big, 1009, 'a message over maxMessageBytes');
  await t.rejects(connect('/elsewhere'), /404/);
});

t.test('a heartbeat ping every pingMs', async (t) => {
  const { connect } = await serve(t, { ...limits, pingMs: 30 });
  const c = await connect();
  t.same(await c.next(), [{ type: 'ping' }]);
});

t.test('a client whose unsent data passes the limit is cut off, and the feed goes on', async (t) => {
  const { feed, connect } = await serve(t, { ...limits, maxBufferedBytes: -1 });
  const c = await connect();
  const closed = new Promise<void>((r) => c.ws.once('close', () => r()));
  c.ws.send(JSON.stringify({ subscribe: ['blocks'] }));
  await closed;
  t.equal(feed.size, 0);
  feed.publish(indexed);
});
