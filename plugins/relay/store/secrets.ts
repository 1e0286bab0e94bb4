import type { ServiceKeySecret } from '../../../node/config/service-key-secret.js';
import { sealerFor, type Sealer, type SealedEnvelope } from '../../../node/crypto/envelope.js';
import { LedgerError, invalid } from '../../../node/errors.js';
import { openSecret, sealSecret, type MigrationLog, type SealedSecret, type SecretSource } from '../../common/secrets/sealed-rows.js';

/**
 * The relay's own secrets (the mediator's Ed25519 seed, the operator session secret), kept in its
 * store sealed under the service-key secret (docs/operators.md, "The service-key secret"). Each
 * backend keeps them in its own place (SecretSlots: LevelDB level-secrets.ts, Postgres
 * pg/secrets.ts); what is sealed how, and how a plaintext row from before is sealed in place, is
 * here once. The envelope's associated data names the relay, the backend's table and the secret's
 * name, so an envelope copied to another row or store does not open.
 */

export const MEDIATOR_SEED = 'mediator-ed25519-seed';
export const SESSION_SECRET = 'session-secret';

const KNOWN: Readonly<Record<string, Pick<SealedSecret, 'what' | 'why'>>> = {
  [MEDIATOR_SEED]: { what: "the relay mediator's Ed25519 seed", why: "the mediator's DIDs, which agents mediate under, come from it" },
  [SESSION_SECRET]: { what: "the relay's operator session secret", why: "the operators' sessions are signed with it" },
};

/** Where the relay's secrets are sealed: a PluginContext is one. */
export interface RelaySecretSource extends SecretSource {
  log?: MigrationLog & { warn(fields: object, message: string): void };
}

/** A secret as a backend holds it: an envelope, or the bytes a relay stored before secrets were sealed. */
export type StoredSecret = { sealed: unknown } | { plaintext: Uint8Array };

export interface SecretSlots {
  /** the backend's table, for the associated data and messages: `ss` (LevelDB), `relay_secrets` (Postgres) */
  readonly table: string;
  /** said when a secret does not open (several instances on one Postgres share it) */
  readonly hint?: string;
  get(name: string): Promise<StoredSecret | undefined>;
  /** stores `sealed` unless `name` has a row already (another instance's, which then wins) */
  add(name: string, sealed: SealedEnvelope): Promise<void>;
  /**
   * Replaces the plaintext row of `name`, if it still is one, by `sealed`, and purges the
   * plaintext from the files; false when another instance sealed it first.
   */
  replace(name: string, sealed: SealedEnvelope, log: RelaySecretSource['log']): Promise<boolean>;
}

/** What the envelope of the secret `name` in `slots` is bound to. */
export function relaySecret(slots: Pick<SecretSlots, 'table' | 'hint'>, name: string): SealedSecret {
  return { table: slots.table, row: name, purpose: 'relay-secret', what: `the relay's secret ${name}`, why: 'the relay gave it out', ...KNOWN[name], ...(slots.hint ? { hint: slots.hint } : {}) };
}

/**
 * The secret `name`: the stored one, or on first use the one `create` returns, stored sealed and
 * read back (insert if absent: when instances race, the first row wins for all). A plaintext row
 * is sealed in place, keeping its bytes; one that does not open is SERVICE_KEY_SECRET_WRONG, and
 * nothing is made in its place. The caller serializes calls for one name within a process.
 */
export async function keepRelaySecret(slots: SecretSlots, name: string, create: () => Uint8Array, source: RelaySecretSource): Promise<Uint8Array> {
  const r = relaySecret(slots, name);
  const sealer = sealerFor(await source.serviceKeySecret());
  let stored = await slots.get(name);
  if (stored === undefined) {
    const value = create();
    if (!(value instanceof Uint8Array)) throw invalid('RELAY_BAD_SECRET', 'a secret is bytes');
    await slots.add(name, await sealSecret(r, value, sealer));
    stored = await slots.get(name);
    if (stored === undefined) throw new LedgerError('RELAY_SECRET_LOST', `${r.what} was stored and is gone`, 'internal', { table: r.table, row: name });
  }
  if ('sealed' in stored) return openSecret(r, stored.sealed, sealer);
  // another instance sealed it first: its envelope must open under this secret too, now rather than at the next start
  if (!(await slots.replace(name, await sealSecret(r, stored.plaintext, sealer), source.log))) return keepRelaySecret(slots, name, create, source);
  source.log?.info({ table: r.table, row: name, secret: sealer.source }, `${r.what} was stored in plaintext: it is now encrypted under the service-key secret`);
  return stored.plaintext;
}

/** Sealers for a move from one service-key secret to another (`ledger service-keys rotate`). */
export interface Move {
  from: Sealer;
  to: Sealer;
}

export const move = (from: ServiceKeySecret, to: ServiceKeySecret): Move => ({ from: sealerFor(from), to: sealerFor(to) });

/**
 * The envelope of secret `name` under `m.to`, or null when it is one already. `alreadyMoved`:
 * an envelope that opens under the new secret only is left as it is (a store several nodes
 * share, which the first node's rotate moved); otherwise it is SERVICE_KEY_SECRET_WRONG.
 */
export async function resealed(slots: Pick<SecretSlots, 'table' | 'hint'>, name: string, stored: StoredSecret, m: Move, alreadyMoved = false): Promise<SealedEnvelope | null> {
  const r = relaySecret(slots, name);
  if (!('sealed' in stored)) return sealSecret(r, stored.plaintext, m.to);
  let secret: Uint8Array;
  try {
    secret = await openSecret(r, stored.sealed, m.from);
  } catch (err) {
    if (!alreadyMoved || (err as LedgerError).code !== 'SERVICE_KEY_SECRET_WRONG') throw err;
    await openSecret(r, stored.sealed, m.to).catch(() => {
      throw err;
    });
    return null;
  }
  return sealSecret(r, secret, m.to);
}
