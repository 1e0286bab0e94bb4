import t from 'tap';
import type { CommittedBlock } from '../../../node/chain/app.js';
import { keyPairFromSeed, type Ed25519KeyPair } from '../../../node/crypto/ed25519.js';
import { addressBytesFromPublicKey, addressFromPublicKey } from '../../../node/protocol/address.js';
import { SUCCESS } from '../../../node/protocol/receipt.js';
import { openDatabase } from '../../../node/state/db.js';
import { CATCH_UP_GROUP, CATCH_UP_TXS, indexBlocks } from '../../../plugins/explorer/indexing.js';
import type { Indexed } from '../../../plugins/explorer/rows.js';
import { Indexer } from '../../../plugins/explorer/store/level/indexer.js';
import { scan } from '../../../plugins/explorer/store/level/layout.js';
import { committedChain, type TxSpec } from './committed-chain.js';

const CHAIN = 'indexer-test';
const NETWORK = 'testnet';
const [a, b, c] = [1, 2, 3].map((n) => keyPairFromSeed(new Uint8Array(32).fill(n))) as [Ed25519KeyPair, Ed25519KeyPair, Ed25519KeyPair];
const did = `did:ledger:${NETWORK}:${addressFromPublicKey(c!.publicKey)}`;

type Spec = TxSpec;

const transfer = (from: typeof a, to: typeof a, status = SUCCESS): Spec => ({ from, payload: { kind: 'Transfer', to: addressBytesFromPublicKey(to!.publicKey), amount: 5n }, status });

/** Blocks from seq 0 with these transactions, at even heights (the signature is not checked: a fixed key signs). */
function chain(blocks: Spec[][], sign = true): CommittedBlock[] {
  return committedChain(CHAIN, blocks, { proposer: addressBytesFromPublicKey(a!.publicKey), height: (seq) => seq * 2, timestampMs: (seq) => 1_000_000 + seq * 1_000, sign });
}

/** Twelve blocks where the same addresses recur, a self-transfer, a failure, and a DID created then deactivated. */
const BLOCKS = chain([
  [],
  [transfer(a, b), transfer(b, a)],
  [transfer(a, a), transfer(c, b)],
  [{ from: c, payload: { kind: 'DidCreate', service: [] }, events: [{ type: 'DidCreated', did }] }],
  [transfer(a, b, 'failed: insufficient balance'), transfer(a, c)],
  [],
  [transfer(b, c), transfer(c, a), transfer(a, b)],
  [transfer(c, c, SUCCESS)],
  [{ ...transfer(c, b), events: [{ type: 'DidDeactivated', did }] }],
  [transfer(b, a)],
  [transfer(a, b), transfer(a, b), transfer(a, b)],
  [transfer(b, c)],
]);

async function indexed(groups: number[][]): Promise<{ rows: Indexed[]; stored: Array<[string, string]> }> {
  const db = await openDatabase('memory');
  try {
    const store = db.pluginStore('explorer');
    const indexer = new Indexer({ store, network: NETWORK, credential: () => Promise.resolve(undefined), now: () => new Date(1_700_000_000_000) });
    const rows: Indexed[] = [];
    for (const g of groups) rows.push(...(await indexer.applyAll(g.map((seq) => BLOCKS[seq]!))));
    const stored: Array<[string, string]> = [];
    for await (const kv of scan(store, '', '\xff')) stored.push(kv);
    return { rows, stored };
  } finally {
    await db.close();
  }
}

const seqs = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

