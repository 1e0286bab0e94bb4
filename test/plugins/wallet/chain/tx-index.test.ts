import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { rejection } from '../../../fixtures/wait.js';
import { ChainApp, type CommittedBlock } from '../../../../node/chain/app.js';
import { buildGenesisBlock } from '../../../../node/chain/genesis-block.js';
import {
  buildCredentialRevoke,
  buildDidCreate,
  buildStake,
  buildTransfer,
  buildUnstake,
  feeFor,
  keyPairFromSeed,
  signAndEncode,
  type UnsignedTransaction,
} from '../../../../node/client/index.js';
import { LedgerError } from '../../../../node/errors.js';
import { Mempool } from '../../../../node/mempool/index.js';
import { committedBlocks, HeadSignal } from '../../../../node/plugins/block-stream.js';
import { addressBytesFromPublicKey, addressFromPublicKey } from '../../../../node/protocol/address.js';
import { UNIT } from '../../../../node/protocol/amount.js';
import type { Block, QuorumCertificate } from '../../../../node/protocol/block.js';
import { ChainStore } from '../../../../node/state/chain-store.js';
import { openDatabase } from '../../../../node/state/db.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { TxIndex, type TxFilter, type TxRow } from '../../../../plugins/wallet/chain/tx-index.js';
import { VALIDATORS } from '../../../fixtures/chain-blocks.js';

/**
 * The index over a real one-validator chain in this process: a ChainStore on the in-memory
 * database, a real mempool and ChainApp executing client-signed transactions, the node's
 * committed-block stream. The app's clock sets each block's time, so date ranges are exact.
 */

const CHAIN = 'wallet-tx-index-test';
const NETWORK = 'testnet';
const DAY = 86_400_000;
const NOW = Date.UTC(2025, 5, 1);
const key = (b: number) => keyPairFromSeed(new Uint8Array(32).fill(b));
const alice = key(61);
const bob = key(62);
const carol = key(63);
const ALICE = addressFromPublicKey(alice.publicKey);
const BOB = addressFromPublicKey(bob.publicKey);
const CAROL = addressFromPublicKey(carol.publicKey);
const ALL: TxFilter = { dateRange: 'all', assetId: 'all', type: 'all' };

type Signer = ReturnType<typeof key>;
type Build = (base: { senderPubkey: Uint8Array; nonce: bigint }) => UnsignedTransaction;

async function chain(t: Test) {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = await ChainStore.open(db, { chainId: CHAIN });
  const accounts = [alice, bob].map((k) => ({ address: addressBytesFromPublicKey(k.publicKey), balance: 1_000n * UNIT }));
  const g = await buildGenesisBlock({ genesisTimeMs: NOW - 500 * DAY, accounts, validators: VALIDATORS });
  await store.initGenesis(g.block, g.changes, g.treeNodes);
  let clock = NOW;
  const mempool = new Mempool({ chainId: CHAIN, network: NETWORK, state: store.stateReader() });
  const app = new ChainApp({ chainId: CHAIN, network: NETWORK, store, mempool, maxBlockTransactions: 50, now: () => clock });
  const head = new HeadSignal();
  const committed: CommittedBlock[] = [];
  app.on('committed', (c: CommittedBlock) => committed.push(c));
  const nonces = new Map<Signer, bigint>();
  const qc = (b: Block): QuorumCertificate => ({ round: b.header.round, height: b.header.height, blockHash: b.hash, signers: Uint8Array.of(1), signature: new Uint8Array(96) });

  /** Admits the signed transactions, builds one block at time `atMs` and commits it; their hashes. */
  const block = async (atMs: number, txs: Array<[Signer, Build]>): Promise<string[]> => {
    clock = atMs;
    const hashes: string[] = [];
    for (const [signer, build] of txs) {
      const nonce = nonces.get(signer) ?? 0n;
      nonces.set(signer, nonce + 1n);
      const signed = signAndEncode(CHAIN, build({ senderPubkey: signer.publicKey, nonce }), signer.seed);
      await mempool.admitJson(signed.json);
      hashes.push(signed.hash);
    }
    const parent = (await store.blocks.bySeq(store.head()!.seq))!;
    const round = parent.header.round + 1;
    const b = await app.buildBlock({ parent, round, height: parent.header.height + 1, justify: qc(parent), proposer: VALIDATORS[0]!.address });
    t.equal(b.transactions.length, txs.length, 'every transaction is in the block');
    await app.commit([b], qc(b));
    await mempool.onCommitted(hashes, store.stateReader());
    head.committed();
    return hashes;
  };
  const stream = (from: number, signal: AbortSignal) => committedBlocks(store, head, from, signal);
  const pluginDb = new PluginDb(db.pluginStore('wallet'));
  const genesis: CommittedBlock = { block: (await store.blocks.bySeq(0))!, seq: 0, receipts: [] };
  return { store, block, stream, committed, genesis, pluginDb, namespace: (name: string) => new PluginDb(db.pluginStore(name)) };
}

