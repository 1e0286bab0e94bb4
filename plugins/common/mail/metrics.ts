import { Counter, Gauge, type Registry } from 'prom-client';
import { metric } from '../metrics.js';

/**
 * The mailer's Prometheus metrics, on the node's registry, one series per plugin:
 *
 *   ledger_mail_total{plugin,result}   sent: the SMTP server took it; stored: kept in the outbox
 *                                      (no SMTP); retried: a queued mail's attempt failed and
 *                                      another is planned; failed: given up (a send that failed,
 *                                      a queued mail refused for good or out of attempts);
 *                                      refused: not queued, the queue was full
 *   ledger_mail_pending{plugin}        queued mails waiting for an attempt
 *
 * Several plugins share the two metrics; each Mailer writes its own plugin's series.
 */

export const MAIL_RESULTS = ['sent', 'stored', 'retried', 'failed', 'refused'] as const;
export type MailResult = (typeof MAIL_RESULTS)[number];

export class MailMetrics {
  private readonly total: Counter<'plugin' | 'result'>;
  private readonly pendingGauge: Gauge<'plugin'>;

  constructor(
    registry: Registry,
    private readonly plugin: string,
  ) {
    const registers = [registry];
    this.total = metric(registry, 'ledger_mail_total', () => new Counter({ name: 'ledger_mail_total', help: 'mails by plugin and result: sent, stored (outbox), retried (a failed attempt of a queued mail, tried again later), failed, refused (the queue was full)', labelNames: ['plugin', 'result'] as const, registers }));
    this.pendingGauge = metric(registry, 'ledger_mail_pending', () => new Gauge({ name: 'ledger_mail_pending', help: "queued mails waiting for an attempt, by plugin", labelNames: ['plugin'] as const, registers }));
    // created at 0, so rates work from the first scrape
    for (const result of MAIL_RESULTS) this.total.inc({ plugin, result }, 0);
  }

  count(result: MailResult): void {
    this.total.inc({ plugin: this.plugin, result });
  }

  pending(n: number): void {
    this.pendingGauge.set({ plugin: this.plugin }, n);
  }

  /** A stopped mailer has no queue to report. */
  close(): void {
    this.pendingGauge.remove({ plugin: this.plugin });
  }
}
