import type { Libp2p, Stream } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import t from 'tap';
import { encodeMessage } from '../../node/consensus/codec.js';
import type { ConsensusMessage } from '../../node/consensus/types.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { createLogger } from '../../node/logging.js';
import { encodeFrame } from '../../node/network/framing.js';
import { createHost } from '../../node/network/host.js';
import { P2PNetwork, peerIdFromSeed, type P2PNetworkOptions, type PeerInfo } from '../../node/network/index.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { bytesEqual, toHex } from '../../node/protocol/bytes.js';
import { genesisBlock, transfer } from '../consensus/harness.js';

const log = createLogger({ level: 'silent' });
const CHAIN = 'net-test';
const seed = (n: number) => new Uint8Array(32).fill(n);
const addresses = new Map<number, Uint8Array>();
/** memoized: deriving a key pair costs about half a millisecond */
const addressOf = (n: number): Uint8Array => addresses.get(n) ?? addresses.set(n, addressBytesFromPublicKey(keyPairFromSeed(seed(n)).publicKey)).get(n)!;
const vote: ConsensusMessage = { type: 'vote', epoch: 0, vote: { round: 3, height: 2, blockHash: new Uint8Array(32).fill(5), voter: new Uint8Array(20).fill(1), signature: new Uint8Array(96).fill(7) } };

type T = { teardown(fn: () => unknown): void };

async function net(t: T, n: number, o: Partial<P2PNetworkOptions> = {}): Promise<P2PNetwork> {
  const p = await P2PNetwork.create({ chainId: CHAIN, seed: seed(n), host: '127.0.0.1', port: 0, bootstrap: [], log, ...o });
  t.teardown(() => p.stop());
  return p;
}

/** A bare libp2p node with a validator identity that writes whatever bytes a test wants. */
async function raw(t: T, n: number): Promise<Libp2p> {
  const node = await createHost({ seed: seed(n), host: '127.0.0.1', port: 0, isBanned: () => false });
  await node.start();
  t.teardown(() => node.stop());
  return node;
}

const rawStream = (node: Libp2p, to: P2PNetwork, kind: 'consensus' | 'tx'): Promise<Stream> => node.dialProtocol(multiaddr(to.listenAddrs()[0]!), `/ledger/${CHAIN}/${kind}/1`);

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** the listen address without /p2p/<peer id> */
const bare = (p: P2PNetwork) => p.listenAddrs()[0]!.replace(/\/p2p\/.*$/, '');

t.test('three nodes: direct sends carry the sender address, broadcasts reach everyone', async (t) => {
  const a = await net(t, 1);
  const connects: PeerInfo[] = [];
  a.on('peer:connect', (p: PeerInfo) => connects.push(p));
  const b = await net(t, 2, { bootstrap: [a.listenAddrs()[0]!] });
  const c = await net(t, 3, { bootstrap: [bare(a), bare(b)] });
  await until(() => a.peerCount() === 2 && b.peerCount() === 2 && c.peerCount() === 2, 'a full mesh');
  t.equal(a.peerId, peerIdFromSeed(seed(1)), 'the peer id comes from the validator seed');
  t.ok(a.listenAddrs().every((x) => x.endsWith(`/p2p/${a.peerId}`)));
  t.same(a.peers().map((p) => toHex(p.address)).sort(), [toHex(addressOf(2)), toHex(addressOf(3))].sort());
  t.same(connects.map((p) => p.peerId).sort(), [b.peerId, c.peerId].sort(), 'peer:connect once per peer');

  const got: Array<{ at: string; from: Uint8Array; msg: ConsensusMessage }> = [];
  for (const [name, p] of [['a', a], ['b', b], ['c', c]] as const) p.consensus.onMessage((from, msg) => got.push({ at: name, from, msg }));
  c.consensus.send(addressOf(1), vote);
  await until(() => got.length === 1, 'the direct message');
  t.equal(got[0]!.at, 'a');
  t.ok(bytesEqual(got[0]!.from, addressOf(3)), 'from is the address of the sender key');
  t.same(got[0]!.msg, vote, 'decoded intact');
  // b learned a's peer id from a full address, c from a bare one; a only accepted: all directions work
  a.consensus.send(addressOf(3), vote);
  b.consensus.broadcast(vote);
  await until(() => got.length === 4, 'the reply and the broadcast');
  t.same(got.slice(1).map((g) => `${g.at}<-${toHex(g.from).slice(0, 4)}`).sort(), [`a<-${toHex(addressOf(2)).slice(0, 4)}`, `c<-${toHex(addressOf(1)).slice(0, 4)}`, `c<-${toHex(addressOf(2)).slice(0, 4)}`].sort());
  t.equal(a.stats().framesIn, 2);
  t.equal(c.stats().framesOut, 1);
});

