import { body, ProtocolProblem, reply, type Handler } from './types.js';

/** Discover Features 2.0 (https://didcomm.org/discover-features/2.0/): discloses what this mediator speaks. */

export const DISCOVER_FEATURES = 'https://didcomm.org/discover-features/2.0';

export const SUPPORTED_PROTOCOLS: ReadonlyArray<{ id: string; roles: string[] }> = [
  { id: 'https://didcomm.org/coordinate-mediation/2.0', roles: ['mediator'] },
  { id: 'https://didcomm.org/messagepickup/3.0', roles: ['mediator'] },
  { id: 'https://didcomm.org/routing/2.0', roles: ['mediator'] },
  { id: 'https://didcomm.org/trust-ping/2.0', roles: ['receiver'] },
  { id: 'https://didcomm.org/discover-features/2.0', roles: ['responder'] },
  { id: 'https://didcomm.org/out-of-band/2.0', roles: ['sender'] },
  { id: 'https://didcomm.org/report-problem/2.0', roles: ['notifier'] },
];

function matches(pattern: string, id: string): boolean {
  if (!pattern.includes('*')) return pattern === id;
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(id);
}

export const discoverFeatures: Record<string, Handler> = {
  queries: async (inbound) => {
    const queries = body(inbound).queries;
    if (!Array.isArray(queries) || queries.length === 0 || queries.length > 20) throw new ProtocolProblem('e.p.msg.bad-queries', 'queries needs body.queries: 1 to 20 {feature-type, match}');
    const disclosures: Array<Record<string, unknown>> = [];
    for (const q of queries) {
      const { 'feature-type': type, match } = (q ?? {}) as Record<string, unknown>;
      if (typeof match !== 'string' || match.length > 200) throw new ProtocolProblem('e.p.msg.bad-queries', 'each query needs a string match');
      if (type !== 'protocol') continue;
      for (const p of SUPPORTED_PROTOCOLS) if (matches(match, p.id) && !disclosures.some((d) => d.id === p.id)) disclosures.push({ 'feature-type': 'protocol', id: p.id, roles: p.roles });
    }
    return { status: 200, reply: reply(inbound, `${DISCOVER_FEATURES}/disclose`, { disclosures }) };
  },
};
