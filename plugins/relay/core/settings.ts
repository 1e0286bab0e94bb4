import { invalid } from '../../../node/errors.js';
import type { DocumentRepo } from '../store/types.js';

/**
 * Per-tenant settings (seed 000 "Limits"), with the defaults docs/relay.md gives. Mediations made
 * over the wire belong to the tenant `default`, so its settings govern the wire; `endpoint`
 * (the public URL of POST /didcomm) is read from that tenant only.
 */

export interface TenantSettings {
  rateLimitPerDidPerMin: number;
  retentionSeconds: number;
  purgeOnAck: boolean;
  /** a mediate-request stays `requested` until an operator grants or denies it */
  manualApproval: boolean;
  /** overrides plugins.relay.publicUrl in the invitation; null keeps the config's */
  endpoint: string | null;
}

export const SETTINGS_LIMITS = {
  rateLimitPerDidPerMin: { min: 1, max: 1_000_000 },
  retentionSeconds: { min: 60, max: 90 * 86_400 },
};

export const WIRE_TENANT = 'default';

export function defaultSettings(base: Partial<TenantSettings> = {}): TenantSettings {
  return { rateLimitPerDidPerMin: 1200, retentionSeconds: 7 * 86_400, purgeOnAck: true, manualApproval: false, endpoint: null, ...base };
}

function intIn(value: unknown, field: keyof typeof SETTINGS_LIMITS): number {
  const { min, max } = SETTINGS_LIMITS[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid('VALIDATION', `${field} must be an integer from ${min} to ${max}`, { field });
  }
  return value;
}

/** Validates a partial update (unknown fields are refused, so a typo is not silently ignored). */
export function parseSettingsPatch(body: unknown, allowed: readonly (keyof TenantSettings)[]): Partial<TenantSettings> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('VALIDATION', 'the body must be a JSON object');
  const out: Partial<TenantSettings> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!allowed.includes(key as keyof TenantSettings)) throw invalid('VALIDATION', `unknown field ${key}; allowed: ${allowed.join(', ')}`, { field: key });
    switch (key) {
      case 'rateLimitPerDidPerMin':
      case 'retentionSeconds':
        out[key] = intIn(value, key);
        break;
      case 'purgeOnAck':
      case 'manualApproval':
        if (typeof value !== 'boolean') throw invalid('VALIDATION', `${key} must be a boolean`, { field: key });
        out[key] = value;
        break;
      case 'endpoint':
        if (value !== null && (typeof value !== 'string' || !/^https?:\/\/[^\s]{1,2000}$/.test(value))) {
          throw invalid('VALIDATION', 'endpoint must be an http(s) URL or null', { field: key });
        }
        out.endpoint = value as string | null;
        break;
    }
  }
  if (Object.keys(out).length === 0) throw invalid('VALIDATION', `the body changes nothing; give one of ${allowed.join(', ')}`);
  return out;
}

export class SettingsService {
  private cache = new Map<string, TenantSettings>();
  /** bumped by every update, so a read under way meanwhile does not cache what it read */
  private generation = 0;

  constructor(
    private readonly docs: DocumentRepo,
    private readonly defaults: TenantSettings,
  ) {}

  async get(tenantId: string): Promise<TenantSettings> {
    const hit = this.cache.get(tenantId);
    if (hit) return hit;
    const generation = this.generation;
    const stored = await this.docs.get<Partial<TenantSettings>>(tenantId, 'settings', 'mediator');
    const settings = { ...this.defaults, ...stored };
    if (generation === this.generation) this.cache.set(tenantId, settings);
    return settings;
  }

  async update(tenantId: string, patch: Partial<TenantSettings>): Promise<TenantSettings> {
    const next = { ...(await this.get(tenantId)), ...patch };
    try {
      await this.docs.put(tenantId, 'settings', 'mediator', next);
    } catch (err) {
      // what a failed write left stored is not known: the next get reads it
      this.generation++;
      this.cache.delete(tenantId);
      throw err;
    }
    this.generation++;
    this.cache.set(tenantId, next);
    return next;
  }
}
