import t from 'tap';
import { BACKLOG_BUSY } from '../../../node/verification/defaults.js';
import { setup } from './harness.js';

/** Verification work is answered busy, never dropped, while this validator's committee checks are backlogged. */

t.test('past the backlog bound, new requests and presentations are busy with a retry delay; below it they are judged', async (t) => {
  let backlog = BACKLOG_BUSY;
  const { call } = await setup(t, { presentations: { precheck: async () => undefined, submit: () => ({ peers: 0, answeringHere: true }), backlog: () => backlog } });
  for (const method of ['ledger_submitVerificationRequest', 'ledger_submitPresentation']) {
    const busy = await call(method, [{}]);
    t.match(busy.error, { code: -32010, data: { code: 'VERIFICATION_BACKLOG', reason: 'verification_backlog', backlog: BACKLOG_BUSY, limit: BACKLOG_BUSY, retryAfterMs: 1000 } }, method);
  }
  backlog = BACKLOG_BUSY - 1;
  for (const method of ['ledger_submitVerificationRequest', 'ledger_submitPresentation']) {
    const judged = await call(method, [{}]);
    t.equal(judged.error?.code, -32602, `${method}: the empty object is refused for what it is`);
  }
});

t.test('the bound is the operator\'s (config verification.backlogBusy)', async (t) => {
  const { call } = await setup(t, { presentations: { precheck: async () => undefined, submit: () => ({ peers: 0, answeringHere: true }), backlog: () => 5 }, verificationBacklogBusy: 5 });
  const busy = await call('ledger_submitPresentation', [{}]);
  t.match(busy.error, { code: -32010, data: { code: 'VERIFICATION_BACKLOG', backlog: 5, limit: 5 } });
});