/** The history used by most tests: five blocks, from 400 days ago to yesterday. */
async function history(t: Test) {
  const c = await chain(t);
  const [pay, did] = await c.block(NOW - 400 * DAY, [
    [alice, (b) => buildTransfer({ ...b, to: BOB, amount: 5n * UNIT })],
    [bob, (b) => buildDidCreate(b)],
  ]);
  const [stake, toCarol] = await c.block(NOW - 100 * DAY, [
    [alice, (b) => buildStake({ ...b, amount: 2n * UNIT })],
    [alice, (b) => buildTransfer({ ...b, to: CAROL, amount: UNIT })],
  ]);
  const [unstake, back, self] = await c.block(NOW - 60 * DAY, [
    [alice, (b) => buildUnstake({ ...b, amount: UNIT })],
    [bob, (b) => buildTransfer({ ...b, to: ALICE, amount: 3n * UNIT })],
    [alice, (b) => buildTransfer({ ...b, to: ALICE, amount: 7n })],
  ]);
  const [revoke] = await c.block(NOW - 10 * DAY, [[alice, (b) => buildCredentialRevoke({ ...b, credentialId: randomUUID() })]]);
  const [bobToCarol] = await c.block(NOW - DAY, [[bob, (b) => buildTransfer({ ...b, to: CAROL, amount: 2n * UNIT })]]);
  const index = new TxIndex(c.pluginDb);
  await index.applyAll([c.genesis, ...c.committed]);
  return { ...c, index, h: { pay: pay!, did: did!, stake: stake!, toCarol: toCarol!, unstake: unstake!, back: back!, self: self!, revoke: revoke!, bobToCarol: bobToCarol! } };
}

const hashes = (rows: TxRow[]) => rows.map((r) => r.hash);

t.test('a row for the sender and one for the recipient, with the fields of the real transaction and receipt', async (t) => {
  const { index, h, committed } = await history(t);
  t.equal(await index.cursor(), 6, 'genesis and five blocks');
  t.equal(await index.lag(5), 0);
  t.equal(await index.lag(9), 4);
  const first = committed[0]!;
  const out = (await index.list([ALICE], ALL, NOW)).items.find((r) => r.hash === h.pay)!;
  t.same(out, {
    hash: h.pay,
    address: ALICE,
    direction: 'out',
    type: 'send',
    kind: 'Transfer',
    assetId: 'lgr',
    amount: String(5n * UNIT),
    fee: String(feeFor('Transfer')),
    counterparty: BOB,
    from: ALICE,
    to: BOB,
    nonce: '0',
    height: first.block.header.height,
    seq: 1,
    index: 0,
    timestamp: new Date(NOW - 400 * DAY).toISOString(),
    status: 'success',
  });
  const inRow = (await index.list([BOB], ALL, NOW)).items.find((r) => r.hash === h.pay)!;
  t.match(inRow, { address: BOB, direction: 'in', type: 'receive', counterparty: ALICE, from: ALICE, to: BOB, amount: String(5n * UNIT) });
  t.same(await index.get(h.pay), out, 'by hash: the sender view');
  t.equal(await index.get('00'.repeat(32)), null);
  const carol = (await index.list([CAROL], ALL, NOW)).items;
  t.same(hashes(carol), [h.bobToCarol, h.toCarol], 'an account that never sent still has its incoming history');
});

