import { EventEmitter } from 'node:events';
import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { createLogger } from '../../node/logging.js';
import { connectMempoolGossip, LEADER_FANOUT } from '../../node/mempool/gossip.js';
import { P2PNetwork } from '../../node/network/index.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { bytesEqual } from '../../node/protocol/bytes.js';
import type { Block } from '../../node/protocol/block.js';
import { encodeTransaction, transactionHash } from '../../node/protocol/transaction.js';
import { alice, CHAIN, pool, state, transfer } from './harness.js';

/**
 * Two validators and a full node on real libp2p over loopback, each with its own mempool:
 * F -- V1 -- V2 (the full node knows only V1).
 */

const log = createLogger({ level: 'silent' });
const seeds = { v1: 11, v2: 12, f: 13, v3: 14 } as const;
const addr = (n: number) => addressBytesFromPublicKey(keyPairFromSeed(new Uint8Array(32).fill(n)).publicKey);
const validators = [addr(seeds.v1), addr(seeds.v2), addr(seeds.v3)];
const isValidator = (a: Uint8Array) => validators.some((v) => bytesEqual(v, a));

/** `leaders`: what the node's consensus engine would name as the coming leaders (none: not started) */
async function node(t: { teardown(fn: () => unknown): void }, n: number, bootstrap: string[], leaders: Uint8Array[] = []) {
  const network = await P2PNetwork.create({ chainId: CHAIN, seed: new Uint8Array(32).fill(n), host: '127.0.0.1', port: 0, bootstrap, log });
  t.teardown(() => network.stop());
  const mempool = pool(state([{ key: alice, balance: 10n ** 12n, nonce: 5n }]));
  const asked: number[] = [];
  /** stands in for the consensus engine's 'round' and 'block' events */
  const rounds = new EventEmitter();
  const resent: number[] = [];
  connectMempoolGossip({ chainId: CHAIN, mempool, gossip: network, isValidator, upcomingLeaders: (k) => (asked.push(k), [...leaders]), rounds, onResent: (k) => resent.push(k), log });
  return { network, mempool, asked, rounds, leaders, resent };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('client transactions reach every mempool; validators forward only what a full node sent', async (t) => {
  const v1 = await node(t, seeds.v1, []);
  const v2 = await node(t, seeds.v2, [v1.network.listenAddrs()[0]!]);
  const f = await node(t, seeds.f, [v1.network.listenAddrs()[0]!]);
  await until(() => v1.network.peerCount() === 2 && v2.network.peerCount() === 1 && f.network.peerCount() === 1, 'the topology');

  const fromV2 = transfer(alice, 5n);
  await v2.mempool.admit(fromV2);
  const h2 = transactionHash(CHAIN, fromV2);
  await until(() => v1.mempool.has(h2), 'V2 -> V1');
  await new Promise((r) => setTimeout(r, 200));
  t.notOk(f.mempool.has(h2), 'V1 does not forward what a validator sent (the validators are a full mesh)');

  const fromF = transfer(alice, 6n, 2n);
  await f.mempool.admit(fromF);
  const hf = transactionHash(CHAIN, fromF);
  await until(() => v1.mempool.has(hf) && v2.mempool.has(hf), 'F -> V1 -> V2');
  t.pass('a full node reaches validators it is not connected to, through one it is');
});

t.test('with leaders known, a client transaction goes to the coming leaders and to full nodes, not to every validator', async (t) => {
  const v1 = await node(t, seeds.v1, [], [addr(seeds.v2)]);
  const v2 = await node(t, seeds.v2, [v1.network.listenAddrs()[0]!]);
  const v3 = await node(t, seeds.v3, [v1.network.listenAddrs()[0]!]);
  const f = await node(t, seeds.f, [v1.network.listenAddrs()[0]!]);
  await until(() => v1.network.peerCount() === 3, 'V1 connected to V2, V3 and F');

  const fromClient = transfer(alice, 5n);
  await v1.mempool.admit(fromClient);
  const h = transactionHash(CHAIN, fromClient);
  await until(() => v2.mempool.has(h) && f.mempool.has(h), 'V1 -> the leader V2 and the full node F');
  t.same(v1.asked, [LEADER_FANOUT], 'asked for the coming leaders');
  await new Promise((r) => setTimeout(r, 200));
  t.notOk(v3.mempool.has(h), 'V3 leads none of the coming rounds: the proposal will bring it');

  const viaFull = transfer(alice, 6n, 2n);
  await f.mempool.admit(viaFull);
  const hf = transactionHash(CHAIN, viaFull);
  await until(() => v2.mempool.has(hf), 'F -> V1 -> the leader V2');
  await new Promise((r) => setTimeout(r, 200));
  t.notOk(v3.mempool.has(hf), 'a full node\'s transaction is forwarded to the leaders only');
});

t.test('a bad signature costs the sender; a stale nonce does not', async (t) => {
  const v1 = await node(t, seeds.v1, []);
  const f = await node(t, seeds.f, [v1.network.listenAddrs()[0]!]);
  await until(() => v1.network.peerCount() === 1, 'connected');
  const stale = transfer(alice, 1n);
  f.network.gossipTransactions([encodeTransaction(stale)]);
  const forged = { ...transfer(alice, 5n), signature: new Uint8Array(64).fill(3) };
  await new Promise((r) => setTimeout(r, 300));
  t.equal(v1.network.stats().penalties, 0, 'NONCE_TOO_LOW is no fault of an honest peer');
  f.network.gossipTransactions([encodeTransaction(forged)]);
  await until(() => v1.network.stats().penalties === 1, 'the penalty');
  t.notOk(v1.mempool.has(transactionHash(CHAIN, forged)));
  f.network.gossipTransactions([new Uint8Array([1, 2, 3])]);
  await until(() => v1.network.stats().penalties === 2, 'a second penalty for an undecodable transaction');
});

t.test('a client transaction no block carried goes again to the leaders of two rounds later', async (t) => {
  // the coming leader is V3, which is down: the transaction reaches no one
  const v1 = await node(t, seeds.v1, [], [addr(seeds.v3)]);
  const v2 = await node(t, seeds.v2, [v1.network.listenAddrs()[0]!]);
  await until(() => v1.network.peerCount() === 1, 'V1 connected to V2');
  v1.rounds.emit('round', { round: 10 });

  const missed = transfer(alice, 5n);
  const carried = transfer(alice, 6n, 2n);
  await v1.mempool.admit(missed);
  await v1.mempool.admit(carried);
  const h = transactionHash(CHAIN, missed);
  const hc = transactionHash(CHAIN, carried);
  v1.leaders.splice(0, 1, addr(seeds.v2));
  v1.rounds.emit('block', { transactions: [carried] } as unknown as Block);
  v1.rounds.emit('round', { round: 11 });
  await new Promise((r) => setTimeout(r, 200));
  t.notOk(v2.mempool.has(h), 'not yet: the leaders it went to may still propose it');

  v1.rounds.emit('round', { round: 12, via: 'tc' });
  await new Promise((r) => setTimeout(r, 200));
  t.notOk(v2.mempool.has(h), 'not after a timeout: the next leader gets no burst of old transactions');

  v1.rounds.emit('round', { round: 13, via: 'qc' });
  await until(() => v2.mempool.has(h), 'V1 -> the new leader V2');
  await new Promise((r) => setTimeout(r, 200));
  t.notOk(v2.mempool.has(hc), 'one a block carried is not sent again');
  t.same(v1.resent, [1], 'counted for the metric');
});
