import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { HttpProblem } from '../common/http/problems.js';
import { metric, withMethod } from '../common/metrics.js';
import { ACCOUNT_ERRORS } from './accounts/errors.js';
import type { IssuerStatus } from './issuance/issuer-did.js';
import type { CredentialIssuance, EventSink, IssuedCredential, SessionOutcomes } from './services.js';
import { KYC_EVENTS, type KycEvent, type VerificationSession } from './types.js';
import type { Caller, CreateInput } from './verification/sessions.js';

/**
 * The KYC plugin's Prometheus metrics, on the node's registry (`GET /metrics` on the RPC port).
 * The parts know nothing of them: the composition root (index.ts) wraps what it hands them.
 *
 *   ledger_kyc_sessions_created_total{mode}        sessions created, mode live or sandbox
 *   ledger_kyc_session_outcomes_total{status}      sessions finished: completed, failed, expired
 *   ledger_kyc_events_total{type}                  webhook events emitted, by event type
 *   ledger_kyc_login_failures_total{reason}        refused password logins
 *   ledger_kyc_credential_issue_seconds            pass decision → credential registered
 *   ledger_kyc_issuance_pending                    unfinished credential jobs (at scrape)
 *   ledger_kyc_issuer_balance_tokens               the issuer account's balance (cached)
 *   ledger_kyc_issuer_ready                        1 when funded and the issuer DID is active (cached)
 *
 * Every label takes values from a fixed list, created at 0 so rates work from the first scrape.
 * Counters and the histogram are reused when a plugin restarts in the same process; the gauges
 * read live objects, so each start replaces them and its stop removes them.
 */

export const SESSION_MODES = ['live', 'sandbox'] as const;
export const SESSION_OUTCOMES = ['completed', 'failed', 'expired'] as const;
export const LOGIN_FAILURE_REASONS = ['credentials', 'totp', 'throttled'] as const;
/** seconds to minutes on a healthy chain; hours when the issuer waits for funds */
export const ISSUE_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600];
/** the issuer's status is read from the chain at most this often, whatever the scrape rate */
export const ISSUER_STATUS_CACHE_MS = 5000;
/** sessions waiting for a credential whose start is remembered; beyond, the oldest is forgotten */
export const MAX_TIMED_SESSIONS = 10_000;

const OUTCOME_OF_EVENT: Partial<Record<KycEvent, (typeof SESSION_OUTCOMES)[number]>> = {
  'verification.completed': 'completed',
  'verification.failed': 'failed',
  'verification.expired': 'expired',
};

const LOGIN_FAILURE_OF_CODE: Record<string, (typeof LOGIN_FAILURE_REASONS)[number]> = {
  [ACCOUNT_ERRORS.INVALID_CREDENTIALS]: 'credentials',
  [ACCOUNT_ERRORS.TOTP_INVALID]: 'totp',
  [ACCOUNT_ERRORS.TOTP_REPLAYED]: 'totp',
  [ACCOUNT_ERRORS.LOGIN_THROTTLED]: 'throttled',
};

/** What a session creator looks like to the wrapper (SessionService). */
export interface CreatesSessions {
  create(caller: Caller, input: CreateInput): Promise<unknown>;
}

/** What a password login looks like to the wrapper (AccountService). */
export interface LogsIn {
  login(input: { email: string; password: string; totpCode?: string }, address: string): Promise<unknown>;
}

/** What the gauges read at scrape time. */
export interface KycGaugeSources {
  pendingJobs(): Promise<number>;
  issuerStatus(): Promise<Pick<IssuerStatus, 'balance' | 'funded' | 'didActive'>>;
}

export class KycMetrics {
  readonly sessionsCreated: Counter<'mode'>;
  readonly sessionOutcomes: Counter<'status'>;
  readonly events: Counter<'type'>;
  readonly loginFailures: Counter<'reason'>;
  readonly credentialIssue: Histogram;

  constructor(private readonly registry: Registry) {
    const registers = [registry];
    this.sessionsCreated = metric(registry, 'ledger_kyc_sessions_created_total', () => new Counter({ name: 'ledger_kyc_sessions_created_total', help: 'KYC verification sessions created, by mode (live or sandbox)', labelNames: ['mode'] as const, registers }));
    this.sessionOutcomes = metric(registry, 'ledger_kyc_session_outcomes_total', () => new Counter({ name: 'ledger_kyc_session_outcomes_total', help: 'KYC verification sessions that reached a final status (completed, failed or expired)', labelNames: ['status'] as const, registers }));
    this.events = metric(registry, 'ledger_kyc_events_total', () => new Counter({ name: 'ledger_kyc_events_total', help: 'KYC webhook events emitted, by event type', labelNames: ['type'] as const, registers }));
    this.loginFailures = metric(registry, 'ledger_kyc_login_failures_total', () => new Counter({ name: 'ledger_kyc_login_failures_total', help: 'refused KYC password logins: wrong email or password (credentials), wrong or reused TOTP code (totp), too many failures (throttled)', labelNames: ['reason'] as const, registers }));
    this.credentialIssue = metric(registry, 'ledger_kyc_credential_issue_seconds', () => new Histogram({ name: 'ledger_kyc_credential_issue_seconds', help: "a KYC session's pass decision to its credential registered on chain", buckets: ISSUE_BUCKETS, registers }));
    for (const mode of SESSION_MODES) this.sessionsCreated.inc({ mode }, 0);
    for (const status of SESSION_OUTCOMES) this.sessionOutcomes.inc({ status }, 0);
    for (const type of KYC_EVENTS) this.events.inc({ type }, 0);
    for (const reason of LOGIN_FAILURE_REASONS) this.loginFailures.inc({ reason }, 0);
  }

