import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ConsensusEngine } from './consensus/engine.js';
import type { Mempool } from './mempool/index.js';
import type { ChainStore } from './state/chain-store.js';

/** Prometheus metrics, served as text at `/metrics` on the RPC port. Gauges are read at scrape time. */
export function createMetrics(deps: { engine: ConsensusEngine; mempool: Mempool; store: ChainStore }): {
  registry: Registry;
  commitLatency: Histogram;
  committedTxs: Counter;
} {
  const registry = new Registry();
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
  gauge('ledger_height', 'height of the latest committed block', () => deps.store.head()?.height ?? 0);
  gauge('ledger_seq', 'seq of the latest committed block', () => deps.store.head()?.seq ?? 0);
  gauge('ledger_round', 'current consensus round', () => deps.engine.metrics().round);
  gauge('ledger_mempool_transactions', 'transactions in the mempool', () => deps.mempool.size);
  gauge('ledger_mempool_bytes', 'bytes of transactions in the mempool', () => deps.mempool.bytes);
  gauge('ledger_consensus_votes_sent', 'votes sent', () => deps.engine.metrics().votesSent);
  gauge('ledger_consensus_votes_received', 'votes received', () => deps.engine.metrics().votesReceived);
  gauge('ledger_consensus_timeouts', 'round timeouts', () => deps.engine.metrics().timeouts);
  const commitLatency = new Histogram({
    name: 'ledger_commit_latency_seconds',
    help: 'time from proposal to commit',
    buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 10],
    registers: [registry],
  });
  const committedTxs = new Counter({ name: 'ledger_committed_transactions_total', help: 'transactions committed', registers: [registry] });
  return { registry, commitLatency, committedTxs };
}
