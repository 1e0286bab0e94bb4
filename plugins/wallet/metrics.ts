import { Counter, Gauge, type Registry } from 'prom-client';
import { metric, withMethod } from '../common/metrics.js';
import type { Relay } from './chain/relay.js';
import type { RecoveryService } from './guardians/recovery.js';
import type { Registration } from './users/register.js';

/**
 * The wallet plugin's Prometheus metrics, on the node's registry (`GET /metrics` on the RPC port).
 * The parts know nothing of them: the composition root wraps what it hands them.
 *
 *   ledger_wallet_registrations_total{origin}     users registered: created (DidCreate) or imported
 *   ledger_wallet_relayed_total{kind}             user transactions relayed to the mempool
 *   ledger_wallet_recovery_total{step}            recovery requests initiated, approvals, finalizations
 *   ledger_wallet_index_lag_blocks                committed blocks the history index has not read (at scrape)
 *   ledger_wallet_sponsor_balance_tokens          the sponsor account's balance (at scrape)
 */

export const RELAYED_KINDS = ['Transfer', 'Stake', 'Unstake'] as const;
export const RECOVERY_STEPS = ['initiated', 'approved', 'finalized'] as const;

export class WalletMetrics {
  private readonly registrations: Counter<'origin'>;
  private readonly relayed: Counter<'kind'>;
  private readonly recoverySteps: Counter<'step'>;

  constructor(private readonly registry: Registry) {
    this.registrations = metric(registry, 'ledger_wallet_registrations_total', () => new Counter({ name: 'ledger_wallet_registrations_total', help: 'wallet users registered, by origin', labelNames: ['origin'], registers: [registry] }));
    this.relayed = metric(registry, 'ledger_wallet_relayed_total', () => new Counter({ name: 'ledger_wallet_relayed_total', help: 'user-signed transactions relayed to the mempool, by payload kind', labelNames: ['kind'], registers: [registry] }));
    this.recoverySteps = metric(registry, 'ledger_wallet_recovery_total', () => new Counter({ name: 'ledger_wallet_recovery_total', help: 'guardian recovery steps: initiated, approved, finalized', labelNames: ['step'], registers: [registry] }));
    for (const origin of ['created', 'imported']) this.registrations.inc({ origin }, 0);
    for (const kind of RELAYED_KINDS) this.relayed.inc({ kind }, 0);
    for (const step of RECOVERY_STEPS) this.recoverySteps.inc({ step }, 0);
  }

  countRegistrations(r: Registration): Registration {
    return withMethod(r, 'register', async (...args: Parameters<Registration['register']>) => {
      const result = await r.register(...args);
      if (result.created) this.registrations.inc({ origin: result.user.origin });
      return result;
    });
  }

  countRelays(relay: Relay): Relay {
    return withMethod(relay, 'relay', async (...args: Parameters<Relay['relay']>) => {
      const result = await relay.relay(...args);
      const kinds = args[2];
      this.relayed.inc({ kind: kinds.length === 1 ? kinds[0]! : 'other' });
      return result;
    });
  }

  countRecovery(recovery: RecoveryService): RecoveryService {
    const step = <K extends 'initiate' | 'approve' | 'finalize'>(target: RecoveryService, key: K, label: (typeof RECOVERY_STEPS)[number]) =>
      withMethod(target, key, (async (...args: unknown[]) => {
        const out = await (recovery[key] as (...a: unknown[]) => Promise<unknown>)(...args);
        this.recoverySteps.inc({ step: label });
        return out;
      }) as RecoveryService[K]);
    return step(step(step(recovery, 'initiate', 'initiated'), 'approve', 'approved'), 'finalize', 'finalized');
  }

  /** The gauges, read at scrape time; the returned function removes them (the plugin stopped). */
  collect(read: { indexLag(): Promise<number>; sponsorBalance(): Promise<bigint> }): () => void {
    const names = ['ledger_wallet_index_lag_blocks', 'ledger_wallet_sponsor_balance_tokens'];
    for (const name of names) this.registry.removeSingleMetric(name);
    new Gauge({ name: names[0]!, help: 'committed blocks the wallet history index has not read yet', registers: [this.registry], async collect() { this.set(await read.indexLag()); } });
    new Gauge({ name: names[1]!, help: 'the wallet sponsor account balance, in LGR', registers: [this.registry], async collect() { this.set(Number(await read.sponsorBalance()) / 1e8); } });
    return () => {
      for (const name of names) this.registry.removeSingleMetric(name);
    };
  }
}
