import t from 'tap';
import { layeredReader, type StateReader } from '../../node/execution/overlay.js';
import { toHex } from '../../node/protocol/bytes.js';
import { encodeVerification, requestKeyOf, verificationKey } from '../../node/protocol/verification-records.js';
import { TipView } from '../../node/verification/tip-view.js';
import { pendingRecord } from './harness.js';

/**
 * The requests a validator answers from: after the newest block it validated, back to the committed
 * state once that block is committed (or left on a dead branch below the committed head).
 */

const claims = [{ type: 'KYCCredential', constraints: { minimumLevel: 2 }, acceptZKProof: true }];
const entry = (requestId: string) => ({ key: verificationKey(requestKeyOf(requestId)), value: encodeVerification(pendingRecord('did:ledger:testnet:1111111111111111111111111', requestId, claims)) });

function world() {
  const committed = new Map([entry('committed-1')].map((e) => [toHex(e.key), e.value]));
  const committedState: StateReader = { get: async (key) => committed.get(toHex(key)) };
  const built: string[] = [];
  let height = 10;
  const view = new TipView({
    // the pending block 'b12' holds a request the committed state does not
    stateAfter: (hash) => {
      built.push(toHex(hash));
      return layeredReader(committedState, [entry('pending-1')]);
    },
    committed: () => committedState,
    committedHeight: () => height,
  });
  return { view, built, commitTo: (h: number) => void (height = h) };
}

const block = (n: number) => Uint8Array.of(n);

t.test('before any block, and once the tip is committed, it reads the committed state', async (t) => {
  const w = world();
  t.equal((await w.view.verification('committed-1'))?.status, 'pending');
  t.equal(await w.view.verification('pending-1'), undefined);
  w.view.onBlock(block(12), 12);
  t.equal((await w.view.verification('pending-1'))?.request.requestId, 'pending-1', 'after a block: that block\'s state');
  t.equal((await w.view.verification('committed-1'))?.status, 'pending', 'which reads through to the committed state');
  w.commitTo(12);
  t.equal(await w.view.verification('pending-1'), undefined, 'committed up to it: the committed state again');
});

t.test('the newest block wins, a block\'s state is built once, and waiters learn that the view moved', async (t) => {
  const w = world();
  w.view.onBlock(block(12), 12);
  await w.view.verification('pending-1');
  await w.view.verification('pending-1');
  t.same(w.built, ['0c'], 'one reader for block 12, however many lookups');
  w.view.onBlock(block(11), 11);
  await w.view.verification('pending-1');
  t.same(w.built, ['0c'], 'an older block changes nothing');
  const moved = w.view.moved();
  w.view.onBlock(block(13), 13);
  await moved;
  await w.view.verification('pending-1');
  t.same(w.built, ['0c', '0d'], 'a newer one moves the view');
});