t.test('large consensus messages cross in many yamux chunks', async (t) => {
  const a = await net(t, 1);
  const b = await net(t, 2, { bootstrap: [bare(a)] });
  await until(() => b.peerCount() === 1 && a.peerCount() === 1, 'connected');
  const g = genesisBlock();
  const block = { ...g, transactions: Array.from({ length: 3_000 }, (_, i) => transfer(i)) };
  const msg: ConsensusMessage = { type: 'sync-response', epoch: 0, blocks: [block, block] };
  const size = encodeMessage(msg).length;
  let got: ConsensusMessage | undefined;
  a.consensus.onMessage((_f, m) => (got = m));
  b.consensus.send(addressOf(1), msg);
  await until(() => got !== undefined, 'the sync answer');
  t.same(encodeMessage(got!), encodeMessage(msg), `${(size / 1024 / 1024).toFixed(1)} MiB intact`);
});

t.test('a message above the size cap is not sent, so the peer has nothing to penalize', async (t) => {
  const a = await net(t, 1);
  const b = await net(t, 2, { bootstrap: [bare(a)], limits: { maxConsensusFrameBytes: 1024 } });
  await until(() => b.peerCount() === 1 && a.peerCount() === 1, 'connected');
  let got = 0;
  a.consensus.onMessage(() => got++);
  const big: ConsensusMessage = { type: 'sync-response', epoch: 0, blocks: [{ ...genesisBlock(), transactions: Array.from({ length: 20 }, (_, i) => transfer(i)) }] };
  b.consensus.send(addressOf(1), big);
  b.consensus.send(addressOf(1), vote);
  await until(() => got === 1, 'the vote');
  t.equal(b.stats().dropped['too-large-consensus'], 1);
  t.equal(a.stats().penalties, 0);
});

t.test('transactions travel in batches and skip the peer they came from', async (t) => {
  const a = await net(t, 1);
  const b = await net(t, 2, { bootstrap: [bare(a)] });
  const c = await net(t, 3, { bootstrap: [bare(a)] });
  await until(() => a.peerCount() === 2 && b.peerCount() === 1 && c.peerCount() === 1, 'two peers');
  const got: Record<string, Uint8Array[][]> = { b: [], c: [] };
  let sender: Uint8Array | undefined;
  b.onTransactions((txs, from) => {
    got.b!.push(txs);
    sender = from;
  });
  c.onTransactions((txs) => void got.c!.push(txs));
  const txs = Array.from({ length: 1200 }, (_, i) => new Uint8Array(100).fill(i % 251));
  a.gossipTransactions(txs.slice(0, 600), addressOf(3));
  a.gossipTransactions(txs.slice(600), addressOf(3));
  await until(() => got.b!.flat().length === 1200, 'all 1200 at b');
  await delay(100);
  t.equal(got.b!.length, 3, 'in three batches of at most 512');
  t.same(got.b!.flat(), txs, 'in order');
  t.ok(sender && bytesEqual(sender, addressOf(1)));
  t.equal(got.c!.length, 0, 'none back to the peer they came from');
});

