import { isLedgerError } from '../../../node/errors.js';
import type { DidResolver } from '../wire/dids/resolver.js';
import type { DidcommDidDoc } from '../wire/dids/document.js';
import type { RelayEvents } from './events.js';
import { WIRE_TENANT } from './settings.js';

/**
 * A DID's routing as the relay sees it (GET /v1/resolutions): for did:ledger it comes from the
 * on-chain DID document, read through the plugin context and cached; did:key and did:peer
 * documents are derived from the DID itself. A failure emits `resolution.failed` to the tenant
 * that asked (the wire's tenant for resolutions the wire needs).
 */

export interface Resolution {
  did: string;
  method: string;
  /** resolvable and, for did:ledger, active on chain */
  active: boolean;
  source: 'chain' | 'did';
  serviceEndpoints: Array<{ id: string; uri: string; accept: string[]; routingKeys: string[] }>;
  /** who mediates for the DID: the first routing key of its first DIDComm service, else the service URI */
  mediator: string | null;
  keyAgreement: string[];
  resolvedAt: string;
  error: string | null;
}

export class ResolutionService {
  constructor(private readonly deps: { resolver: DidResolver; events: RelayEvents; now: () => number }) {}

  async resolve(did: string, opts: { fresh: boolean; tenantId?: string }): Promise<Resolution> {
    const method = /^did:([a-z0-9]+):/.exec(did)?.[1] ?? 'unknown';
    const base = { did, method, source: method === 'ledger' ? ('chain' as const) : ('did' as const), resolvedAt: new Date(this.deps.now()).toISOString() };
    let doc: DidcommDidDoc;
    try {
      doc = await this.deps.resolver.resolveStrict(did, { fresh: opts.fresh });
    } catch (err) {
      const error = isLedgerError(err) ? err.message : 'the DID could not be resolved';
      await this.deps.events.emit(opts.tenantId ?? WIRE_TENANT, 'resolution.failed', { did, error });
      return { ...base, active: false, serviceEndpoints: [], mediator: null, keyAgreement: [], error };
    }
    const serviceEndpoints = doc.service.map((s) => ({ id: s.id, uri: s.serviceEndpoint.uri, accept: s.serviceEndpoint.accept, routingKeys: s.serviceEndpoint.routingKeys }));
    const first = serviceEndpoints[0];
    return { ...base, active: true, serviceEndpoints, mediator: first ? (first.routingKeys[0] ?? first.uri) : null, keyAgreement: doc.keyAgreement, error: null };
  }
}
