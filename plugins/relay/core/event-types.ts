/** The seven relay events (seed 000 "Events") and the envelope every receiver gets. */

export const RELAY_EVENTS = ['mediation.granted', 'mediation.denied', 'message.queued', 'message.delivered', 'delivery.failed', 'gate.blocked', 'resolution.failed'] as const;
export type RelayEvent = (typeof RELAY_EVENTS)[number];

export interface EventEnvelope {
  id: string;
  type: string;
  createdAt: string;
  data: unknown;
}
