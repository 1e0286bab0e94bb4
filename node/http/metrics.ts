import { Counter, Gauge, type Registry } from 'prom-client';
import type { ConnectionStats } from './connections.js';

/** An HTTP server as /metrics names it: `rpc`, or the plugin's name. */
export interface NamedServer {
  name: string;
  http: { connectionStats(): ConnectionStats };
}

/**
 * The connection gauges of the HTTP servers (docs/operators.md, "Metrics"), read at scrape time
 * from `servers()`, which may change as plugins start and stop.
 */
export function registerConnectionMetrics(registry: Registry, servers: () => Iterable<NamedServer>): void {
  const read = () => [...servers()].map((s) => ({ server: s.name, ...s.http.connectionStats() }));
  new Gauge({
    name: 'ledger_http_connections',
    help: 'connections open on each HTTP server (rpc and each plugin), WebSockets included',
    labelNames: ['server'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of read()) this.set({ server: s.server }, s.open);
    },
  });
  new Counter({
    name: 'ledger_http_connections_refused_total',
    help: 'connections each HTTP server refused: total and per_ip (over that cap, answered 503), overflow (closed unanswered: too many refusals at once)',
    labelNames: ['server', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of read()) for (const [reason, n] of Object.entries(s.refused)) this.inc({ server: s.server, reason }, n);
    },
  });
}
