import { HttpProblem, validation } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { oneOf, onlyFields, onlyQuery, optionalBoolean, queryEnum, queryInt } from '../../../common/http/validate.js';
import type { Logger } from '../../../../node/logging.js';
import { MAX_DESCRIPTION, publicEndpoint, type EndpointPatch } from '../../webhooks/endpoints.js';
import type { KycWebhooks } from '../../webhooks/events.js';
import { DELIVERY_STATUS_QUERY, deliveryView, statusFilter } from '../../webhooks/views.js';
import { KYC_EVENTS, type KycEvent, type WebhookEndpointRecord } from '../../types.js';
import { CAN, requireRole } from '../roles.js';
import type { KycRequest, KycRouter } from '../router.js';

/**
 * Webhook management (seed 001 part A, "Endpoints"; docs/webhooks.md for receivers). Level `bearer`:
 * an account JWT (of an owner, admin or developer) or an API key, both meaning the caller's organization. An endpoint of another
 * organization answers 404, as one that does not exist.
 *
 *   POST   /v1/webhooks                                    201 endpoint + secret (shown once)
 *   GET    /v1/webhooks                                    {endpoints[]}
 *   GET    /v1/webhooks/<id>                               endpoint
 *   PATCH  /v1/webhooks/<id>                               any of url, events, description, enabled | status
 *   DELETE /v1/webhooks/<id>                               {message}
 *   GET    /v1/webhooks/<id>/deliveries                    {data[], pagination{total, page, perPage}}
 *   GET    /v1/webhooks/<id>/deliveries/<deliveryId>       delivery
 *   POST   /v1/webhooks/<id>/deliveries/<deliveryId>/resend  202 the new delivery
 *   POST   /v1/webhooks/<id>/rotate-secret                 {id, secret, rotatedAt}
 *   POST   /v1/webhooks/test                               {id, deliveryId, status, statusCode, duration, request}
 *
 * Delivery list paging: the seed gives both "limit default 20, max 100, offset" and a primary
 * wrapper with perPage 25. The page size is 25 by default (the delivery list's own figure);
 * `limit` (1 to 100) sets another; `offset` (default 0) or `page` (1-based, offset =
 * (page - 1) × perPage) says where to start, not both. `pagination.page` is
 * floor(offset / perPage) + 1 and `total` counts every delivery matching the filter.
 */

export const DELIVERY_PAGE_SIZE = 25;
export const MAX_DELIVERY_LIMIT = 100;
const MAX_OFFSET = 100_000;

export interface WebhookRouteDeps {
  webhooks: KycWebhooks;
  log: Logger;
}

const ID = '([^/]+)';
const at = (suffix = '') => new RegExp(`^/v1/webhooks/${ID}${suffix}$`);

