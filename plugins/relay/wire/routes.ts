import { randomUUID } from 'node:crypto';
import type { Counter } from 'prom-client';
import { isBodyTooLarge } from '../../../node/http/body.js';
import type { RequestContext, RouteTable } from '../../../node/http/server.js';
import { httpProblem } from '../../../node/rpc/errors.js';
import type { RelayServices } from '../core/services.js';
import { WIRE_TENANT } from '../core/settings.js';
import { ENCRYPTED, type InboundPipeline } from './inbound.js';

/**
 * The DIDComm wire (seed 000, "Wire"): GET /invite, POST /didcomm, and GET /didcomm answering 404
 * (the wire is POST-only; a WebSocket upgrade on the same path is live mode, wire/live.ts), plus
 * GET /did-document, the mediator's DID document.
 *
 * `?did=peer` on /invite and /did-document gives the mediator's did:peer:2 (identity.ts) instead
 * of its did:key: the same keys, with the endpoint in the DID, for agents whose resolvers cannot
 * find the endpoint of a did:key.
 */

export const DIDCOMM_PATH = '/didcomm';
const MEDIA_TYPES = [ENCRYPTED, 'application/didcomm-envelope-enc'];

export type InvitationDid = 'key' | 'peer';

export function invitation(services: RelayServices, endpoint: string, did: InvitationDid = 'key'): Record<string, unknown> {
  return {
    type: 'https://didcomm.org/out-of-band/2.0/invitation',
    id: randomUUID(),
    from: did === 'peer' ? services.identity.peerDid(endpoint) : services.identity.did,
    body: { goal_code: 'request-mediate', goal: 'Request mediation from this relay', accept: ['didcomm/v2'] },
    services: [{ id: '#relay', type: 'DIDCommMessaging', serviceEndpoint: { uri: endpoint, accept: ['didcomm/v2'], routingKeys: [] } }],
  };
}

export function mountWire(http: RouteTable, deps: { services: RelayServices; pipeline: InboundPipeline; endpoint: () => string; errorsBase: string; envelopes: Counter<'family' | 'status'> }): void {
  const { services, pipeline, endpoint, errorsBase, envelopes } = deps;
  // maxEnvelopeBytes may be set above the server's 1 MiB: such envelopes get this route's 413, not the server's
  http.raiseBodyLimit?.(services.config.maxEnvelopeBytes);
  const problem = (ctx: RequestContext, status: number, code: string, detail: string, headers: Record<string, string> = {}) => {
    const body = { ...httpProblem(status, detail, { errorsBase, instance: ctx.path, code }), type: `${errorsBase}/${code.toLowerCase().replace(/_/g, '-')}` };
    ctx.send(status, JSON.stringify(body), 'application/problem+json', headers);
  };

  const whichDid = (ctx: RequestContext): InvitationDid | undefined => {
    const did = ctx.query.get('did') ?? 'key';
    if (did === 'key' || did === 'peer') return did;
    problem(ctx, 400, 'VALIDATION', '`did` is key (the did:key, the default) or peer (the did:peer:2 with the endpoint in it)');
    return undefined;
  };

  // the wire's tenant may publish another URL (PUT /v1/mediator/config {endpoint})
  const published = async () => (await services.settings.get(WIRE_TENANT)).endpoint ?? endpoint();

  http.route('GET', '/invite', async (ctx) => {
    const did = whichDid(ctx);
    if (!did) return;
    ctx.json(200, invitation(services, await published(), did), { 'cache-control': 'no-store' });
  });

  // the mediator's did:key document with its services (HTTP and live WebSocket), for clients whose
  // resolvers cannot know the endpoint of a did:key; ?did=peer: its did:peer:2's document
  http.route('GET', '/did-document', async (ctx) => {
    const did = whichDid(ctx);
    if (!did) return;
    // the did:peer:2 of the invitation's endpoint
    const doc = did === 'peer' ? services.identity.documentOf(services.identity.peerDid(await published()), endpoint()) : pipeline.ownDocument();
    ctx.json(200, doc, { 'cache-control': 'no-store' });
  });

  http.route('GET', DIDCOMM_PATH, (ctx) => problem(ctx, 404, 'NOT_FOUND', 'the DIDComm endpoint takes POST (or a WebSocket upgrade for live mode)'));

  http.route('POST', DIDCOMM_PATH, async (ctx) => {
    const type = (ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!MEDIA_TYPES.includes(type)) {
      envelopes.inc({ family: 'none', status: '415' });
      return problem(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', `POST /didcomm takes ${ENCRYPTED}, not ${type || 'no content type'}`);
    }
    let raw: Buffer;
    try {
      raw = await ctx.readBody(services.config.maxEnvelopeBytes);
    } catch (err) {
      if (!isBodyTooLarge(err)) throw err;
      envelopes.inc({ family: 'none', status: '413' });
      ctx.res.setHeader('connection', 'close');
      return problem(ctx, 413, 'ENVELOPE_TOO_LARGE', `an envelope is at most ${services.config.maxEnvelopeBytes} bytes`);
    }
    const answer = await pipeline.handle(raw.toString('utf8'), null);
    envelopes.inc({ family: 'family' in answer ? (answer.family ?? 'none') : 'none', status: String(answer.status) });
    if ('code' in answer) return problem(ctx, answer.status, answer.code, answer.detail, answer.headers);
    if (answer.body !== undefined) return ctx.send(answer.status, answer.body, answer.contentType, answer.headers);
    ctx.send(answer.status, '', undefined, answer.headers);
  });
}
