import type { Migration } from '../../../common/sql/migrate.js';

/**
 * The relay's tables in Postgres, as numbered migrations (run by migrate(), component `relay`).
 * Every key column is COLLATE "C": ids, DIDs and keys then sort by their bytes, as in the LevelDB
 * store, whatever the database's locale. Times are int8 milliseconds. Queries on pending or final
 * messages name the states with PENDING_SQL and FINAL_SQL, so that the planner matches them to
 * the partial indexes.
 */

/** the partial indexes' predicates: released in migration 1, so never edited (a change is a new migration) */
export const PENDING_SQL = `('queued', 'delivered', 'live-delivered')`;
export const FINAL_SQL = `('acknowledged', 'expired', 'failed')`;

const V1 = `
CREATE TABLE relay_mediations (
  id text COLLATE "C" PRIMARY KEY,
  tenant_id text COLLATE "C" NOT NULL,
  recipient_did text COLLATE "C" NOT NULL,
  state text NOT NULL CHECK (state IN ('requested', 'granted', 'denied', 'revoked')),
  reason text,
  gate_policy text,
  gate_state text,
  created_at int8 NOT NULL,
  updated_at int8 NOT NULL,
  granted_at int8
);
CREATE INDEX relay_mediations_tenant ON relay_mediations (tenant_id, id);

-- the mediation a recipient DID resolves to: the one last written for it
CREATE TABLE relay_mediation_dids (
  recipient_did text COLLATE "C" PRIMARY KEY,
  mediation_id text COLLATE "C" NOT NULL
);

-- a key is in at most one keylist: the primary key
CREATE TABLE relay_keys (
  key text COLLATE "C" PRIMARY KEY,
  mediation_id text COLLATE "C" NOT NULL,
  added_at int8 NOT NULL
);
CREATE INDEX relay_keys_mediation ON relay_keys (mediation_id, key);

-- body is null once dropped (acknowledged with purge, or past expires_at)
CREATE TABLE relay_messages (
  id text COLLATE "C" PRIMARY KEY,
  tenant_id text COLLATE "C" NOT NULL,
  mediation_id text COLLATE "C" NOT NULL,
  recipient text COLLATE "C" NOT NULL,
  sender text,
  protocol text NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'live-delivered', 'delivered', 'acknowledged', 'expired', 'failed')),
  size int8 NOT NULL,
  received_at int8 NOT NULL,
  delivered_at int8,
  acknowledged_at int8,
  expires_at int8 NOT NULL,
  reason text,
  body bytea
);
-- bodies are sealed envelopes: compressing them gains nothing
ALTER TABLE relay_messages ALTER COLUMN body SET STORAGE EXTERNAL;
CREATE INDEX relay_messages_pending ON relay_messages (recipient, id) WHERE state IN ${PENDING_SQL};
CREATE INDEX relay_messages_bodies ON relay_messages (expires_at, id) WHERE body IS NOT NULL;
CREATE INDEX relay_messages_final ON relay_messages (expires_at, id) WHERE state IN ${FINAL_SQL};
CREATE INDEX relay_messages_tenant ON relay_messages (tenant_id, id);
CREATE INDEX relay_messages_tenant_state ON relay_messages (tenant_id, state, id);

-- value is the document's JSON text, exactly as written
CREATE TABLE relay_documents (
  tenant_id text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (tenant_id, kind, id)
);

CREATE TABLE relay_lookups (
  name text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  tenant_id text COLLATE "C" NOT NULL,
  document_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (name, key)
);

-- a log id starts with its entry's at: id order is time order
CREATE TABLE relay_log (
  id text COLLATE "C" PRIMARY KEY,
  tenant_id text COLLATE "C" NOT NULL,
  at int8 NOT NULL,
  level text NOT NULL CHECK (level IN ('info', 'warn', 'error')),
  message text NOT NULL,
  recipient text COLLATE "C"
);
CREATE INDEX relay_log_tenant ON relay_log (tenant_id, id);
CREATE INDEX relay_log_recipient ON relay_log (tenant_id, recipient, id);

-- per-minute totals; every instance adds its own counts
CREATE TABLE relay_counters (
  tenant_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  minute int8 NOT NULL,
  n float8 NOT NULL,
  PRIMARY KEY (tenant_id, name, minute)
);

CREATE TABLE relay_secrets (
  name text COLLATE "C" PRIMARY KEY,
  value bytea NOT NULL
);
`;

/**
 * The relay's secrets sealed under the service-key secret (store/secrets.ts): `sealed` holds the
 * envelope's JSON text; `value` stays only on rows from before, until a relay seals them in
 * place. One of the two, never both.
 */
const V2 = `
ALTER TABLE relay_secrets ADD COLUMN sealed text;
ALTER TABLE relay_secrets ALTER COLUMN value DROP NOT NULL;
ALTER TABLE relay_secrets ADD CONSTRAINT relay_secrets_sealed_or_plaintext CHECK ((value IS NULL) <> (sealed IS NULL));
`;

export const RELAY_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'the relay records', sql: V1 },
  { version: 2, name: 'the relay secrets sealed', sql: V2 },
];