  /**
   * The webhooks sink, counting each event by type once it is recorded, and each final session
   * status (from verification.completed, .failed, .expired) whether or not recording it worked:
   * the session's change is already stored when its event is emitted.
   */
  countEvents(sink: EventSink): EventSink {
    return {
      emit: async (organizationId, type, data, event) => {
        const outcome = OUTCOME_OF_EVENT[type];
        try {
          await sink.emit(organizationId, type, data, event);
          this.events.inc({ type });
        } finally {
          if (outcome) this.sessionOutcomes.inc({ status: outcome });
        }
      },
    };
  }

  /** Session creation (the route's dependency), counted by the session's mode once it is stored. */
  countCreated<T extends CreatesSessions>(sessions: T): T {
    const create: CreatesSessions['create'] = async (caller, input) => {
      const out = await sessions.create(caller, input);
      this.sessionsCreated.inc({ mode: input.sandbox ? 'sandbox' : 'live' });
      return out;
    };
    return withMethod(sessions, 'create', create as T['create']);
  }

  /** Password logins (the route's dependency): each refusal counted by its reason; other errors are not login failures. */
  countLoginFailures<T extends LogsIn>(accounts: T): T {
    const login: LogsIn['login'] = async (input, address) => {
      try {
        return await accounts.login(input, address);
      } catch (err) {
        const reason = err instanceof HttpProblem && err.extra.code !== undefined ? LOGIN_FAILURE_OF_CODE[err.extra.code] : undefined;
        if (reason) this.loginFailures.inc({ reason });
        throw err;
      }
    };
    return withMethod(accounts, 'login', login as T['login']);
  }

  /**
   * Times each credential from the session's pass decision (its stored `decision.at`; else the
   * moment it is requested) to the issuer's report. The sessions get `issuance`; the issuer gets
   * `outcomes(sessions)`. A request repeated at start keeps the decision's time, so a restart in
   * between is part of the measure; a second report of the same credential is not counted again.
   */
  issuanceTimer(now: () => number): { issuance(inner: CredentialIssuance): CredentialIssuance; outcomes(inner: SessionOutcomes): SessionOutcomes } {
    const started = new Map<string, number>();
    return {
      issuance: (inner) => ({
        requestCredential: async (session: VerificationSession) => {
          await inner.requestCredential(session);
          if (started.has(session.id)) return;
          const decided = Date.parse(String((session as { decision?: { at?: unknown } }).decision?.at));
          started.set(session.id, Number.isFinite(decided) ? decided : now());
          if (started.size > MAX_TIMED_SESSIONS) started.delete(started.keys().next().value!);
        },
      }),
      outcomes: (inner) => ({
        credentialIssued: async (sessionId: string, credential: IssuedCredential) => {
          await inner.credentialIssued(sessionId, credential);
          const from = started.get(sessionId);
          if (from === undefined) return;
          started.delete(sessionId);
          this.credentialIssue.observe(Math.max(0, now() - from) / 1000);
        },
      }),
    };
  }

  /**
   * The gauges read at scrape time: the pending jobs, and the issuer's balance and readiness from
   * one status read shared by both and kept `cacheMs`, so scrapes never add chain reads beyond
   * one per period. A read that fails leaves the balance as it was and the issuer not ready (it
   * never fails the scrape). Returns the stop: it removes these gauges from the registry.
   */
  collect(sources: KycGaugeSources, opts: { cacheMs?: number; now?: () => number } = {}): () => void {
    const cacheMs = opts.cacheMs ?? ISSUER_STATUS_CACHE_MS;
    const now = opts.now ?? Date.now;
    let readAt = -Infinity;
    let status: Promise<Awaited<ReturnType<KycGaugeSources['issuerStatus']>> | undefined> | undefined;
    const issuer = () => {
      if (!status || now() - readAt >= cacheMs) {
        readAt = now();
        status = sources.issuerStatus().catch(() => undefined);
      }
      return status;
    };
    const names = ['ledger_kyc_issuance_pending', 'ledger_kyc_issuer_balance_tokens', 'ledger_kyc_issuer_ready'];
    for (const name of names) this.registry.removeSingleMetric(name);
    const registers = [this.registry];
    new Gauge({
      name: 'ledger_kyc_issuance_pending',
      help: 'KYC credential jobs not finished yet (waiting to be submitted, submitted, or awaiting registration on chain)',
      registers,
      async collect() {
        const n = await sources.pendingJobs().catch(() => undefined);
        if (n !== undefined) this.set(n);
      },
    });
    new Gauge({
      name: 'ledger_kyc_issuer_balance_tokens',
      help: `the KYC issuer account's balance, in tokens (read at most every ${cacheMs / 1000} s)`,
      registers,
      async collect() {
        const s = await issuer();
        const balance = s === undefined ? NaN : Number(s.balance);
        if (Number.isFinite(balance)) this.set(balance);
      },
    });
    new Gauge({
      name: 'ledger_kyc_issuer_ready',
      help: `1 when the KYC issuer account is funded and its DID is active on chain, else 0 (read at most every ${cacheMs / 1000} s)`,
      registers,
      async collect() {
        const s = await issuer();
        this.set(s?.funded && s.didActive ? 1 : 0);
      },
    });
    return () => {
      for (const name of names) this.registry.removeSingleMetric(name);
    };
  }
}
