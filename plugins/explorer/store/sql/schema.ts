import type { Migration } from '../../../common/sql/migrate.js';

/**
 * The explorer's tables, in their own schema `explorer`, for PGlite and Postgres alike. Columns
 * are named for an analyst querying them directly: block times are Unix ms (`*_ms`, bigint), the
 * times the indexer wrote a row are timestamptz, amounts are numeric. A transaction's place in the
 * chain is (block_seq, tx_index), the order every list is newest first by. Sorted text columns
 * are COLLATE "C", so ties break in byte order on every engine.
 *
 * `totals` keeps the counts the routes page with (counting a large table per request would grow
 * with the chain); every other number can be recomputed from the tables.
 */

const V1 = `
CREATE SCHEMA IF NOT EXISTS explorer;

-- the next committed seq to index; written in the transaction that writes the rows
CREATE TABLE explorer.index_cursor (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  next_seq bigint NOT NULL
);
INSERT INTO explorer.index_cursor (next_seq) VALUES (0);

-- which instance indexes (store/sql/lease.ts); the others serve reads
CREATE TABLE explorer.index_writer (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  holder text,
  expires_at timestamptz NOT NULL DEFAULT '-infinity'
);
INSERT INTO explorer.index_writer DEFAULT VALUES;

CREATE TABLE explorer.blocks (
  height bigint PRIMARY KEY,
  seq bigint NOT NULL,
  hash text NOT NULL UNIQUE,
  parent_hash text NOT NULL,
  proposer text COLLATE "C" NOT NULL,
  timestamp_ms bigint NOT NULL,
  tx_count integer NOT NULL,
  round bigint NOT NULL,
  state_root text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX blocks_by_time ON explorer.blocks (timestamp_ms);
CREATE INDEX blocks_by_proposer ON explorer.blocks (proposer, height) WHERE seq > 0;

CREATE TABLE explorer.transactions (
  hash text PRIMARY KEY,
  block_height bigint NOT NULL,
  block_seq bigint NOT NULL,
  tx_index integer NOT NULL,
  sender text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  recipient text COLLATE "C",
  amount numeric NOT NULL,
  fee numeric NOT NULL,
  status text NOT NULL,
  error_reason text,
  timestamp_ms bigint NOT NULL,
  -- json, not jsonb: the payload comes back with its keys in the order the API gave them
  raw_payload json NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (block_seq, tx_index)
);
CREATE INDEX transactions_by_type ON explorer.transactions (type, block_seq, tx_index);
CREATE INDEX transactions_by_time ON explorer.transactions (timestamp_ms, block_seq, tx_index);

-- each transaction once under its sender and once under a different recipient
CREATE TABLE explorer.address_transactions (
  address text COLLATE "C" NOT NULL,
  block_seq bigint NOT NULL,
  tx_index integer NOT NULL,
  tx_hash text NOT NULL,
  PRIMARY KEY (address, block_seq, tx_index)
);

CREATE TABLE explorer.addresses (
  address text COLLATE "C" PRIMARY KEY,
  first_seen_ms bigint NOT NULL,
  last_seen_ms bigint NOT NULL,
  tx_count bigint NOT NULL,
  sent_count bigint NOT NULL,
  did text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX addresses_by_tx_count ON explorer.addresses (tx_count, address);
CREATE INDEX addresses_by_first_seen ON explorer.addresses (first_seen_ms, address);

-- what the index knows of a validator; stake and status are read live from the chain
CREATE TABLE explorer.validators (
  address text COLLATE "C" PRIMARY KEY,
  blocks_proposed bigint NOT NULL,
  last_proposed_height bigint NOT NULL
);

CREATE TABLE explorer.dids (
  did text COLLATE "C" PRIMARY KEY,
  controller text NOT NULL,
  public_key text,
  active boolean NOT NULL,
  created_ms bigint NOT NULL,
  updated_ms bigint NOT NULL,
  tx_hash text NOT NULL,
  block_seq bigint NOT NULL,
  tx_index integer NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX dids_by_time ON explorer.dids (created_ms);
CREATE INDEX dids_by_position ON explorer.dids (block_seq);

CREATE TABLE explorer.credentials (
  credential_id text COLLATE "C" PRIMARY KEY,
  issuer_did text COLLATE "C" NOT NULL,
  subject_did text COLLATE "C" NOT NULL,
  credential_type text COLLATE "C" NOT NULL,
  hash text NOT NULL,
  issued_ms bigint NOT NULL,
  revoked boolean NOT NULL,
  revoked_ms bigint,
  tx_hash text NOT NULL,
  -- the transaction whose receipt registered it
  block_seq bigint NOT NULL,
  tx_index integer NOT NULL
);
CREATE INDEX credentials_by_position ON explorer.credentials (block_seq, tx_index, credential_id);
CREATE INDEX credentials_by_issuer ON explorer.credentials (issuer_did, block_seq, tx_index);
CREATE INDEX credentials_by_subject ON explorer.credentials (subject_did, block_seq, tx_index);
CREATE INDEX credentials_by_type ON explorer.credentials (credential_type, block_seq, tx_index);

CREATE TABLE explorer.issuers (
  issuer_did text COLLATE "C" PRIMARY KEY,
  credentials_issued bigint NOT NULL,
  active_credentials bigint NOT NULL,
  revoked_credentials bigint NOT NULL,
  first_issued_ms bigint NOT NULL,
  last_issued_ms bigint NOT NULL,
  -- where its first credential was registered, the order of the issuer list
  first_block_seq bigint NOT NULL,
  first_tx_index integer NOT NULL
);
CREATE INDEX issuers_by_first ON explorer.issuers (first_block_seq, first_tx_index, issuer_did);

-- a verification request and its outcome (the response's verdict; claims and signatures stay on chain)
CREATE TABLE explorer.verification_requests (
  request_id text COLLATE "C" PRIMARY KEY,
  requester_did text COLLATE "C" NOT NULL,
  subject_did text COLLATE "C" NOT NULL,
  purpose text NOT NULL,
  claim_types text[] NOT NULL,
  fee numeric NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'final', 'expired')),
  verified boolean,
  answers integer NOT NULL,
  request_height bigint NOT NULL,
  deadline_height bigint NOT NULL,
  final_height bigint,
  consensus_round bigint,
  request_ms bigint NOT NULL,
  final_ms bigint,
  tx_hash text NOT NULL,
  block_seq bigint NOT NULL,
  tx_index integer NOT NULL,
  -- the block that last changed the row, which a reading instance's feed follows
  changed_seq bigint NOT NULL
);
CREATE INDEX verification_requests_by_position ON explorer.verification_requests (block_seq, tx_index, request_id);
CREATE INDEX verification_requests_by_status ON explorer.verification_requests (status, block_seq, tx_index);
CREATE INDEX verification_requests_by_subject ON explorer.verification_requests (subject_did, block_seq, tx_index);
CREATE INDEX verification_requests_by_requester ON explorer.verification_requests (requester_did, block_seq, tx_index);
CREATE INDEX verification_requests_due ON explorer.verification_requests (deadline_height) WHERE status = 'pending';
CREATE INDEX verification_requests_changed ON explorer.verification_requests (changed_seq);

-- running counts: blocks, blocks_proposed, transactions, transactions_of_type:<type>, senders,
-- addresses, dids, dids_active, credentials, credentials_active, credentials_of_type:<type>,
-- issuers, verifications, verifications_<status>, verifications_verified
CREATE TABLE explorer.totals (
  name text COLLATE "C" PRIMARY KEY,
  value bigint NOT NULL
);
`;

export const EXPLORER_MIGRATIONS: readonly Migration[] = [{ version: 1, name: 'the explorer index', sql: V1 }];
