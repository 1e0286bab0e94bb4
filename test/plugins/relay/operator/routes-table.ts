/** Every operator route with its auth level, for the auth matrix. Ids that do not exist on purpose. */

export interface RouteCase {
  method: string;
  path: string;
  level: 'none' | 'read' | 'manage' | 'full';
  body?: unknown;
}

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/health', level: 'none' },
  { method: 'GET', path: '/v1/health', level: 'none' },
  { method: 'GET', path: '/v1/auth/me', level: 'read' },
  { method: 'GET', path: '/v1/mediations', level: 'read' },
  { method: 'POST', path: '/v1/mediations/med_missing/grant', level: 'manage' },
  { method: 'POST', path: '/v1/mediations/med_missing/deny', level: 'manage', body: { reason: 'no' } },
  { method: 'POST', path: '/v1/mediations/med_missing/revoke', level: 'manage' },
  { method: 'GET', path: '/v1/mediations/med_missing/keylist', level: 'read' },
  { method: 'DELETE', path: `/v1/mediations/med_missing/keylist/${encodeURIComponent('did:key:z6Mkmissing')}`, level: 'manage' },
  { method: 'GET', path: '/v1/agents', level: 'read' },
  { method: 'GET', path: '/v1/messages', level: 'read' },
  { method: 'GET', path: '/v1/queue/status', level: 'read' },
  { method: 'GET', path: '/v1/resolutions', level: 'read' },
  { method: 'GET', path: '/v1/resolutions/did%3Aledger%3Atestnet%3Amissing', level: 'read' },
  { method: 'POST', path: '/v1/resolutions/did%3Aledger%3Atestnet%3Amissing/re-resolve', level: 'manage' },
  { method: 'GET', path: '/v1/policies', level: 'read' },
  { method: 'POST', path: '/v1/policies', level: 'manage', body: { name: 'gate', credentialType: 'KYCCredential' } },
  { method: 'DELETE', path: '/v1/policies/pol_missing', level: 'manage' },
  { method: 'POST', path: '/v1/policies/test', level: 'manage', body: { policyId: 'pol_missing', credentialRef: 'urn:ledger:credential:00000000-0000-4000-8000-000000000000' } },
  { method: 'GET', path: '/v1/policies/rate-limit', level: 'read' },
  { method: 'PUT', path: '/v1/policies/rate-limit', level: 'manage', body: { rateLimitPerDidPerMin: 100 } },
  { method: 'GET', path: '/v1/policies/retention', level: 'read' },
  { method: 'PUT', path: '/v1/policies/retention', level: 'manage', body: { retentionSeconds: 3600 } },
  { method: 'GET', path: '/v1/api-keys', level: 'read' },
  { method: 'POST', path: '/v1/api-keys', level: 'full', body: { name: 'k', scope: 'read' } },
  { method: 'DELETE', path: '/v1/api-keys/key_missing', level: 'full' },
  { method: 'GET', path: '/v1/webhooks', level: 'read' },
  { method: 'PUT', path: '/v1/webhooks', level: 'full', body: { url: 'http://127.0.0.1:9/hook', events: ['message.queued'] } },
  { method: 'POST', path: '/v1/webhooks/test', level: 'manage', body: { event: 'message.queued' } },
  { method: 'GET', path: '/v1/mediator', level: 'read' },
  { method: 'PUT', path: '/v1/mediator/config', level: 'manage', body: { purgeOnAck: false } },
  { method: 'GET', path: '/v1/mediator/throughput', level: 'read' },
  { method: 'GET', path: '/v1/team', level: 'read' },
  { method: 'GET', path: '/v1/notifications', level: 'read' },
  { method: 'PUT', path: '/v1/notifications', level: 'manage', body: { channels: { email: { enabled: true, target: 'ops@example.org' } } } },
  { method: 'POST', path: '/v1/notifications/chat/test', level: 'manage' },
  { method: 'GET', path: '/v1/notifications/email/outbox', level: 'read' },
  { method: 'GET', path: '/v1/billing', level: 'read' },
  { method: 'GET', path: '/v1/delivery-log', level: 'read' },
];
