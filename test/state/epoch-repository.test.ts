import t from 'tap';
import { encodeValidatorSet, VALIDATOR_SET_KEY, type ValidatorSetRecord } from '../../node/protocol/records.js';
import { openDatabase } from '../../node/state/db.js';
import { EpochRepository } from '../../node/state/epoch-repository.js';

/** The archive of validator sets by epoch, on the in-memory database. */

/** a set by its encoding: what the archive stores, whatever array type decoding gives */
const hex = (s: ValidatorSetRecord | undefined) => (s === undefined ? undefined : Buffer.from(encodeValidatorSet(s)).toString('hex'));
const set = (epoch: number, weight = 1n): ValidatorSetRecord => ({ epoch, firstHeight: epoch * 10, length: 10, validators: [{ address: new Uint8Array(20).fill(1), blsPublicKey: new Uint8Array(48).fill(2), weight }] });

t.test('sets are kept by epoch from the state changes that write them, and found by height', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const epochs = new EpochRepository(db.epochs);
  t.equal(await epochs.atHeight(5), undefined, 'nothing kept yet');
  for (const e of [0, 1, 3]) await db.root.batch(epochs.putOps([{ key: VALIDATOR_SET_KEY, value: encodeValidatorSet(set(e, BigInt(e + 1))) }]));
  t.same(epochs.putOps([{ key: VALIDATOR_SET_KEY, value: null }, { key: Uint8Array.of(1, 2), value: new Uint8Array(3) }]), [], 'other changes are not kept');
  t.equal(hex(await epochs.atHeight(0)), hex(set(0, 1n)));
  t.equal(hex(await epochs.atHeight(9)), hex(set(0, 1n)));
  t.equal(hex(await epochs.atHeight(10)), hex(set(1, 2n)));
  t.equal(hex(await epochs.atHeight(25)), hex(set(1, 2n)), 'epoch 2 carried epoch 1 over (no new set was written)');
  t.equal(hex(await epochs.atHeight(30)), hex(set(3, 4n)));
  t.equal(hex(await epochs.atHeight(1_000)), hex(set(3, 4n)), 'the latest for any later height');
  t.equal(hex(await epochs.earliest()), hex(set(0, 1n)));
});

t.test('a store from before sets were kept keeps the current one when opened', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const epochs = new EpochRepository(db.epochs);
  await epochs.keepCurrent(encodeValidatorSet(set(4)));
  await epochs.keepCurrent(encodeValidatorSet(set(5)));
  t.equal(hex(await epochs.earliest()), hex(set(4)), 'once: an archive that holds a set is left as it is');
  t.equal(await epochs.atHeight(39), undefined, 'heights before it are not known');
  t.equal(hex(await epochs.atHeight(40)), hex(set(4)));
});
