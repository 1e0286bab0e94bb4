import t from 'tap';
import { P2PNetwork, type P2PNetworkOptions } from '../../node/network/index.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { bytesEqual } from '../../node/protocol/bytes.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { createLogger } from '../../node/logging.js';
import type { ConsensusMessage } from '../../node/consensus/types.js';
import { encodeFrame } from '../../node/network/framing.js';

const log = createLogger({ level: 'silent' });
const seed = (n: number) => new Uint8Array(32).fill(n);
const addressOf = (n: number) => addressBytesFromPublicKey(keyPairFromSeed(seed(n)).publicKey);
const vote: ConsensusMessage = { type: 'vote', vote: { round: 3, height: 2, blockHash: new Uint8Array(32).fill(5), voter: new Uint8Array(20).fill(1), signature: new Uint8Array(96).fill(7) } };

async function net(t: { teardown(fn: () => unknown): void }, n: number, o: Partial<P2PNetworkOptions> = {}): Promise<P2PNetwork> {
  const p = await P2PNetwork.create({ chainId: 'net-test', seed: seed(n), host: '127.0.0.1', port: 0, bootstrap: [], log, ...o });
  t.teardown(() => p.stop());
  return p;
}

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** host:port of a listen address, without the /p2p suffix */
const bare = (p: P2PNetwork) => p.listenAddrs()[0]!.replace(/\/p2p\/.*$/, '');

t.test('consensus messages arrive with the sender validator address', async (t) => {
  const a = await net(t, 1);
  const b = await net(t, 2, { bootstrap: [a.listenAddrs()[0]!] });
  const c = await net(t, 3, { bootstrap: [bare(a), bare(b)] });
  await until(() => a.peerCount() === 2 && b.peerCount() === 2 && c.peerCount() === 2, 'a full mesh');
  const got: Array<{ at: string; from: Uint8Array; msg: ConsensusMessage }> = [];
  for (const [name, p] of [['a', a], ['b', b], ['c', c]] as const) p.consensus.onMessage((from, msg) => got.push({ at: name, from, msg }));
  c.consensus.send(addressOf(1), vote);
  await until(() => got.length === 1, 'the direct message');
  t.equal(got[0]!.at, 'a');
  t.ok(bytesEqual(got[0]!.from, addressOf(3)), 'from is the address of the sender key');
  t.same(got[0]!.msg, vote, 'decoded intact');
  a.consensus.broadcast(vote);
  await until(() => got.length === 3, 'the broadcast');
  t.same(got.slice(1).map((g) => g.at).sort(), ['b', 'c']);
});

t.test('transactions travel in batches and skip the peer they came from', async (t) => {
  const a = await net(t, 1);
  const b = await net(t, 2, { bootstrap: [bare(a)] });
  const c = await net(t, 3, { bootstrap: [bare(a)] });
  await until(() => a.peerCount() === 2, 'two peers');
  const got: Record<string, Uint8Array[]> = { b: [], c: [] };
  b.onTransactions((txs) => void got.b!.push(...txs));
  c.onTransactions((txs) => void got.c!.push(...txs));
  const txs = Array.from({ length: 1200 }, (_, i) => new Uint8Array(100).fill(i % 251));
  a.gossipTransactions(txs, addressOf(3));
  await until(() => got.b!.length === 1200, 'all 1200 at b');
  await new Promise((r) => setTimeout(r, 100));
  t.equal(got.c!.length, 0, 'none back to the peer they came from');
  t.same(got.b![777], txs[777]);
});

t.test('garbage and oversized frames cost the sender; a banned peer is refused', async (t) => {
  const a = await net(t, 1, { limits: { maxConsensusFrameBytes: 1024 } });
  const b = await net(t, 2, { bootstrap: [bare(a)] });
  await until(() => a.peerCount() === 1, 'connected');
  const received: ConsensusMessage[] = [];
  a.consensus.onMessage((_f, m) => received.push(m));
  // Reach under the API: frames the codec cannot decode, through b's real stream to a.
  const send = (b as unknown as { send(p: unknown, k: string, payload: Uint8Array): void }).send.bind(b);
  const peerOfA = (b as unknown as { peersByKey: Map<string, unknown> }).peersByKey.values().next().value;
  for (let i = 0; i < 3; i++) send(peerOfA, 'consensus', new Uint8Array([9, 9, 9]));
  await until(() => (a.stats().dropped['undecodable-consensus'] ?? 0) === 3, 'three undecodable frames dropped');
  t.equal(received.length, 0);
  t.equal(a.peerCount(), 1, 'still connected after 60 points of penalty');
  send(peerOfA, 'consensus', new Uint8Array(2048));
  await until(() => a.stats().bans === 1, 'banned after an oversized frame');
  await until(() => a.peerCount() === 0 && b.peerCount() === 0, 'disconnected');
  await new Promise((r) => setTimeout(r, 1_500));
  t.equal(a.peerCount(), 0, 'b redials but is refused while banned');
  t.equal(encodeFrame(new Uint8Array(2)).length, 6);
});

t.test('a flood beyond the rate limit is dropped', async (t) => {
  const a = await net(t, 1, { limits: { consensusFramesPerSecond: 50, banThreshold: -1_000_000 } });
  const b = await net(t, 2, { bootstrap: [bare(a)] });
  await until(() => a.peerCount() === 1 && b.peerCount() === 1, 'connected');
  let n = 0;
  a.consensus.onMessage(() => n++);
  for (let i = 0; i < 500; i++) b.consensus.send(addressOf(1), vote);
  await until(() => n + (a.stats().dropped['rate-limited-consensus'] ?? 0) === 500, 'all 500 handled');
  t.ok(n <= 60, `at most about one second of burst got through (${n})`);
});

t.test('stop leaves nothing running', async (t) => {
  const a = await net(t, 1);
  const b = await net(t, 2, { bootstrap: [bare(a)] });
  await until(() => b.peerCount() === 1, 'connected');
  await b.stop();
  await until(() => a.peerCount() === 0, 'a sees b leave');
  t.pass();
});