t.test('types from the payload kinds; a self-transfer is one self row; a failed transaction is marked failed', async (t) => {
  const { index, h } = await history(t);
  const rows = (await index.list([ALICE], ALL, NOW)).items;
  const by = new Map(rows.map((r) => [r.hash, r]));
  t.same(hashes(rows), [h.revoke, h.self, h.back, h.unstake, h.toCarol, h.stake, h.pay], 'newest first by seq then index');
  t.match(by.get(h.stake), { type: 'stake', direction: 'out', kind: 'Stake', amount: String(2n * UNIT), to: null, counterparty: null, fee: String(feeFor('Stake')) });
  t.match(by.get(h.unstake), { type: 'unstake', kind: 'Unstake', amount: String(UNIT) });
  t.match(by.get(h.self), { type: 'send', direction: 'self', from: ALICE, to: ALICE, amount: '7' });
  t.equal(rows.filter((r) => r.hash === h.self).length, 1, 'one row for a transfer to oneself');
  t.match(by.get(h.back), { type: 'receive', direction: 'in', counterparty: BOB });
  const revoke = by.get(h.revoke)!;
  t.match(revoke, { type: 'credential', kind: 'CredentialRevoke', status: 'failed', error: /^no credential urn:ledger:credential:/, amount: null, fee: String(feeFor('CredentialRevoke')) });
  t.notOk('error' in by.get(h.pay)!, 'no error on success');
  t.match((await index.list([BOB], ALL, NOW)).items.find((r) => r.hash === h.did), { type: 'did', kind: 'DidCreate', direction: 'out', amount: null });
});

t.test('filters: date range against `now`, type, asset, search', async (t) => {
  const { index, h } = await history(t);
  const list = async (f: Partial<TxFilter>, addresses = [ALICE], now = NOW) => hashes((await index.list(addresses, { ...ALL, ...f }, now)).items);
  t.same(await list({ dateRange: '30d' }), [h.revoke]);
  t.same(await list({ dateRange: '90d' }), [h.revoke, h.self, h.back, h.unstake]);
  t.same(await list({ dateRange: '1y' }), [h.revoke, h.self, h.back, h.unstake, h.toCarol, h.stake]);
  t.same(await list({ dateRange: '30d' }, [ALICE], NOW + 30 * DAY), [], 'the range is relative to now');
  t.same(await list({ type: 'send' }), [h.self, h.toCarol, h.pay]);
  t.same(await list({ type: 'receive' }), [h.self, h.back], 'a self-transfer is a send and a receive');
  t.same(await list({ type: 'stake' }), [h.stake]);
  t.same(await list({ type: 'unstake' }), [h.unstake]);
  t.same(await list({ type: 'credential' }), [h.revoke]);
  t.same(await list({ type: 'send', dateRange: '90d' }), [h.self]);
  t.same(await list({ assetId: 'lgr' }), await list({}));
  t.same(await list({ assetId: 'eth' }), [], 'the index holds ledger rows only');
  t.same(await list({ search: h.back.slice(10, 30).toUpperCase() }), [h.back], 'a substring of the hash, any case');
  t.same(await list({ search: CAROL.slice(3, 12).toLowerCase() }), [h.toCarol], 'a part of the counterparty');
  t.same(await list({ search: 'unSTAKE' }), [h.unstake], 'the payload kind');
  t.same(await list({ search: 'credentialrevoke', type: 'send' }), []);
  t.same(await list({ search: '   ' }), await list({}), 'a blank search is no search');
  t.same(await list({}, []), [], 'no addresses, no rows');
});

