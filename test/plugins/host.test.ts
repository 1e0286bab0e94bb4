import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { buildTransfer, signAndEncode } from '../../node/client/builder.js';
import { openDatabase } from '../../node/state/db.js';
import { createLogger } from '../../node/logging.js';
import { Registry } from 'prom-client';
import { HeadSignal, committedBlocks } from '../../node/plugins/block-stream.js';
import { resolveServiceKeySecret, SERVICE_KEY_SECRET_ENV } from '../../node/config/service-key-secret.js';
import { PluginHost } from '../../node/plugins/host.js';
import type { Plugin, PluginContext } from '../../node/plugins/types.js';
import { utf8 } from '../../node/protocol/bytes.js';
import { nextBlock } from '../fixtures/chain-blocks.js';
import { chunked, parseResponse, pump, rawConnection } from '../fixtures/raw-connection.js';
import { CHAIN, funder, setup } from '../rpc/ledger/harness.js';

const section = (enabled = true) => ({ enabled, host: '127.0.0.1', port: 0 });

async function hostFor(t: Test) {
  const node = await setup(t, { blocks: true });
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const head = new HeadSignal();
  const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db, mempool: node.mempool, head, metrics: new Registry(), log: createLogger({ level: 'silent' }) });
  t.teardown(() => host.stop());
  return { ...node, db, head, host };
}

/** A plugin that records what happens to it, and keeps its context for the test. */
function probe(name: string, events: string[], o: { failStart?: boolean } = {}): Plugin & { ctx?: PluginContext } {
  const p: Plugin & { ctx?: PluginContext } = {
    name,
    async start(ctx) {
      p.ctx = ctx;
      events.push(`start ${name}`);
      ctx.http.route('GET', '/hello', (r) => r.json(200, { plugin: name, port: ctx.config.port }));
      if (o.failStart) throw new Error(`${name} cannot start`);
    },
    async stop() {
      events.push(`stop ${name}`);
    },
  };
  return p;
}

t.test('the stream gives committed blocks from any seq with their receipts, then follows the head', async (t) => {
  const { store, head } = await hostFor(t);
  const abort = new AbortController();
  const seen: Array<{ seq: number; txs: number; receipts: number }> = [];
  const reading = (async () => {
    for await (const c of committedBlocks(store, head, 1, abort.signal)) {
      seen.push({ seq: c.seq, txs: c.block.transactions.length, receipts: c.receipts.length });
      if (c.seq === 3) abort.abort();
    }
  })();
  await new Promise((r) => setTimeout(r, 50));
  t.same(seen.map((s) => s.seq), [1, 2], 'from seq 1 to the head, then it waits');
  t.ok(seen.every((s) => s.txs === s.receipts), 'each block comes with one receipt per transaction');
  await store.commitBlock(await nextBlock(store));
  head.committed();
  await reading;
  t.same(seen.map((s) => s.seq), [1, 2, 3], 'a new commit reaches the reader; abort ends the stream');
  await t.rejects(async () => {
    for await (const _ of committedBlocks(store, head, -1)) break;
  }, /starts at a seq from 0/);
});

t.test('the host starts enabled plugins in order, reports a failed one, and stops in reverse order', async (t) => {
  const { host } = await hostFor(t);
  const events: string[] = [];
  const a = probe('alpha', events);
  const broken = probe('broken', events, { failStart: true });
  const b = probe('beta', events);
  const off = probe('off', events);
  const states = await host.start([a, broken, b, off], { alpha: section(), broken: section(), beta: section(), off: section(false), ghost: section() });
  t.match(states, [
    { name: 'alpha', state: 'running', url: /^http:\/\/127\.0\.0\.1:\d+$/ },
    { name: 'broken', state: 'failed', error: 'broken cannot start' },
    { name: 'beta', state: 'running' },
  ]);
  t.same(events, ['start alpha', 'start broken', 'stop broken', 'start beta'], 'a disabled plugin never starts; a failed one is stopped');
  const [alphaUrl, betaUrl] = [states[0], states[2]].map((s) => (s as { url: string }).url);
  t.match(await (await fetch(`${alphaUrl}/hello`)).json(), { plugin: 'alpha' }, 'each plugin serves on its own port');
  t.match(await (await fetch(`${betaUrl}/hello`)).json(), { plugin: 'beta' });
  await host.stop();
  t.same(events.slice(4), ['stop beta', 'stop alpha'], 'reverse order');
  await t.rejects(fetch(`${alphaUrl}/hello`), 'its port is closed');
});

t.test('a context: own namespace, read-only chain view, submit to the mempool, streams end at stop', async (t) => {
  const { host, db, mempool, store } = await hostFor(t);
  const events: string[] = [];
  const a = probe('alpha', events);
  const b = probe('beta', events);
  await host.start([a, b], { alpha: section(), beta: section() });
  await a.ctx!.store.put(utf8('k'), utf8('alpha'));
  t.equal(await b.ctx!.store.get(utf8('k')), undefined, 'plugins share no keys');
  t.equal(await db.pluginStore('alpha').get(utf8('k')).then((v) => v && Buffer.from(v).toString()), 'alpha');
  t.equal(a.ctx!.chain.head()?.seq, store.head()?.seq);
  t.equal((await a.ctx!.chain.blockBySeq(1))?.header.height, (await store.blocks.bySeq(1))?.header.height);
  t.equal((await a.ctx!.chain.account(new Uint8Array(20))).balance, 0n);

  const signed = signAndEncode(CHAIN, buildTransfer({ senderPubkey: funder.publicKey, nonce: 0, to: new Uint8Array(20).fill(1), amount: 5n }), funder.seed);
  t.equal(await a.ctx!.submit(signed.json), signed.hash);
  t.ok(mempool.has(signed.hash), 'the transaction is in the local mempool');
  await t.rejects(a.ctx!.submit('{"not":"a tx"}'), 'a malformed transaction is refused');

  const seen: number[] = [];
  const reading = (async () => {
    for await (const c of a.ctx!.blocks(0)) seen.push(c.seq);
  })();
  await new Promise((r) => setTimeout(r, 50));
  await host.stop();
  await reading;
  t.same(seen, [0, 1, 2], 'the stream ended when the plugin stopped');
});

