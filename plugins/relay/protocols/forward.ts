import { parsePresentation } from '../core/gates.js';
import type { RelayServices } from '../core/services.js';
import { body, ProtocolProblem, type Handler, type Inbound, type Outcome } from './types.js';

/**
 * Routing 2.0 forward (https://didcomm.org/routing/2.0/forward): the attached message is queued
 * for `next`, which must be a key of a granted mediation. There is no DIDComm reply: the HTTP
 * status says what happened (202 queued). A did:ledger `next` must also be active on chain.
 */

export const FORWARD = 'https://didcomm.org/routing/2.0/forward';
const MAX_ATTACHMENTS = 10;

function attachedBodies(inbound: Inbound): Uint8Array[] {
  const attachments = (inbound.message as { attachments?: unknown }).attachments;
  if (!Array.isArray(attachments) || attachments.length === 0) throw new ProtocolProblem('e.p.msg.no-attachment', 'a forward carries the message to forward as an attachment');
  if (attachments.length > MAX_ATTACHMENTS) throw new ProtocolProblem('e.p.msg.too-many-attachments', `a forward carries at most ${MAX_ATTACHMENTS} attachments`);
  return attachments.map((a) => {
    const data = (a as { data?: Record<string, unknown> } | null)?.data;
    if (data && data.json !== undefined && data.json !== null && typeof data.json === 'object') return Buffer.from(JSON.stringify(data.json));
    if (data && typeof data.base64 === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(data.base64)) return Buffer.from(data.base64, data.base64.includes('-') || data.base64.includes('_') ? 'base64url' : 'base64');
    throw new ProtocolProblem('e.p.msg.bad-attachment', 'a forwarded attachment must be inline: data.json or data.base64 (links are not fetched)');
  });
}

const forwardHandler: Handler = async (inbound: Inbound, services: RelayServices): Promise<Outcome> => {
  const next = body(inbound).next;
  if (typeof next !== 'string' || !next.startsWith('did:') || next.length > 4096) throw new ProtocolProblem('e.p.msg.bad-next', 'a forward needs body.next: the DID of the recipient');
  const bodies = attachedBodies(inbound);
  const route = await services.mediations.route(next);
  if ('refused' in route) throw new ProtocolProblem('e.p.xfer.unknown-recipient', route.refused, 404);
  const { mediation, entry } = route;
  if (entry.key.startsWith('did:ledger:')) {
    const resolution = await services.resolutions.resolve(entry.key, { fresh: false });
    if (!resolution.active) {
      await services.delivery.failKeys(mediation.tenantId, [entry.key], 'the recipient DID is deactivated on chain');
      throw new ProtocolProblem('e.p.xfer.recipient-deactivated', `${entry.key} is not active on chain: ${resolution.error ?? 'deactivated'}`, 410);
    }
  }
  const m = inbound.message as unknown as Record<string, unknown>;
  let presentation;
  try {
    presentation = parsePresentation(m.credential_ref, m.credential_presentation);
  } catch (err) {
    throw new ProtocolProblem('e.p.msg.bad-presentation', (err as Error).message);
  }
  const verdict = await services.gates.enforce(mediation.tenantId, 'delivery', presentation, inbound.sender);
  if (verdict && !verdict.pass) {
    await services.events.emit(mediation.tenantId, 'gate.blocked', { stage: 'delivery', recipient: entry.key, sender: inbound.sender, policy: verdict.policy, reason: verdict.reason });
    throw new ProtocolProblem('e.p.req.gate-blocked', `delivery to ${entry.key} needs a credential: ${verdict.reason}`, 403);
  }
  for (const bytes of bodies) await services.delivery.accept(mediation, entry.key, inbound.sender, bytes);
  return { status: 202 };
};

export const routing: Record<string, Handler> = { forward: forwardHandler };
