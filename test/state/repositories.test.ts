import t from 'tap';
import { toHex } from '../../node/protocol/bytes.js';
import { didKey, encodeDid, encodeValidator, validatorKey, type DidRecord, type ValidatorRecord } from '../../node/protocol/records.js';
import { ChainStore } from '../../node/state/chain-store.js';
import { openDatabase } from '../../node/state/db.js';
import { u64Key } from '../../node/state/repositories.js';
import { BIG, COUNTER, genesis, nextBlock, VALIDATORS } from '../fixtures/chain-blocks.js';

async function store(t: { teardown(fn: () => unknown): void }): Promise<ChainStore> {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const s = await ChainStore.open(db, { chainId: 'repo-test' });
  const g = await genesis();
  await s.initGenesis(g.block, g.changes, g.treeNodes);
  return s;
}

t.test('u64Key orders numerically and refuses non-indexes', async (t) => {
  t.equal(toHex(u64Key(0)), '0000000000000000');
  t.equal(toHex(u64Key(258)), '0000000000000102');
  t.ok(Buffer.compare(u64Key(255), u64Key(256)) < 0);
  t.throws(() => u64Key(-1));
  t.throws(() => u64Key(1.5));
});

t.test('AccountRepository: stored accounts and the empty default', async (t) => {
  const s = await store(t);
  t.same(await s.accounts.get(COUNTER), { balance: 0n, nonce: 0n });
  t.same(await s.accounts.get(new Uint8Array(20).fill(0xab)), { balance: 0n, nonce: 0n });
  await s.commitBlock(await nextBlock(s));
  t.equal((await s.accounts.get(COUNTER)).balance, 1n);
  await t.rejects(s.accounts.get(new Uint8Array(19)), { code: 'BAD_STATE_KEY' });
});

t.test('ValidatorRepository: get, and list in key order with exact bigint stakes', async (t) => {
  const s = await store(t);
  const list = await s.validators.list();
  t.same(
    list.map((v) => toHex(v.address)),
    [...VALIDATORS].map((v) => toHex(v.address)).sort(),
    'ascending address order, not genesis order',
  );
  for (const { address, validator } of list) {
    const g = VALIDATORS.find((v) => toHex(v.address) === toHex(address))!;
    t.equal(validator.staked, g.stake);
    t.equal(validator.active, true);
    t.equal(toHex(validator.ed25519PublicKey), toHex(g.ed25519PublicKey));
  }
  t.equal((await s.validators.get(VALIDATORS[0]!.address))?.staked, VALIDATORS[0]!.stake);
  t.equal(await s.validators.get(COUNTER), undefined, 'an account is not a validator');

  // A validator added by a block, with an address below the others, lists first.
  const low = new Uint8Array(20).fill(0x01);
  const record: ValidatorRecord = { staked: BIG, unbonding: [{ amount: 5n, releaseMs: 99 }], reputation: 1000, active: false, ed25519PublicKey: new Uint8Array(0), blsPublicKey: new Uint8Array(0) };
  await s.commitBlock(await nextBlock(s, { puts: [{ key: validatorKey(low), value: encodeValidator(record) }] }));
  const after = await s.validators.list();
  t.equal(after.length, 3);
  t.equal(toHex(after[0]!.address), toHex(low));
  t.equal(after[0]!.validator.staked, BIG);
  t.same(after[0]!.validator.unbonding, [{ amount: 5n, releaseMs: 99 }]);
});

t.test('DidRepository: by 20-byte identifier', async (t) => {
  const s = await store(t);
  const id = new Uint8Array(20).fill(0x44);
  t.equal(await s.dids.get(id), undefined);
  const did: DidRecord = {
    did: 'did:ledger:testnet:abc',
    publicKey: new Uint8Array(32).fill(5),
    service: [{ id: '#relay', type: 'DIDCommMessaging', serviceEndpoint: 'https://relay.example' }],
    active: true,
    createdMs: 1_001,
    updatedMs: 1_001,
    versionId: 1,
    txHash: new Uint8Array(32).fill(6),
  };
  await s.commitBlock(await nextBlock(s, { puts: [{ key: didKey(id), value: encodeDid(did) }] }));
  const got = await s.dids.get(id);
  t.equal(got?.did, did.did);
  t.same(got?.service, did.service);
  t.equal(toHex(got!.publicKey!), toHex(did.publicKey!));
  t.equal(got?.versionId, 1);
});

t.test('BlockRepository: missing entries read as undefined; latest follows commits', async (t) => {
  const s = await store(t);
  t.equal(await s.blocks.bySeq(1), undefined);
  t.equal(await s.blocks.byHash(new Uint8Array(32)), undefined);
  t.equal(toHex((await s.blocks.byHeight(0))!.hash), toHex(s.genesisHash!));
  t.equal((await s.blocks.latest())?.seq, 0);
  for (let i = 0; i < 300; i++) await s.commitBlock(await nextBlock(s, { fillers: 0, txs: 0 }));
  const latest = await s.blocks.latest();
  t.equal(latest?.seq, 300, 'numeric, not lexicographic, order past 255');
  t.equal(toHex(latest!.block.hash), toHex(s.head()!.hash));
  t.equal(toHex((await s.blocks.hashBySeq(256))!), toHex((await s.blocks.bySeq(256))!.hash));
});

t.test('BlockRepository.bySeqs and ReceiptRepository.byTxHashes: many in one read, undefined where missing', async (t) => {
  const s = await store(t);
  const args = await nextBlock(s, { txs: 3 });
  await s.commitBlock(args);
  await s.commitBlock(await nextBlock(s, { txs: 0 }));
  const got = await s.blocks.bySeqs([2, 0, 9, 1]);
  t.same(
    got.map((b) => b && toHex(b.hash)),
    [toHex(s.head()!.hash), toHex(s.genesisHash!), undefined, toHex(args.block.hash)],
  );
  t.same(await s.blocks.bySeqs([]), []);
  const receipts = await s.receipts.byTxHashes([args.receipts[2]!.tx_hash, 'ab'.repeat(32), args.receipts[0]!.tx_hash]);
  t.same(receipts, [args.receipts[2], undefined, args.receipts[0]]);
  t.same(await s.receipts.byTxHashes([]), []);
  await t.rejects(s.receipts.byTxHashes(['xyz']), { code: 'BAD_HEX' });
});

t.test('ReceiptRepository and TxIndexRepository: by tx hash, bigints exact', async (t) => {
  const s = await store(t);
  const args = await nextBlock(s, { txs: 3 });
  await s.commitBlock(args);
  for (const r of args.receipts) {
    const got = await s.receipts.byTxHash(r.tx_hash);
    t.same(got, r);
    t.equal(got?.fee_paid, r.fee_paid);
    t.same(await s.txIndex.get(r.tx_hash), { seq: 1, index: r.tx_index });
  }
  t.equal(await s.receipts.byTxHash('ab'.repeat(32)), undefined);
  t.equal(await s.txIndex.get('ab'.repeat(32)), undefined);
  await t.rejects(s.receipts.byTxHash('xyz'), { code: 'BAD_HEX' });
});
