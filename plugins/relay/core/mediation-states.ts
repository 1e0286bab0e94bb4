import type { MediationState } from '../store/types.js';

/**
 * The mediation state machine (docs/relay.md, "Mediation states"), pure. An operator's grant,
 * deny and revoke, and an agent's mediate-request, each map a state to the next one or refuse.
 *
 *   (none|denied) --request--> granted | requested (manual approval) | denied (gate blocked)
 *   requested --request--> requested        granted --request--> granted (grant repeated)
 *   revoked --request--> revoked (answered with a deny: only an operator undoes a revoke)
 *   requested|denied|revoked --grant--> granted
 *   requested --deny--> denied              granted --revoke--> revoked
 */

export type OperatorAction = 'grant' | 'deny' | 'revoke';

const OPERATOR: Record<OperatorAction, readonly MediationState[]> = {
  grant: ['requested', 'denied', 'revoked'],
  deny: ['requested'],
  revoke: ['granted'],
};

const RESULT: Record<OperatorAction, MediationState> = { grant: 'granted', deny: 'denied', revoke: 'revoked' };

export type Transition = { ok: true; next: MediationState } | { ok: false; reason: string };

export function operatorTransition(from: MediationState, action: OperatorAction): Transition {
  if (OPERATOR[action].includes(from)) return { ok: true, next: RESULT[action] };
  return { ok: false, reason: `cannot ${action} a mediation that is ${from}; ${action} applies to ${OPERATOR[action].join(', ')}` };
}

/** What a mediate-request does: `gate` is the mediation gate's verdict, when a policy applies. */
export function requestTransition(from: MediationState | undefined, opts: { manualApproval: boolean; gatePassed: boolean }): MediationState {
  if (from === 'granted' || from === 'requested' || from === 'revoked') return from;
  if (!opts.gatePassed) return 'denied';
  return opts.manualApproval ? 'requested' : 'granted';
}
