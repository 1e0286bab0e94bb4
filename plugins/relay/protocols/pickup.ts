import { MAX_KEYLIST } from '../core/mediations.js';
import type { Mediation } from '../store/types.js';
import type { RelayServices } from '../core/services.js';
import type { Pending } from '../core/delivery.js';
import { body, ProtocolProblem, reply, requireSender, type Handler, type Inbound, type Outcome, type Reply } from './types.js';

/** Message Pickup 3.0 (https://didcomm.org/messagepickup/3.0/), mediator side, with live mode. */

export const PICKUP = 'https://didcomm.org/messagepickup/3.0';
export const MAX_DELIVERY = 100;

/** The keys of a mediation's keylist. */
export async function mediationKeys(services: RelayServices, mediationId: string): Promise<string[]> {
  return (await services.store.mediations.keylist(mediationId, { limit: MAX_KEYLIST })).keys.map((k) => k.key);
}

/**
 * Whose messages the sender may pick up: its granted mediation's keys (`whole`), or the one key
 * it is.
 */
export async function pickupScope(sender: string, services: RelayServices, recipientDid: unknown): Promise<{ mediation: Mediation; keys: string[]; whole: boolean }> {
  let mediation = await services.store.mediations.byRecipient(sender);
  let keys: string[];
  let whole = false;
  if (mediation?.state === 'granted') {
    keys = await mediationKeys(services, mediation.id);
    whole = true;
  } else {
    const route = await services.mediations.route(sender);
    if ('refused' in route) throw new ProtocolProblem('e.p.req.not-mediated', `pickup needs a granted mediation for ${sender.slice(0, 200)}`, 403);
    mediation = route.mediation;
    keys = [route.entry.key];
  }
  if (recipientDid !== undefined && recipientDid !== null) {
    if (typeof recipientDid !== 'string' || !keys.includes(recipientDid)) {
      throw new ProtocolProblem('e.p.req.not-your-key', 'recipient_did is not in your keylist: an agent picks up only its own messages', 403);
    }
    keys = [recipientDid];
    whole = false;
  }
  return { mediation, keys, whole };
}

export async function statusBody(services: RelayServices, keys: readonly string[], recipientDid: string | undefined, live: boolean): Promise<Record<string, unknown>> {
  const pending = await services.store.messages.pending(keys, 1);
  const count = await services.store.messages.countPending(keys);
  const now = services.now();
  const out: Record<string, unknown> = { message_count: count, live_delivery: live };
  if (recipientDid) out.recipient_did = recipientDid;
  if (pending[0]) {
    out.longest_waited_seconds = Math.max(0, Math.floor((now - pending[0].receivedAt) / 1000));
    out.oldest_received_time = Math.floor(pending[0].receivedAt / 1000);
  }
  return out;
}

/**
 * A message as a delivery's attachment, its id the message id. One delivered before and not
 * acknowledged (the agent's connection or the relay died first) is marked `description:
 * "redelivery"`, so an agent can tell it from a new message besides by its id.
 */
export function attachmentOf(p: Pending): { id: string; description?: string; data: { json: unknown } | { base64: string } } {
  const text = Buffer.from(p.body).toString('utf8');
  const mark = p.record.deliveredAt === null ? {} : { description: 'redelivery' };
  try {
    return { id: p.record.id, ...mark, data: { json: JSON.parse(text) } };
  } catch {
    return { id: p.record.id, ...mark, data: { base64: Buffer.from(p.body).toString('base64') } };
  }
}

/** A delivery message for pending messages; recipient_did names the key when all are for one. */
export function deliveryReply(inbound: Inbound | null, pending: readonly Pending[], recipientDid: string | undefined): Reply {
  const b: Record<string, unknown> = recipientDid ? { recipient_did: recipientDid } : {};
  const attachments = pending.map(attachmentOf);
  if (inbound) return reply(inbound, `${PICKUP}/delivery`, b, { attachments });
  return { id: crypto.randomUUID(), type: `${PICKUP}/delivery`, body: b, attachments, created_time: Math.floor(Date.now() / 1000) };
}

function optionalDid(b: Record<string, unknown>): string | undefined {
  const v = b.recipient_did;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ProtocolProblem('e.p.msg.bad-recipient', 'recipient_did must be a DID');
  return v;
}

async function statusRequest(inbound: Inbound, services: RelayServices): Promise<Outcome> {
  const sender = requireSender(inbound, 'pickup');
  const b = body(inbound);
  const rd = optionalDid(b);
  const { keys } = await pickupScope(sender, services, rd);
  return { status: 200, reply: reply(inbound, `${PICKUP}/status`, await statusBody(services, keys, rd, inbound.channel?.live ?? false)) };
}

async function deliveryRequest(inbound: Inbound, services: RelayServices): Promise<Outcome> {
  const sender = requireSender(inbound, 'pickup');
  const b = body(inbound);
  const limit = b.limit;
  if (!Number.isInteger(limit) || (limit as number) < 1) throw new ProtocolProblem('e.p.msg.bad-limit', 'delivery-request needs body.limit: a positive integer');
  const rd = optionalDid(b);
  const { keys } = await pickupScope(sender, services, rd);
  const pending = await services.delivery.collect(keys, Math.min(limit as number, MAX_DELIVERY));
  if (pending.length === 0) {
    return { status: 200, reply: reply(inbound, `${PICKUP}/status`, await statusBody(services, keys, rd, inbound.channel?.live ?? false)) };
  }
  await services.delivery.delivered(pending.map((p) => p.record), 'delivered');
  return { status: 200, reply: deliveryReply(inbound, pending, rd) };
}

async function messagesReceived(inbound: Inbound, services: RelayServices): Promise<Outcome> {
  const sender = requireSender(inbound, 'pickup');
  const list = body(inbound).message_id_list;
  if (!Array.isArray(list) || list.length > 1000 || !list.every((id) => typeof id === 'string' && id.length <= 200)) {
    throw new ProtocolProblem('e.p.msg.bad-id-list', 'messages-received needs body.message_id_list: at most 1000 message ids');
  }
  const { mediation, keys } = await pickupScope(sender, services, undefined);
  await services.delivery.acknowledge(mediation, list as string[], keys);
  return { status: 200, reply: reply(inbound, `${PICKUP}/status`, await statusBody(services, keys, undefined, inbound.channel?.live ?? false)) };
}

async function liveDeliveryChange(inbound: Inbound, services: RelayServices): Promise<Outcome> {
  const sender = requireSender(inbound, 'pickup');
  const on = body(inbound).live_delivery;
  if (typeof on !== 'boolean') throw new ProtocolProblem('e.p.msg.bad-live-delivery', 'live-delivery-change needs body.live_delivery: true or false');
  if (!inbound.channel) {
    throw new ProtocolProblem('e.m.live-mode-not-supported', 'live mode needs a WebSocket: connect to the ws(s) URL of this endpoint (the same path as POST /didcomm) and send live-delivery-change there');
  }
  const { mediation, keys, whole } = await pickupScope(sender, services, undefined);
  inbound.channel.setLive(on, mediation.id, whole ? null : keys, sender, inbound.recipient);
  return { status: 200, reply: reply(inbound, `${PICKUP}/status`, await statusBody(services, keys, undefined, on)) };
}

export const pickup: Record<string, Handler> = {
  'status-request': statusRequest,
  'delivery-request': deliveryRequest,
  'messages-received': messagesReceived,
  'live-delivery-change': liveDeliveryChange,
};
