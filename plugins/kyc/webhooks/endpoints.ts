import { randomBytes } from 'node:crypto';
import { LedgerError } from '../../../node/errors.js';
import { KeyedSerial } from '../../common/http/router.js';
import { newWebhookSecret } from '../../common/webhooks/signature.js';
import { validateWebhookUrl } from '../../common/webhooks/url.js';
import { key, prefix, timeKey, type PluginDb, type Table } from '../../common/store/tables.js';
import { KYC_EVENTS, type KycEvent, type WebhookEndpointRecord } from '../types.js';

/**
 * An organization's webhook endpoints (seed 001 part A, "Webhook endpoint"):
 *
 *   wh-endpoints  <endpoint id>              WebhookEndpointRecord (secret included)
 *   wh-by-org     <org id> \0 <created ms> \0 <endpoint id>  ''  (an organization's endpoints, oldest first)
 *
 * The secret is shown at creation and on rotation only; `publicEndpoint` is every other read.
 * An endpoint of another organization reads as absent, so a route answers 404 for it.
 */

export const DEFAULT_EVENTS: readonly KycEvent[] = ['verification.completed', 'credential.issued'];
/** enough for staging, production and a few tools; a per-organization bound on fan-out */
export const MAX_ENDPOINTS_PER_ORG = 20;
export const MAX_DESCRIPTION = 500;

const ENDPOINT_ID = /^wh_[0-9a-f]{24}$/;

export interface PublicEndpoint {
  id: string;
  url: string;
  events: KycEvent[];
  description: string;
  /** `enabled` and `status` are the same concept under the seed's two names */
  enabled: boolean;
  status: 'active' | 'disabled';
  createdAt: string;
  updatedAt: string;
}

export function publicEndpoint(r: WebhookEndpointRecord): PublicEndpoint {
  return { id: r.id, url: r.url, events: [...r.events], description: r.description, enabled: r.enabled, status: r.enabled ? 'active' : 'disabled', createdAt: r.createdAt, updatedAt: r.updatedAt };
}

export interface EndpointInput {
  url: string;
  events?: KycEvent[];
  description?: string;
}

export interface EndpointPatch {
  url?: string;
  events?: KycEvent[];
  description?: string;
  enabled?: boolean;
}

export class WebhookEndpoints {
  private readonly records: Table<WebhookEndpointRecord>;
  private readonly byOrg: Table<string>;
  /** one write at a time per organization: the count bound and read-modify-writes */
  private readonly writes = new KeyedSerial();

  constructor(
    private readonly db: PluginDb,
    private readonly opts: { now: () => number; allowHttpHosts?: readonly string[] },
  ) {
    this.records = db.json<WebhookEndpointRecord>('wh-endpoints');
    this.byOrg = db.json<string>('wh-by-org');
  }

  /** The normalized URL; LedgerError WEBHOOK_URL_INVALID (field `url`) when it breaks the rule. */
  checkUrl(url: unknown): string {
    try {
      return validateWebhookUrl(url, { allowHttpHosts: this.opts.allowHttpHosts ?? [] });
    } catch (err) {
      const e = err as LedgerError;
      throw new LedgerError(e.code ?? 'WEBHOOK_URL_INVALID', `url: ${e.message}`, 'invalid', { ...(e.data ?? {}), field: 'url' });
    }
  }

  /** A new endpoint with a new secret; the answer is the only read that shows it, with rotation. */
  async create(organizationId: string, input: EndpointInput): Promise<WebhookEndpointRecord> {
    const url = this.checkUrl(input.url);
    return this.writes.run(organizationId, async () => {
      let count = 0;
      for await (const _ of this.byOrg.keys(prefix(organizationId))) count++;
      if (count >= MAX_ENDPOINTS_PER_ORG) throw new LedgerError('WEBHOOK_ENDPOINT_LIMIT', `an organization has at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints; delete one first`, 'conflict');
      const now = this.opts.now();
      const at = new Date(now).toISOString();
      const record: WebhookEndpointRecord = {
        id: `wh_${randomBytes(12).toString('hex')}`,
        organizationId,
        url,
        events: ordered(input.events ?? DEFAULT_EVENTS),
        description: input.description ?? '',
        enabled: true,
        createdAt: at,
        updatedAt: at,
        secret: newWebhookSecret(),
      };
      await this.db.batch().put(this.records, record.id, record).put(this.byOrg, orgKey(record), '').write();
      return record;
    });
  }

  /** The endpoint, when it exists and belongs to the organization. */
  async get(organizationId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    if (!ENDPOINT_ID.test(id)) return undefined;
    const r = await this.records.get(id);
    return r && r.organizationId === organizationId ? r : undefined;
  }

  /** The organization's endpoints, oldest first. */
  async list(organizationId: string): Promise<WebhookEndpointRecord[]> {
    const ids: string[] = [];
    for await (const k of this.byOrg.keys(prefix(organizationId))) ids.push(k.slice(k.lastIndexOf('\0') + 1));
    const records = await this.records.getMany(ids);
    return records.filter((r): r is WebhookEndpointRecord => r !== undefined && r.organizationId === organizationId);
  }

  /** The enabled endpoints of the organization that subscribe to `type`. */
  async subscribers(organizationId: string, type: KycEvent): Promise<WebhookEndpointRecord[]> {
    return (await this.list(organizationId)).filter((r) => r.enabled && r.events.includes(type));
  }

  /** Changes only the given fields; undefined when there is no such endpoint for the organization. */
  async update(organizationId: string, id: string, patch: EndpointPatch): Promise<WebhookEndpointRecord | undefined> {
    const url = patch.url === undefined ? undefined : this.checkUrl(patch.url);
    return this.writes.run(organizationId, async () => {
      const r = await this.get(organizationId, id);
      if (!r) return undefined;
      const next: WebhookEndpointRecord = {
        ...r,
        ...(url !== undefined ? { url } : {}),
        ...(patch.events !== undefined ? { events: ordered(patch.events) } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        updatedAt: new Date(this.opts.now()).toISOString(),
      };
      await this.records.put(id, next);
      return next;
    });
  }

  /**
   * A new secret, in force from this write on: the outbox reads the endpoint's secret before
   * every attempt, so pending retries are signed with the new one too.
   */
  rotateSecret(organizationId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    return this.writes.run(organizationId, async () => {
      const r = await this.get(organizationId, id);
      if (!r) return undefined;
      const next = { ...r, secret: newWebhookSecret(), updatedAt: new Date(this.opts.now()).toISOString() };
      await this.records.put(id, next);
      return next;
    });
  }

  /** Deletes the endpoint; false when there is none for the organization. */
  remove(organizationId: string, id: string): Promise<boolean> {
    return this.writes.run(organizationId, async () => {
      const r = await this.get(organizationId, id);
      if (!r) return false;
      await this.db.batch().del(this.records, id).del(this.byOrg, orgKey(r)).write();
      return true;
    });
  }

  /** The endpoint by id alone, for the outbox's attempts (which carry the tenant to check). */
  async byId(id: string): Promise<WebhookEndpointRecord | undefined> {
    return ENDPOINT_ID.test(id) ? this.records.get(id) : undefined;
  }
}

const orgKey = (r: WebhookEndpointRecord): string => key(r.organizationId, timeKey(Date.parse(r.createdAt)), r.id);

/** Deduplicated, in the seed's order of events, so a record reads the same however it was given. */
function ordered(events: readonly KycEvent[]): KycEvent[] {
  return KYC_EVENTS.filter((e) => events.includes(e));
}