t.test('a send to a peer that is not connected is dropped and counted', async (t) => {
  const a = await net(t, 1);
  a.consensus.send(addressOf(9), vote);
  a.consensus.broadcast(vote);
  t.same(a.stats().dropped, { 'not-connected': 1 });
  t.equal(a.stats().framesOut, 0);
});

t.test('a garbage frame is dropped and its sender penalized', async (t) => {
  const a = await net(t, 1);
  const r = await raw(t, 2);
  const received: ConsensusMessage[] = [];
  a.consensus.onMessage((_f, m) => received.push(m));
  const s = await rawStream(r, a, 'consensus');
  s.send(encodeFrame(Uint8Array.of(9, 9, 9)));
  s.send(encodeFrame(encodeMessage(vote)));
  const tx = await rawStream(r, a, 'tx');
  tx.send(encodeFrame(Uint8Array.of(0, 0)));
  await until(() => received.length === 1 && a.stats().dropped['undecodable-tx-batch'] === 1, 'the frames');
  t.equal(a.stats().dropped['undecodable-consensus'], 1);
  t.equal(a.stats().penalties, 2);
  t.equal(a.peerCount(), 1, 'still connected: two penalties are below the ban threshold');
  t.same(received[0], vote, 'the good frame after the bad one still arrives');
});

t.test('an oversized frame resets the stream and bans the peer; the ban refuses it until it expires', async (t) => {
  const a = await net(t, 1, { limits: { maxConsensusFrameBytes: 1024, banThreshold: -50, banMs: 1_500 } });
  const r = await raw(t, 2);
  const s = await rawStream(r, a, 'consensus');
  await until(() => a.peerCount() === 1, 'connected');
  s.send(encodeFrame(new Uint8Array(2048)));
  await until(() => a.stats().bans === 1, 'banned');
  await until(() => a.peerCount() === 0 && r.getConnections().length === 0, 'disconnected');
  t.equal(a.stats().dropped['oversized-consensus'], 1);
  await t.rejects(rawStream(r, a, 'consensus'), 'a banned peer cannot reconnect');
  t.equal(a.peerCount(), 0);
  await delay(1_600);
  await rawStream(r, a, 'consensus');
  await until(() => a.peerCount() === 1, 'reconnected after the ban');
});

t.test('penalize() bans a peer both ways; the bootstrap redial gets it back after the ban', async (t) => {
  const a = await net(t, 1);
  const b = await net(t, 2, { bootstrap: [a.listenAddrs()[0]!], limits: { banMs: 2_000 } });
  const gone: PeerInfo[] = [];
  b.on('peer:disconnect', (p: PeerInfo) => gone.push(p));
  await until(() => a.peerCount() === 1 && b.peerCount() === 1, 'connected');
  b.penalize(addressOf(1), 'test', 60);
  t.equal(b.stats().bans, 0, 'one penalty of 60 stays above -100');
  b.penalize(addressOf(1), 'test', 60);
  t.equal(b.stats().bans, 1);
  await until(() => a.peerCount() === 0 && b.peerCount() === 0, 'disconnected');
  t.same(gone.map((p) => p.peerId), [a.peerId], 'peer:disconnect');
  b.consensus.send(addressOf(1), vote);
  t.equal(b.stats().dropped['not-connected'], 1);
  await delay(500);
  t.equal(b.peerCount(), 0, 'b does not redial a peer it banned');
  await until(() => a.peerCount() === 1 && b.peerCount() === 1, 'the redial succeeds once the ban expires', 8_000);
});

t.test('a flood beyond the rate limit is dropped', async (t) => {
  const a = await net(t, 1, { limits: { consensusFramesPerSecond: 50, banThreshold: -1_000_000 } });
  const b = await net(t, 2, { bootstrap: [bare(a)] });
  await until(() => a.peerCount() === 1 && b.peerCount() === 1, 'connected');
  let n = 0;
  a.consensus.onMessage(() => n++);
  for (let i = 0; i < 500; i++) b.consensus.send(addressOf(1), vote);
  await until(() => n + (a.stats().dropped['rate-limited-consensus'] ?? 0) === 500, 'all 500 handled');
  // the bucket's rate over time is test/network/limits.test.ts's, on its own clock
  t.ok(n >= 50 && n < 500, `a full bucket, one second of burst, got through and the rest was dropped (${n} of 500)`);
  t.equal(a.stats().penalties, 500 - n, 'each excess frame costs a little');
});