t.test('several addresses merge newest first; a transfer between them is one self row', async (t) => {
  const { index, h } = await history(t);
  const rows = (await index.list([BOB, ALICE, BOB], ALL, NOW)).items;
  t.same(hashes(rows), [h.bobToCarol, h.revoke, h.self, h.back, h.unstake, h.toCarol, h.stake, h.did, h.pay]);
  t.match(rows.find((r) => r.hash === h.pay), { direction: 'self', address: ALICE, from: ALICE, to: BOB, type: 'send' });
  t.match(rows.find((r) => r.hash === h.back), { direction: 'self', address: BOB, from: BOB, to: ALICE });
  const received = (await index.list([ALICE, BOB], { ...ALL, type: 'receive' }, NOW)).items;
  t.same(hashes(received), [h.self, h.back, h.pay], 'between own accounts: both a send and a receive');
});

t.test('pages: the cursor walks the whole history once; limits and bad cursors are refused', async (t) => {
  const { index } = await history(t);
  const all = hashes((await index.list([ALICE, BOB, CAROL], { ...ALL, limit: 100 }, NOW)).items);
  t.equal(all.length, 9, 'a transfer among the three is one row');
  t.equal(new Set(all).size, all.length, 'no duplicate');
  for (const limit of [1, 2, 4, 8, 9, 10]) {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await index.list([ALICE, BOB, CAROL], { ...ALL, limit, ...(cursor ? { cursor } : {}) }, NOW);
      t.ok(page.items.length <= limit);
      seen.push(...hashes(page.items));
      cursor = page.nextCursor ?? undefined;
      if (cursor) t.match(cursor, /^[A-Za-z0-9_-]+$/, 'base64url');
      pages++;
    } while (cursor && pages < 20);
    t.same(seen, all, `limit ${limit}: the same rows in the same order`);
    t.equal(pages, Math.ceil(all.length / limit), `limit ${limit}: no empty last page`);
  }
  const filtered = await index.list([ALICE], { ...ALL, type: 'send', limit: 2 }, NOW);
  const rest = await index.list([ALICE], { ...ALL, type: 'send', limit: 2, cursor: filtered.nextCursor! }, NOW);
  t.equal(filtered.items.length + rest.items.length, 3);
  t.equal(rest.nextCursor, null);
  t.equal((await index.list([ALICE], { ...ALL }, NOW)).nextCursor, null, 'a single page has no next cursor');
  t.equal((await index.list([ALICE], { ...ALL, limit: undefined }, NOW)).items.length, 7, 'default limit 20');

  const bad = [
    'not a cursor!',
    Buffer.from('1.2').toString('base64url'),
    Buffer.from(`x.0.${ALICE}`).toString('base64url'),
    Buffer.from(`01.0.${ALICE}`).toString('base64url'),
    Buffer.from('1.0.notanaddress').toString('base64url'),
    Buffer.from(`1.0.${ALICE}`).toString('base64url') + '=',
    '',
  ];
  for (const cursor of bad) {
    const err = await rejection(index.list([ALICE], { ...ALL, cursor }, NOW), LedgerError);
    t.match({ code: err.code, kind: err.kind }, { code: 'CURSOR_INVALID', kind: 'invalid' }, JSON.stringify(cursor));
  }
  for (const limit of [0, 101, 1.5]) t.equal((await rejection(index.list([ALICE], { ...ALL, limit }, NOW), LedgerError)).code, 'LIMIT_INVALID', `limit ${limit}`);
});

t.test('applyAll refuses a gap or a repeat and writes nothing then', async (t) => {
  const { committed, genesis, namespace } = await history(t);
  const index = new TxIndex(namespace('fresh'));
  const gap = await rejection(index.applyAll([genesis, committed[1]!]), LedgerError);
  t.match({ code: gap.code, data: gap.data }, { code: 'TX_INDEX_SEQ_GAP', data: { expected: 1, got: 2 } });
  t.equal(await index.cursor(), 0, 'the cursor did not move');
  t.same((await index.list([ALICE, BOB], ALL, NOW)).items, [], 'no row of the refused batch was written');
  await index.applyAll([genesis, committed[0]!]);
  t.equal((await rejection(index.applyAll([committed[0]!]), LedgerError)).code, 'TX_INDEX_SEQ_GAP', 'a block already indexed');
  t.equal(await index.cursor(), 2);
  t.equal((await index.list([ALICE], ALL, NOW)).items.length, 1);
});