t.test('every plugin gets the one service-key secret: the one the host was handed, else one in memory', async (t) => {
  const { host, store, db, mempool, head } = await hostFor(t);
  const a = probe('alpha', []);
  const b = probe('beta', []);
  await host.start([a, b], { alpha: section(), beta: section() });
  const secret = await a.ctx!.serviceKeySecret();
  t.equal(await b.ctx!.serviceKeySecret(), secret, 'the same object for every plugin and call');
  t.equal(secret.kind, 'memory', 'a node without a data directory holds a random one in memory');

  const handed = await resolveServiceKeySecret({ env: { [SERVICE_KEY_SECRET_ENV]: 'the-secret-ledger-start-resolved' } });
  const other = new PluginHost({ chainId: CHAIN, network: 'testnet', store, db, mempool, head, metrics: new Registry(), log: createLogger({ level: 'silent' }), serviceKeySecret: handed });
  t.teardown(() => other.stop());
  const c = probe('gamma', []);
  await other.start([c], { gamma: section() });
  t.equal(await c.ctx!.serviceKeySecret(), handed);
});

t.test("a plugin's port has the shared connection caps and body limit; the caps stay with the host", async (t) => {
  const { host } = await hostFor(t);
  const MiB = 1024 * 1024;
  let config: unknown;
  const uploads: Plugin = {
    name: 'uploads',
    async start(ctx) {
      config = ctx.config;
      ctx.http.raiseBodyLimit(2 * MiB);
      ctx.http.route('GET', '/hello', (r) => r.json(200, { ok: true }));
      ctx.http.route('POST', '/json', async (r) => r.json(200, { bytes: (await r.readBody()).length }));
      ctx.http.route('POST', '/upload', async (r) => r.json(200, { bytes: (await r.readBody(2 * MiB)).length }));
    },
    async stop() {},
  };
  await host.start([uploads], { uploads: { ...section(), maxConnections: 0, maxConnectionsPerIp: 2 } });
  t.same(config, section(), 'the plugin sees its own options only');
  const { http } = host.servers()[0]!;
  const port = (http.server.address() as AddressInfo).port;

  /** One request on its own connection; resolves with the answer once the server closes it. */
  const ask = async (head: string, body = Buffer.alloc(0)) => {
    const c = await rawConnection(port);
    c.socket.write(head);
    void pump(c.socket, body.length);
    return parseResponse((await c.closed).text);
  };
  const close = 'Host: x\r\nConnection: close';
  t.equal((await ask(`POST /upload HTTP/1.1\r\n${close}\r\nContent-Length: ${1.5 * MiB}\r\n\r\n`, Buffer.alloc(1.5 * MiB))).status, 200, 'a raised limit takes a larger upload');
  const route = await ask(`POST /json HTTP/1.1\r\n${close}\r\nContent-Length: ${1.5 * MiB}\r\n\r\n`, Buffer.alloc(1.5 * MiB));
  t.equal(route.status, 413, "a route's own cap still holds");
  t.match(JSON.parse(route.body), { code: 'BODY_TOO_LARGE', maxBytes: MiB });
  const declared = await ask(`POST /hello HTTP/1.1\r\n${close}\r\nContent-Length: ${3 * MiB}\r\n\r\n`, Buffer.alloc(3 * MiB));
  t.equal(declared.status, 413, 'over the server limit, on any path');
  t.match(JSON.parse(declared.body), { type: '/errors/413', code: 'BODY_TOO_LARGE', maxBytes: 2 * MiB, instance: '/hello' });
  const c = await rawConnection(port);
  c.socket.write(`POST /upload HTTP/1.1\r\n${close}\r\nTransfer-Encoding: chunked\r\n\r\n`);
  await pump(c.socket, 3 * MiB, chunked);
  c.socket.write('0\r\n\r\n');
  const streamed = parseResponse((await c.closed).text);
  t.equal(streamed.status, 413, 'a chunked body, at the chunk that crosses the limit');
  t.match(JSON.parse(streamed.body), { maxBytes: 2 * MiB });

  const idle = [await rawConnection(port), await rawConnection(port)];
  t.teardown(() => idle.forEach((c) => c.socket.destroy()));
  const refused = parseResponse((await (await rawConnection(port)).closed).text);
  t.equal(refused.status, 503, 'the third connection from one address');
  t.match(JSON.parse(refused.body), { code: 'TOO_MANY_CONNECTIONS_PER_IP', limit: 2 });
  t.match(http.connectionStats(), { open: 2, refused: { per_ip: 1 } });
});
