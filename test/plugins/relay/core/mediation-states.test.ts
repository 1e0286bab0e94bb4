import t from 'tap';
import { operatorTransition, requestTransition, type OperatorAction } from '../../../../plugins/relay/core/mediation-states.js';
import { MEDIATION_STATES, type MediationState } from '../../../../plugins/relay/store/types.js';

t.test('operator transitions: the whole table', async (t) => {
  const expected: Record<OperatorAction, Partial<Record<MediationState, MediationState>>> = {
    grant: { requested: 'granted', denied: 'granted', revoked: 'granted' },
    deny: { requested: 'denied' },
    revoke: { granted: 'revoked' },
  };
  for (const action of ['grant', 'deny', 'revoke'] as const) {
    for (const from of MEDIATION_STATES) {
      const r = operatorTransition(from, action);
      const want = expected[action][from];
      if (want) t.same(r, { ok: true, next: want }, `${action} from ${from}`);
      else t.match(r, { ok: false, reason: new RegExp(`cannot ${action} a mediation that is ${from}`) }, `${action} from ${from} is refused`);
    }
  }
});

t.test('mediate-request: auto grant, manual approval, gates, and what an agent cannot undo', async (t) => {
  const auto = { manualApproval: false, gatePassed: true };
  t.equal(requestTransition(undefined, auto), 'granted');
  t.equal(requestTransition(undefined, { manualApproval: true, gatePassed: true }), 'requested');
  t.equal(requestTransition(undefined, { manualApproval: false, gatePassed: false }), 'denied');
  t.equal(requestTransition(undefined, { manualApproval: true, gatePassed: false }), 'denied', 'a gate denies before manual approval waits');
  t.equal(requestTransition('denied', auto), 'granted', 'a denied agent may ask again');
  t.equal(requestTransition('requested', auto), 'requested', 'waiting stays waiting');
  t.equal(requestTransition('granted', { manualApproval: false, gatePassed: false }), 'granted', 'a grant is not re-decided');
  t.equal(requestTransition('revoked', auto), 'revoked', 'only an operator undoes a revoke');
});