export function mountWebhooks(router: KycRouter, deps: WebhookRouteDeps): void {
  const { webhooks, log } = deps;
  const endpoints = webhooks.endpoints;
  /** organizations with a test delivery in flight: one at a time each */
  const testing = new Set<string>();

  /** a route of the API keys and of the members who may develop (roles.ts `CAN.develop`) */
  const manage = (method: string, path: string | RegExp, handler: (req: KycRequest<'bearer'>) => Promise<unknown>): void => {
    router.add(method, path, 'bearer', async (req) => {
      requireRole(req.caller, CAN.develop, ['api-key']);
      return handler(req);
    });
  };

  const owned = async (req: KycRequest<'bearer'>, id: string): Promise<WebhookEndpointRecord> => {
    const r = await endpoints.get(req.tenantId, id);
    if (!r) throw new HttpProblem('not-found', `no webhook endpoint ${id.slice(0, 60)} in this organization`, { code: 'WEBHOOK_ENDPOINT_NOT_FOUND' });
    return r;
  };

  manage('POST', '/v1/webhooks', async (req) => {
    const body = await req.body();
    onlyFields(body, ['url', 'events', 'description']);
    if (body.url === undefined || body.url === null) throw validation('url is required', 'url');
    const record = await endpoints.create(req.tenantId, { url: body.url as string, events: events(body.events), description: description(body.description) });
    log.info({ organization: req.tenantId, webhook: record.id, via: req.caller.via }, 'webhook endpoint created');
    return new Reply(201, { ...publicEndpoint(record), secret: record.secret });
  });

  manage('GET', '/v1/webhooks', async (req) => {
    onlyQuery(req.query, []);
    return { endpoints: (await endpoints.list(req.tenantId)).map(publicEndpoint) };
  });

  manage('GET', at(), async (req) => {
    onlyQuery(req.query, []);
    return publicEndpoint(await owned(req, req.params[0]!));
  });

  manage('PATCH', at(), async (req) => {
    const id = req.params[0]!;
    await owned(req, id);
    const body = await req.body();
    onlyFields(body, ['url', 'events', 'description', 'enabled', 'status']);
    const patch: EndpointPatch = {};
    if (body.url !== undefined) patch.url = body.url as string;
    if (body.events !== undefined) patch.events = events(body.events);
    if (body.description !== undefined) patch.description = description(body.description);
    const enabled = optionalBoolean(body, 'enabled');
    const status = body.status === undefined ? undefined : oneOf(body.status, 'status', ['active', 'disabled'] as const) === 'active';
    if (enabled !== undefined && status !== undefined && enabled !== status) throw validation('enabled and status name the same setting and disagree; give one', 'status');
    if (enabled !== undefined || status !== undefined) patch.enabled = enabled ?? status;
    if (Object.keys(patch).length === 0) throw validation('nothing to change: give any of url, events, description, enabled or status');
    const record = await endpoints.update(req.tenantId, id, patch);
    if (!record) throw new HttpProblem('not-found', `no webhook endpoint ${id.slice(0, 60)} in this organization`, { code: 'WEBHOOK_ENDPOINT_NOT_FOUND' });
    log.info({ organization: req.tenantId, webhook: id, fields: Object.keys(patch) }, 'webhook endpoint updated');
    return publicEndpoint(record);
  });

  manage('DELETE', at(), async (req) => {
    const id = req.params[0]!;
    if (!(await endpoints.remove(req.tenantId, id))) throw new HttpProblem('not-found', `no webhook endpoint ${id.slice(0, 60)} in this organization`, { code: 'WEBHOOK_ENDPOINT_NOT_FOUND' });
    log.info({ organization: req.tenantId, webhook: id }, 'webhook endpoint deleted');
    return { message: `webhook endpoint ${id} deleted; its pending deliveries will not be attempted again` };
  });

  manage('GET', at('/deliveries'), async (req) => {
    onlyQuery(req.query, ['status', 'limit', 'offset', 'page']);
    const endpoint = await owned(req, req.params[0]!);
    const status = statusFilter(queryEnum(req.query, 'status', DELIVERY_STATUS_QUERY));
    const perPage = queryInt(req.query, 'limit', DELIVERY_PAGE_SIZE, 1, MAX_DELIVERY_LIMIT);
    if (req.query.has('offset') && req.query.has('page')) throw validation('give offset or page, not both', 'page');
    const offset = req.query.has('page') ? (queryInt(req.query, 'page', 1, 1, Math.floor(MAX_OFFSET / perPage) + 1) - 1) * perPage : queryInt(req.query, 'offset', 0, 0, MAX_OFFSET);
    const page = await webhooks.deliveries(endpoint, { status, limit: perPage, offset });
    return { data: page.records.map(deliveryView), pagination: { total: page.total, page: Math.floor(offset / perPage) + 1, perPage } };
  });

  manage('GET', at(`/deliveries/${ID}`), async (req) => {
    onlyQuery(req.query, []);
    const endpoint = await owned(req, req.params[0]!);
    const delivery = await webhooks.delivery(endpoint, req.params[1]!);
    if (!delivery) throw new HttpProblem('not-found', `no delivery ${req.params[1]!.slice(0, 60)} for this endpoint`, { code: 'WEBHOOK_DELIVERY_NOT_FOUND' });
    return deliveryView(delivery);
  });

  manage('POST', at(`/deliveries/${ID}/resend`), async (req) => {
    const endpoint = await owned(req, req.params[0]!);
    const record = await webhooks.resend(endpoint, req.params[1]!);
    log.info({ organization: req.tenantId, webhook: endpoint.id, delivery: record.id, resendOf: record.resendOf, event: record.eventId }, 'webhook delivery resent');
    return new Reply(202, deliveryView(record));
  });

  manage('POST', at('/rotate-secret'), async (req) => {
    const id = req.params[0]!;
    await owned(req, id);
    const record = await endpoints.rotateSecret(req.tenantId, id);
    if (!record) throw new HttpProblem('not-found', `no webhook endpoint ${id.slice(0, 60)} in this organization`, { code: 'WEBHOOK_ENDPOINT_NOT_FOUND' });
    log.info({ organization: req.tenantId, webhook: id, via: req.caller.via }, 'webhook secret rotated');
    return { id: record.id, secret: record.secret, rotatedAt: record.updatedAt };
  });

  manage('POST', '/v1/webhooks/test', async (req) => {
    const body = await req.body();
    onlyFields(body, ['webhookId', 'eventType']);
    if (typeof body.webhookId !== 'string' || body.webhookId === '') throw validation('webhookId is required: the id of one of your endpoints (wh_…)', 'webhookId');
    const type = oneOf(body.eventType, 'eventType', KYC_EVENTS);
    const endpoint = await owned(req, body.webhookId);
    if (testing.has(req.tenantId)) throw new HttpProblem('rate-limited', 'a test delivery for this organization is in flight; wait for it to finish', { headers: { 'retry-after': '1' } });
    testing.add(req.tenantId);
    try {
      const result = await webhooks.sendTest(endpoint, type);
      return {
        id: result.eventId,
        deliveryId: result.id,
        status: result.status,
        statusCode: result.statusCode,
        ...(result.error !== undefined ? { error: result.error } : {}),
        duration: result.duration,
        request: result.request,
      };
    } finally {
      testing.delete(req.tenantId);
    }
  });
}

function events(value: unknown): KycEvent[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) throw validation(`events must be a non-empty array of event names (${KYC_EVENTS.join(', ')})`, 'events');
  if (value.length > KYC_EVENTS.length * 4) throw validation('events lists too many entries', 'events');
  return value.map((e, i) => oneOf(e, `events[${i}]`, KYC_EVENTS));
}

function description(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw validation('description must be a string', 'description');
  if (value.length > MAX_DESCRIPTION) throw validation(`description is at most ${MAX_DESCRIPTION} characters (got ${value.length})`, 'description');
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(value)) throw validation('description must not contain control characters other than tab and newline', 'description');
  return value;
}
