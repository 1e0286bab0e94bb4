import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dataPaths } from '../../../node/config/datadir.js';
import { openDatabase } from '../../../node/state/db.js';
import { WEBHOOK_DOC, type WebhookConfig } from '../../../plugins/relay/core/events.js';
import type { RelayEvent } from '../../../plugins/relay/core/event-types.js';
import { WIRE_TENANT } from '../../../plugins/relay/core/settings.js';
import { createLevelRelayStore } from '../../../plugins/relay/store/level.js';
import { newWebhookSecret } from '../../../plugins/common/webhooks/signature.js';

/**
 * bench/relay --webhook: a tenant webhook for the wire's tenant, so that each forward also queues
 * a delivery in the relay's webhook outbox, and a receiver on 127.0.0.1 that answers 204 and
 * counts what arrives (signatures are not checked: the relay's cost is measured, not the receiver's).
 */

export interface WebhookReceiver {
  url: string;
  /** deliveries received so far, by event type */
  readonly received: Map<string, number>;
  total(): number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const type = String(req.headers['ledger-event-type'] ?? 'unknown');
      received.set(type, (received.get(type) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    total: () => [...received.values()].reduce((a, b) => a + b, 0),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Writes the wire tenant's webhook configuration into a stopped node's LevelDB, as
 * `PUT /v1/webhooks` would (which needs an operator session the bench has no provider for).
 */
export async function configureWebhook(dataDir: string, url: string, events: readonly RelayEvent[]): Promise<void> {
  const db = await openDatabase(dataPaths(dataDir).chainDb);
  try {
    const noSecrets = { serviceKeySecret: () => Promise.reject(new Error('the bench writes no relay secret')) };
    const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: noSecrets });
    const at = new Date().toISOString();
    const config: WebhookConfig = { id: `wh_${randomBytes(8).toString('hex')}`, url, events: [...events], secret: newWebhookSecret(), createdAt: at, updatedAt: at };
    await store.documents.put(WIRE_TENANT, WEBHOOK_DOC.kind, WEBHOOK_DOC.id, config);
    await store.close();
  } finally {
    await db.close();
  }
}
