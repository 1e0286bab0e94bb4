import type { DeliveryRecord, DeliveryStatus } from '../../common/webhooks/store.js';

/**
 * A delivery as the routes show it: the seed's primary shape (`del_…`, `eventId`, `eventType`,
 * `status`, `statusCode`, `attemptNumber`, `nextRetryAt` only while a retry is pending,
 * `requestTimestamp`, `responseTimestamp`, `duration`), plus `createdAt`, the last attempt's
 * `error` when it failed, and `resendOf` on a resend. `status` is `delivered` or `failed`, and
 * `pending` while attempts remain.
 */
export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  statusCode: number | null;
  attemptNumber: number;
  nextRetryAt?: string;
  requestTimestamp: string | null;
  responseTimestamp: string | null;
  duration: number | null;
  createdAt: string;
  error?: string;
  resendOf?: string;
}

export function deliveryView(r: DeliveryRecord): DeliveryView {
  return {
    id: r.id,
    eventId: r.eventId,
    eventType: r.eventType,
    status: r.status,
    statusCode: r.statusCode,
    attemptNumber: r.attemptNumber,
    ...(r.status === 'pending' && r.nextRetryAt !== null ? { nextRetryAt: r.nextRetryAt } : {}),
    requestTimestamp: r.requestTimestamp,
    responseTimestamp: r.responseTimestamp,
    duration: r.duration,
    createdAt: r.createdAt,
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(r.resendOf !== undefined ? { resendOf: r.resendOf } : {}),
  };
}

/**
 * The list query's `status` in either vocabulary of the seed: `success` (the alternative
 * shape's word) and `delivered` (the primary shape's) are the same filter.
 */
export const DELIVERY_STATUS_QUERY = ['success', 'delivered', 'failed', 'pending'] as const;

export function statusFilter(q: (typeof DELIVERY_STATUS_QUERY)[number] | undefined): DeliveryStatus | undefined {
  return q === undefined ? undefined : q === 'success' ? 'delivered' : q;
}
