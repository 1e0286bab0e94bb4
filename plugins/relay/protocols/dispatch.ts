import { coordinateMediation, MEDIATION } from './coordinate-mediation.js';
import { discoverFeatures, DISCOVER_FEATURES } from './discover-features.js';
import { FORWARD, routing } from './forward.js';
import { pickup, PICKUP } from './pickup.js';
import { trustPing, TRUST_PING } from './trust-ping.js';
import { PROBLEM_REPORT, ProtocolProblem, type Handler } from './types.js';

/**
 * Dispatch on the inner message type (seed 000, "Dispatch of POST /didcomm"). Types a mediator
 * only ever sends (grants, deliveries, responses) are refused as unthreaded: this relay never
 * started the thread they would answer.
 */

export type Family = 'forward' | 'coordinate-mediation' | 'pickup' | 'trust-ping' | 'discover-features';

const FAMILIES: Array<{ base: string; family: Family; handlers: Record<string, Handler>; responses: string[] }> = [
  { base: MEDIATION, family: 'coordinate-mediation', handlers: coordinateMediation, responses: ['mediate-grant', 'mediate-deny', 'keylist-update-response', 'keylist'] },
  { base: PICKUP, family: 'pickup', handlers: pickup, responses: ['status', 'delivery'] },
  { base: TRUST_PING, family: 'trust-ping', handlers: trustPing, responses: ['ping-response'] },
  { base: DISCOVER_FEATURES, family: 'discover-features', handlers: discoverFeatures, responses: ['disclose'] },
];

export function route(type: unknown): { family: Family; handler: Handler } {
  if (typeof type !== 'string') throw new ProtocolProblem('e.p.msg.no-type', 'the message has no type');
  if (type === FORWARD) return { family: 'forward', handler: routing.forward! };
  if (type === PROBLEM_REPORT) throw new ProtocolProblem('e.p.msg.unthreaded', 'a problem-report must answer a thread this mediator started; it started none');
  for (const f of FAMILIES) {
    if (!type.startsWith(`${f.base}/`)) continue;
    const name = type.slice(f.base.length + 1);
    const handler = f.handlers[name];
    if (handler) return { family: f.family, handler };
    if (f.responses.includes(name)) throw new ProtocolProblem('e.p.msg.unthreaded', `${name} answers a request this mediator never sent`);
    break;
  }
  throw new ProtocolProblem('e.p.msg.unsupported-type', `unsupported message type ${type.slice(0, 200)}: this mediator handles routing 2.0 forward, coordinate-mediation 2.0, messagepickup 3.0, trust-ping 2.0 and discover-features 2.0`);
}
