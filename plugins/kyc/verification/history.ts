import { newEventId } from '../../common/webhooks/ids.js';
import type { DeliveryRecord } from '../../common/webhooks/store.js';
import type { EventIdentity, EventSink } from '../services.js';
import type { Actor } from './actors.js';
import { visibleSession, type EvidenceReader } from './evidence.js';
import type { SessionService } from './sessions.js';

/**
 * A session's history: its timeline (every change with its time and actor, timeline.ts) and the
 * webhook events sent for it, each with its deliveries per endpoint. The events of a session's
 * changes are recorded in the change's batch (store.ts `ver-sent`); credential.revoked, which the
 * issuer sends outside them, is recorded by `recordingEvents` before it is queued.
 */

export interface EventDeliveries {
  deliveriesOfEvent(organizationId: string, eventId: string): Promise<DeliveryRecord[]>;
}

export class SessionHistory {
  constructor(
    private readonly sessions: SessionService,
    private readonly webhooks: EventDeliveries,
  ) {}

  async of(reader: EvidenceReader, sessionId: string): Promise<Record<string, unknown>> {
    const s = await visibleSession(this.sessions, reader, sessionId);
    const [timeline, sent] = await Promise.all([this.sessions.store.timelineOf(s.id), this.sessions.store.sentEvents(s.id)]);
    const events = await Promise.all(
      sent.map(async (e) => ({
        ...e,
        deliveries: (await this.webhooks.deliveriesOfEvent(s.organizationId, e.id)).map((d) => ({
          id: d.id,
          endpointId: d.endpointId,
          status: d.status,
          statusCode: d.statusCode,
          attemptNumber: d.attemptNumber,
          createdAt: d.createdAt,
          ...(d.status === 'pending' && d.nextRetryAt !== null ? { nextRetryAt: d.nextRetryAt } : {}),
          ...(d.error !== undefined ? { error: d.error } : {}),
          ...(d.resendOf !== undefined ? { resendOf: d.resendOf } : {}),
        })),
      })),
    );
    return { sessionId: s.id, timeline, events };
  }

  /** Records a revocation in the session's timeline, with who asked for it. */
  async revoked(sessionId: string, credentialId: string, reason: string, actor: Actor): Promise<void> {
    await this.sessions.store.addTimeline(sessionId, { at: new Date(this.sessions.now()).toISOString(), type: 'credential_revoked', actor, detail: { credentialId, reason } });
  }
}

/**
 * The events sink for the issuer's revocations: each event about a credential is recorded among
 * its session's sent events, with the id and time it is then queued with.
 */
export function recordingEvents(sink: EventSink, sessions: SessionService, sessionOfCredential: (credentialId: string) => Promise<string | undefined>): EventSink {
  return {
    async emit(organizationId, type, data, identity?: EventIdentity) {
      const id = identity ?? { id: newEventId(), createdAt: new Date(sessions.now()).toISOString() };
      const sessionId = typeof data.credentialId === 'string' ? await sessionOfCredential(data.credentialId) : undefined;
      if (sessionId !== undefined) await sessions.store.addSent(sessionId, { id: id.id, type, createdAt: id.createdAt });
      await sink.emit(organizationId, type, data, id);
    },
  };
}
