import type { ResealedSecrets, ServiceKeySecret } from '../../../node/config/service-key-secret.js';
import { Sealer, sealerFor, type SealedEnvelope } from '../../../node/crypto/envelope.js';
import { LedgerError } from '../../../node/errors.js';
import { fromHex } from '../../../node/protocol/bytes.js';
import type { BinarySublevel, StoreOp } from '../../../node/state/db.js';
import { PluginDb, type Table } from '../store/tables.js';

/**
 * What a sealed secret's envelope is bound to. Its table, row and purpose are the envelope's
 * associated data, so an envelope copied to another row, table or purpose does not open.
 */
export interface SealedSecret {
  table: string;
  row: string;
  /** what the secret is (`ed25519-seed`) */
  purpose: string;
  /** its length, checked when it is opened; unset: any */
  bytes?: number;
  /** for messages: "the KYC issuer's Ed25519 seed" */
  what: string;
  /** why no new secret is made when it does not open; default: the account and DID it signs for */
  why?: string;
  /** a last sentence for SERVICE_KEY_SECRET_WRONG, when the row's place calls for one */
  hint?: string;
}

/**
 * A secret kept in a row of a plugin's JSON table: the row holds its envelope
 * (node/crypto/envelope.ts) in `sealed` beside its public fields. Rows written before secrets
 * were sealed hold the secret as hex in `plaintextField`; the first read seals such a row in place.
 */
export interface SecretRow extends SealedSecret {
  bytes: number;
  plaintextField: string;
}

export type StoredRow = Record<string, unknown> & { sealed?: unknown };

export interface MigrationLog {
  info(fields: object, message: string): void;
}

const aad = (r: SealedSecret): string => `ledger-sealed-secret/v1\0${r.table}\0${r.row}\0${r.purpose}`;

function wrongSecret(r: SealedSecret, sealer: Sealer): LedgerError {
  return new LedgerError(
    'SERVICE_KEY_SECRET_WRONG',
    `${r.what} (table ${r.table}, row ${r.row}) does not open with the service-key secret from ${sealer.source}: it was encrypted under another secret, or the row was moved or altered. Configure the secret it was encrypted under (docs/operators.md, "The service-key secret"); no new key is made in its place, since ${r.why ?? 'the account and DID must stay the ones that signed'}${r.hint ? `. ${r.hint}` : ''}`,
    'invalid',
    { table: r.table, row: r.row, source: sealer.source },
  );
}

/** The secret in `envelope`; SERVICE_KEY_SECRET_WRONG when it does not open under `sealer` as `r`'s. */
export async function openSecret(r: SealedSecret, envelope: unknown, sealer: Sealer): Promise<Uint8Array> {
  const secret = await sealer.open(envelope, aad(r));
  if (!secret) throw wrongSecret(r, sealer);
  if (r.bytes !== undefined && secret.length !== r.bytes) throw new LedgerError('SEALED_SECRET_MALFORMED', `${r.what} (table ${r.table}, row ${r.row}) has ${secret.length} bytes, not ${r.bytes}`, 'internal');
  return secret;
}

/** `secret` sealed under `sealer` as `r`'s. */
export function sealSecret(r: SealedSecret, secret: Uint8Array, sealer: Sealer): Promise<SealedEnvelope> {
  return sealer.seal(secret, aad(r));
}

/** The row with its secret sealed under `sealer`, and no plaintext field. */
async function sealRow(row: StoredRow, r: SecretRow, secret: Uint8Array, sealer: Sealer): Promise<StoredRow> {
  const { [r.plaintextField]: _plaintext, sealed: _old, ...fields } = row;
  return { ...fields, sealed: await sealSecret(r, secret, sealer) };
}

/** The secret of a row, sealed or (before migration) in plaintext. */
function secretOf(row: StoredRow, r: SecretRow, sealer: Sealer): Promise<Uint8Array> {
  if (row.sealed !== undefined) return openSecret(r, row.sealed, sealer);
  return Promise.resolve(fromHex(row[r.plaintextField] as string, r.bytes, `${r.what} (table ${r.table}, row ${r.row})`));
}