/** Waits until the index's stored cursor reaches `seq`. */
async function until(index: TxIndex, pluginDb: PluginDb, seq: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (((await pluginDb.json<number>('tx-meta').get('cursor')) ?? 0) >= seq && (await index.cursor()) >= seq) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the index did not reach seq ${seq}`);
}

t.test('run follows the stream; a new index on the same store resumes at the cursor with no gap or duplicate', async (t) => {
  const c = await chain(t);
  const expected: string[] = [];
  for (let i = 0; i < 4; i++) expected.push(...(await c.block(NOW - (50 - i) * DAY, [[alice, (b) => buildTransfer({ ...b, to: BOB, amount: BigInt(i + 1) })]])));
  const progress: number[] = [];
  const first = new TxIndex(c.pluginDb, { maxGroup: 2, onProgress: (n) => progress.push(n) });
  const stop1 = new AbortController();
  const run1 = first.run(c.stream, stop1.signal);
  await until(first, c.pluginDb, 5);
  t.same(progress.at(-1), 5);
  t.ok(progress.every((n, i) => n > (progress[i - 1] ?? 0) && n - (progress[i - 1] ?? 0) <= 2), 'groups of at most maxGroup blocks, in order');
  expected.push(...(await c.block(NOW - 40 * DAY, [[bob, (b) => buildTransfer({ ...b, to: ALICE, amount: 9n })]])));
  await until(first, c.pluginDb, 6);
  t.same(progress.at(-1), 6, 'a live block is indexed as it commits');
  stop1.abort();
  await run1;

  for (let i = 0; i < 3; i++) expected.push(...(await c.block(NOW - (30 - i) * DAY, [[alice, (b) => buildStake({ ...b, amount: BigInt(i + 1) })]])));
  const second = new TxIndex(c.pluginDb);
  t.equal(await second.cursor(), 6, 'the stored cursor');
  const stop2 = new AbortController();
  const run2 = second.run(c.stream, stop2.signal);
  await until(second, c.pluginDb, 9);
  stop2.abort();
  await run2;
  const rows = (await second.list([ALICE], { ...ALL, limit: 100 }, NOW)).items;
  t.same(hashes(rows), [...expected].reverse(), 'every transaction once, newest first');
  t.equal((await second.list([BOB], { ...ALL, limit: 100 }, NOW)).items.length, 5);
});

t.test('run logs a failure and resumes from the stored cursor', async (t) => {
  const c = await chain(t);
  await c.block(NOW - 3 * DAY, [[alice, (b) => buildTransfer({ ...b, to: BOB, amount: 1n })]]);
  await c.block(NOW - 2 * DAY, [[alice, (b) => buildTransfer({ ...b, to: BOB, amount: 2n })]]);
  const errors: unknown[] = [];
  const index = new TxIndex(c.pluginDb, { log: { error: (o) => errors.push(o) }, retryMs: 5 });
  const starts: number[] = [];
  // the first stream skips a block: the index refuses it, logs, and asks again from its cursor
  const stream = (from: number, signal: AbortSignal) => {
    starts.push(from);
    return c.stream(starts.length === 1 ? from + 1 : from, signal);
  };
  const stop = new AbortController();
  const run = index.run(stream, stop.signal);
  await until(index, c.pluginDb, 3);
  stop.abort();
  await run;
  t.same(starts, [0, 0]);
  t.equal(errors.length, 1);
  t.match(errors[0], { err: { code: 'TX_INDEX_SEQ_GAP' }, from_seq: 0 });
  t.equal((await index.list([BOB], ALL, NOW)).items.length, 2);
});
