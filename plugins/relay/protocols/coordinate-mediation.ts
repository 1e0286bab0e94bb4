import { parsePresentation } from '../core/gates.js';
import { MAX_UPDATES, type KeylistUpdate } from '../core/mediations.js';
import { body, ProtocolProblem, reply, requireSender, type Handler, type Inbound, type Outcome } from './types.js';
import type { RelayServices } from '../core/services.js';

/** Coordinate Mediation 2.0 (https://didcomm.org/coordinate-mediation/2.0/), mediator side. */

export const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';
const KEYLIST_PAGE_MAX = 500;

async function mediateRequest(inbound: Inbound, services: RelayServices): Promise<Outcome> {
  const sender = requireSender(inbound, 'mediate-request');
  const b = body(inbound);
  let presentation;
  try {
    presentation = parsePresentation(b.credential_ref, b.credential_presentation);
  } catch (err) {
    throw new ProtocolProblem('e.p.msg.bad-presentation', (err as Error).message);
  }
  const { mediation } = await services.mediations.request(sender, presentation);
  switch (mediation.state) {
    case 'granted':
      return { status: 200, reply: reply(inbound, `${MEDIATION}/mediate-grant`, { routing_did: inbound.recipient ?? services.identity.did }) };
    case 'requested':
      throw new ProtocolProblem('w.p.req.pending-approval', 'the request is recorded and waits for an operator to grant it; send mediate-request again later', 202);
    default:
      return { status: 200, reply: reply(inbound, `${MEDIATION}/mediate-deny`, { reason: mediation.reason ?? `the mediation is ${mediation.state}` }) };
  }
}

async function grantedMediation(inbound: Inbound, services: RelayServices, what: string) {
  const sender = requireSender(inbound, what);
  const mediation = await services.store.mediations.byRecipient(sender);
  if (!mediation || mediation.state !== 'granted') {
    throw new ProtocolProblem('e.p.req.not-mediated', `${what} needs a granted mediation; ${sender.slice(0, 200)} has ${mediation ? `one that is ${mediation.state}` : 'none'}`, 403);
  }
  return mediation;
}

function parseUpdates(raw: unknown): KeylistUpdate[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new ProtocolProblem('e.p.msg.bad-updates', 'keylist-update needs body.updates: a non-empty list of {recipient_did, action}');
  if (raw.length > MAX_UPDATES) throw new ProtocolProblem('e.p.msg.too-many-updates', `at most ${MAX_UPDATES} updates per message`);
  return raw.map((u) => {
    const o = (u ?? {}) as Record<string, unknown>;
    return { recipient_did: o.recipient_did as string, action: o.action as KeylistUpdate['action'] };
  });
}

async function keylistUpdate(inbound: Inbound, services: RelayServices): Promise<Outcome> {
  const mediation = await grantedMediation(inbound, services, 'keylist-update');
  const updated = await services.mediations.updateKeylist(mediation, parseUpdates(body(inbound).updates));
  return { status: 200, reply: reply(inbound, `${MEDIATION}/keylist-update-response`, { updated }) };
}

async function keylistQuery(inbound: Inbound, services: RelayServices): Promise<Outcome> {
  const mediation = await grantedMediation(inbound, services, 'keylist-query');
  const paginate = (body(inbound).paginate ?? {}) as Record<string, unknown>;
  const offset = paginate.offset ?? 0;
  const limit = paginate.limit ?? 100;
  if (!Number.isInteger(offset) || (offset as number) < 0 || !Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > KEYLIST_PAGE_MAX) {
    throw new ProtocolProblem('e.p.msg.bad-paginate', `paginate needs integer offset >= 0 and limit from 1 to ${KEYLIST_PAGE_MAX}`);
  }
  const { keys, total } = await services.store.mediations.keylist(mediation.id, { offset: offset as number, limit: limit as number });
  return {
    status: 200,
    reply: reply(inbound, `${MEDIATION}/keylist`, { keys: keys.map((k) => ({ recipient_did: k.key })), pagination: { count: keys.length, offset, remaining: Math.max(0, total - (offset as number) - keys.length) } }),
  };
}

export const coordinateMediation: Record<string, Handler> = {
  'mediate-request': mediateRequest,
  'keylist-update': keylistUpdate,
  'keylist-query': keylistQuery,
};