/**
 * Asks LevelDB to rewrite a sublevel's key range, so that what an overwrite or a delete replaced
 * (a plaintext seed, an envelope under a retired secret) leaves the database files instead of
 * lingering in older ones. An in-memory store has no files and no compactRange.
 */
export async function compactSublevel(sub: { readonly db: unknown; readonly prefix: string }): Promise<void> {
  const root = sub.db as { compactRange?(start: Uint8Array, end: Uint8Array): Promise<void> };
  if (typeof root.compactRange !== 'function') return;
  const prefix = sub.prefix;
  const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  await root.compactRange(new TextEncoder().encode(prefix), new TextEncoder().encode(upper));
}

const compact = <V>(table: Table<V>): Promise<void> => compactSublevel(table.db);

/**
 * The row's public fields and its secret, or undefined when the row does not exist yet. A row
 * still in plaintext is sealed in place first (and logged); one that does not open under
 * `sealer` is SERVICE_KEY_SECRET_WRONG.
 */
async function readSecretRow(db: PluginDb, r: SecretRow, sealer: Sealer, log?: MigrationLog): Promise<{ row: StoredRow; secret: Uint8Array } | undefined> {
  const table = db.json<StoredRow>(r.table);
  const row = await table.get(r.row);
  if (!row) return undefined;
  const secret = await secretOf(row, r, sealer);
  if (row.sealed !== undefined) return { row, secret };
  const sealed = await sealRow(row, r, secret, sealer);
  await table.put(r.row, sealed);
  await compact(table);
  log?.info({ table: r.table, row: r.row, secret: sealer.source }, `${r.what} was stored in plaintext: it is now encrypted under the service-key secret`);
  return { row: sealed, secret };
}

/** Where the secret comes from: a PluginContext is one. */
export interface SecretSource {
  serviceKeySecret(): Promise<ServiceKeySecret>;
  log?: MigrationLog;
}

/**
 * The stored secret of row `r`, or on first use the one `make` returns, stored sealed with its
 * row's public fields. Either way the row as stored comes back with it.
 */
export async function keepSecret(db: PluginDb, r: SecretRow, source: SecretSource, make: () => Promise<{ secret: Uint8Array; fields: Record<string, unknown> }>): Promise<{ row: StoredRow; secret: Uint8Array }> {
  const sealer = sealerFor(await source.serviceKeySecret());
  const stored = await readSecretRow(db, r, sealer, source.log);
  if (stored) return stored;
  const made = await make();
  const row = await sealRow(made.fields, r, made.secret, sealer);
  await db.json<StoredRow>(r.table).put(r.row, row);
  return { row, secret: made.secret };
}

/**
 * The writes that re-encrypt the rows that exist from one secret to another (rows still in
 * plaintext are sealed on the way). Throws SERVICE_KEY_SECRET_WRONG, having written nothing,
 * when a row does not open under `from`.
 */
export async function resealRows(store: BinarySublevel, rows: readonly SecretRow[], fromSecret: ServiceKeySecret, toSecret: ServiceKeySecret): Promise<ResealedSecrets> {
  const db = new PluginDb(store);
  const from = new Sealer(fromSecret);
  const to = new Sealer(toSecret);
  const names: string[] = [];
  const ops: StoreOp[] = [];
  const tables = new Set<Table<StoredRow>>();
  for (const r of rows) {
    const table = db.json<StoredRow>(r.table);
    const row = await table.get(r.row);
    if (!row) continue;
    const next = await sealRow(row, r, await secretOf(row, r, from), to);
    // a put into the table's sublevel, as Batch in store/tables.ts writes them; the value is JSON-encoded by that sublevel
    ops.push({ type: 'put', key: r.row, value: next, sublevel: table.db } as unknown as StoreOp);
    names.push(`${r.table}/${r.row}`);
    tables.add(table);
  }
  return {
    rows: names,
    ops,
    compact: async () => {
      for (const t of tables) await compact(t);
    },
  };
}