t.test('catching up in groups writes exactly what indexing block by block writes', async (t) => {
  const one = await indexed(seqs(0, 11).map((s) => [s]));
  const groups = await indexed([seqs(0, 4), seqs(5, 5), seqs(6, 11)]);
  const all = await indexed([seqs(0, 11)]);
  t.same(groups.stored, one.stored, 'three groups');
  t.same(all.stored, one.stored, 'one group');
  t.same(all.rows, one.rows, 'the rows the feed gets');

  const stored = new Map(one.stored);
  const keys = (prefix: string) => one.stored.filter(([k]) => k.startsWith(prefix)).map(([k]) => k);
  t.equal(stored.get('cursor'), '12');
  t.equal(stored.get('count:txs'), String(keys('tx:').length));
  t.equal(stored.get('count:txs'), '17');
  t.equal(stored.get('count:blocks'), '12');
  t.equal(stored.get('count:senders'), '3');
  t.equal(stored.get('count:addresses'), '3');
  const rows = keys('addr:').map((k) => JSON.parse(stored.get(k)!) as { address: string; tx_count: number; did: string | null });
  t.same(
    keys('addrcount:'),
    rows.map((r) => `addrcount:${String(r.tx_count).padStart(12, '0')}:${r.address}`).sort(),
    'one sort entry per address, at its count',
  );
  for (const r of rows) {
    t.equal(keys(`txaddr:${r.address}:`).length, r.tx_count, 'a self-transfer counts once');
    t.equal(stored.get(`count:txaddr:${r.address}`), String(r.tx_count));
  }
  t.same(rows.find((r) => r.address === addressFromPublicKey(c!.publicKey))?.did, did);
  t.match(JSON.parse(stored.get(`did:${did}`)!), { did, active: false, public_key: null });
  t.equal(stored.get('count:dids_active'), '0');
  t.match(JSON.parse(stored.get(`tx:${BLOCKS[4]!.receipts[0]!.tx_hash}`)!), { status: 'failed', error_reason: 'insufficient balance', amount: '5', fee: '10' });
});

t.test('a batch that does not start at the cursor writes nothing; the next indexer resumes at the cursor', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = db.pluginStore('explorer');
  const open = () => new Indexer({ store, network: NETWORK, credential: () => Promise.resolve(undefined) });
  const dump = async () => {
    const out: Array<[string, string]> = [];
    for await (const kv of scan(store, '', '\xff')) out.push(kv);
    return out;
  };
  await open().applyAll(BLOCKS.slice(0, 3));
  const before = await dump();
  await t.rejects(open().applyAll([BLOCKS[3]!, BLOCKS[5]!]), /expects seq 4, got 5/);
  await t.rejects(open().applyAll([BLOCKS[4]!]), /expects seq 3, got 4/);
  t.same(await dump(), before, 'nothing written');
  const next = open();
  t.equal(await next.cursor(), 3);
  await next.applyAll(BLOCKS.slice(3));
  t.equal(await next.cursor(), 12);
});

t.test('behind the head, blocks go in groups of at most CATCH_UP_GROUP blocks or about CATCH_UP_TXS transactions', async (t) => {
  async function groups(blocks: CommittedBlock[], head: number): Promise<number[]> {
    const db = await openDatabase('memory');
    try {
      const indexer = new Indexer({ store: db.pluginStore('explorer'), network: NETWORK, credential: () => Promise.resolve(undefined) });
      const ends: number[] = [];
      async function* stream() {
        yield* blocks;
      }
      await indexBlocks(indexer, stream(), (seq) => seq < head, (_, next) => {
        if (ends.at(-1) !== next) ends.push(next);
      });
      return ends;
    } finally {
      await db.close();
    }
  }
  const small = chain(Array.from({ length: CATCH_UP_GROUP + 6 }, () => [transfer(a, b)]), false);
  t.same(await groups(small, small.length - 1), [CATCH_UP_GROUP, small.length], 'a full group, then the rest with the head block');
  t.same(await groups(small.slice(0, 10), 4), [5, 6, 7, 8, 9, 10], 'at the head, one block at a time');
  const per = Math.ceil(CATCH_UP_TXS / 3);
  const big = chain(Array.from({ length: 5 }, () => Array.from({ length: per }, () => transfer(b, c))), false);
  t.same(await groups(big, 4), [3, 5], 'large blocks: fewer per group');
});
