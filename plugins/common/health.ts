import { quote } from './http/upstream.js';

/**
 * The shape the plugins' `/v1/health` answers share. Each part of a service reports a check:
 * `ok`, `not_configured` (an optional part the operator has not set up: a warning, not a fault)
 * or `failing` (a part that is set up and does not work). The service is `degraded` only when a
 * check fails, so a fresh node with the defaults answers `ok` and lists what it could turn on.
 */

export type CheckStatus = 'ok' | 'not_configured' | 'failing';

export interface HealthCheck {
  status: CheckStatus;
  /** what the part is doing, or what to fix */
  detail: string;
}

export type HealthChecks = Record<string, HealthCheck>;

export interface HealthSummary {
  status: 'ok' | 'degraded';
  checks: HealthChecks;
  /** the detail of every check that is not ok, failing ones first */
  warnings: string[];
}

export const ok = (detail: string): HealthCheck => ({ status: 'ok', detail });
export const notConfigured = (detail: string): HealthCheck => ({ status: 'not_configured', detail });
export const failing = (detail: string): HealthCheck => ({ status: 'failing', detail });

export function summarize(checks: HealthChecks): HealthSummary {
  const all = Object.values(checks);
  const failed = all.filter((c) => c.status === 'failing');
  const missing = all.filter((c) => c.status === 'not_configured');
  return { status: failed.length > 0 ? 'degraded' : 'ok', checks, warnings: [...failed, ...missing].map((c) => c.detail) };
}

/**
 * A check that asks something outside the process (an upstream API): its answer is kept for
 * `ttlMs`, and callers that arrive while it runs share it, so a monitor polling health does not
 * turn into load on the upstream.
 */
export class CachedProbe {
  private last: { check: HealthCheck; at: number } | undefined;
  private running: Promise<HealthCheck> | undefined;

  constructor(
    private readonly probe: () => Promise<HealthCheck>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  check(): Promise<HealthCheck> {
    if (this.last && this.now() - this.last.at < this.ttlMs) return Promise.resolve(this.last.check);
    this.running ??= this.probe()
      .catch((err: unknown) => failing(`the check itself failed: ${quote(err instanceof Error ? err.message : String(err), 300)}`))
      .then((check) => {
        this.last = { check, at: this.now() };
        this.running = undefined;
        return check;
      });
    return this.running;
  }
}
