import t from 'tap';
import { UNIT } from '../../node/protocol/amount.js';
import { alice, bob, pool, state, transfer } from './harness.js';

t.test('hasReady: true only while a block could include a pending transaction', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT, nonce: 3n }, { key: bob, balance: UNIT }]));
  t.notOk(mp.hasReady(), 'empty');
  await mp.admit(transfer(alice, 5n));
  t.equal(mp.size, 1);
  t.notOk(mp.hasReady(), 'only a transaction behind a nonce gap');
  await mp.admit(transfer(bob, 0n));
  t.ok(mp.hasReady(), 'another sender is ready');
  await mp.admit(transfer(alice, 3n));
  t.ok(mp.hasReady(), 'alice is ready too, with her gap still open at 4');
});
