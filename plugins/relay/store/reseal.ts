import type { ResealedSecrets, ServiceKeySecret } from '../../../node/config/service-key-secret.js';
import type { PluginConfig } from '../../../node/config/schema.js';
import type { BinarySublevel } from '../../../node/state/db.js';
import { resealLevelSecrets } from './level-secrets.js';
import { RELAY_POSTGRES_UNAVAILABLE } from './pg/index.js';
import { resealPostgresSecrets } from './pg/secrets.js';

/**
 * `ledger service-keys rotate` for the relay: the secrets in its LevelDB namespace, and when the
 * relay is enabled on Postgres (`options`, the relay's section as the plugin gets it), those in
 * relay_secrets too. A relay on Postgres shares them with every instance on the database: the
 * first node's rotate moves them, the others' find them moved already (docs/operators.md).
 */
export async function resealRelaySecrets(store: BinarySublevel, from: ServiceKeySecret, to: ServiceKeySecret, options: PluginConfig): Promise<ResealedSecrets> {
  const level = await resealLevelSecrets(store, from, to);
  // the node's config loader has checked it is a postgres:// URL
  const url = options.enabled === true && typeof options.postgresUrl === 'string' ? options.postgresUrl : undefined;
  if (url === undefined) return level;
  const pg = await resealPostgresSecrets(url, from, to, RELAY_POSTGRES_UNAVAILABLE);
  return {
    rows: [...level.rows, ...pg.rows],
    ops: level.ops,
    commit: pg.commit,
    compact: async () => {
      await level.compact();
      await pg.compact();
    },
    close: pg.close,
  };
}