t.test('round trip of one consensus frame between two nodes', async (t) => {
  const a = await net(t, 1);
  const b = await net(t, 2, { bootstrap: [bare(a)] });
  await until(() => a.peerCount() === 1 && b.peerCount() === 1, 'connected');
  b.consensus.onMessage((from, msg) => b.consensus.send(from, msg));
  let resolve: (echo: { from: Uint8Array; msg: ConsensusMessage }) => void = () => undefined;
  a.consensus.onMessage((from, msg) => resolve({ from, msg }));
  const to = addressOf(2);
  const sent = encodeMessage(vote);
  const rtts: number[] = [];
  const wrong: number[] = [];
  for (let i = 0; i < 550; i++) {
    const start = process.hrtime.bigint();
    const echo = await new Promise<{ from: Uint8Array; msg: ConsensusMessage }>((r) => {
      resolve = r;
      a.consensus.send(to, vote);
    });
    // the first 50 open the streams and warm the JIT
    if (i >= 50) rtts.push(Number(process.hrtime.bigint() - start) / 1_000);
    if (!bytesEqual(echo.from, to) || !bytesEqual(encodeMessage(echo.msg), sent)) wrong.push(i);
  }
  t.same(wrong, [], 'each of the 550 frames came back from b, unchanged');
  rtts.sort((x, y) => x - y);
  const at = (q: number) => rtts[Math.floor(q * (rtts.length - 1))]!.toFixed(0);
  // a measurement to read, not a check: how fast is a benchmark's question
  t.comment(`vote round trip over libp2p: p50 ${at(0.5)} µs, p90 ${at(0.9)} µs, p99 ${at(0.99)} µs`);
});

t.test('stop() closes everything and leaves no sockets or timers behind', async (t) => {
  await delay(200);
  const count = () => {
    const c: Record<string, number> = {};
    for (const r of process.getActiveResourcesInfo()) c[r] = (c[r] ?? 0) + 1;
    return c;
  };
  const before = count();
  const nodes: P2PNetwork[] = [];
  nodes.push(await P2PNetwork.create({ chainId: CHAIN, seed: seed(1), host: '127.0.0.1', port: 0, bootstrap: [], log }));
  for (const n of [2, 3]) nodes.push(await P2PNetwork.create({ chainId: CHAIN, seed: seed(n), host: '127.0.0.1', port: 0, bootstrap: [bare(nodes[0]!), nodes[0]!.listenAddrs()[0]!], log }));
  await until(() => nodes.every((n) => n.peerCount() >= 1), 'connected');
  nodes[1]!.consensus.broadcast(vote);
  nodes[2]!.gossipTransactions([new Uint8Array(10)]);
  t.ok((count().TCPSocketWrap ?? 0) > (before.TCPSocketWrap ?? 0), 'sockets while running');
  await Promise.all(nodes.map((n) => n.stop()));
  await nodes[0]!.stop();
  t.pass('stop is idempotent');
  await until(() => ['TCPSocketWrap', 'TCPServerWrap', 'Timeout'].every((k) => (count()[k] ?? 0) <= (before[k] ?? 0)), 'the handles to go', 3_000).catch((err: Error) => {
    t.fail(`${err.message}: ${JSON.stringify({ before, after: count() })}`);
  });
  t.equal(nodes[0]!.peerCount(), 0);
  nodes[0]!.gossipTransactions([new Uint8Array(10)]);
  nodes[0]!.consensus.broadcast(vote);
  t.ok((count().Timeout ?? 0) <= (before.Timeout ?? 0), 'sending after stop starts no timer');
});
