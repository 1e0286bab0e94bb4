import { HttpProblem } from '../../common/http/problems.js';
import { key, prefix, type Batch, type PluginDb, type Table } from '../../common/store/tables.js';

/**
 * The keys a recovery took from a DID (docs/wallet.md, "After a recovery"). Whoever holds such a
 * key may be the thief of the lost phone, so the wallet ends its sessions: the session check
 * refuses every session of a revoked key (and so every cookie renewed from one), and a revoked
 * key cannot sign in again, by proof or through the OIDC handoff. Written by the recovery watch
 * (users/recovery-watch.ts) in the batch that moves the history index's cursor.
 *
 * A later recovery may give the DID that key back. The key then signs in again, but the row stays,
 * marked restored: a session that began before the key came back (the lost phone's among them)
 * stays refused for good, however often it was renewed. Another revocation clears the mark; the
 * next restore sets it anew, so any number of revoke and restore cycles keep the rule.
 *
 * Table `revoked-keys` (json): <did> SEP <public key, hex> -> RevokedKey.
 */

/** the stable code of every refusal of a revoked key */
export const KEY_REPLACED = 'KEY_REPLACED_BY_RECOVERY';

export interface RevokedKey {
  did: string;
  publicKey: string;
  /** the DID's key when the wallet saw the change */
  replacedBy: string;
  /** the height of the block the wallet saw it in */
  height: number;
  revokedAt: string;
  /** when the wallet saw a later recovery give the key back (absent while revoked, and in older rows) */
  restoredAt?: string;
  /** the height of the block it saw that in */
  restoredHeight?: number;
}

export class KeyRevocations {
  private readonly table: Table<RevokedKey>;

  constructor(db: PluginDb) {
    this.table = db.json<RevokedKey>('revoked-keys');
  }

  /** The revocation in force of the DID's `publicKey`: none for a key never revoked, or given back since. */
  async find(did: string, publicKey: string): Promise<RevokedKey | undefined> {
    const r = await this.table.get(key(did, publicKey));
    return r && inForce(r) ? r : undefined;
  }

  /**
   * The revocation that refuses a session which signed in with `publicKey` at `signedInAt` (ms):
   * one in force, or one lifted after the session began. One read, for the session check.
   */
  async refusing(did: string, publicKey: string, signedInAt: number): Promise<RevokedKey | undefined> {
    const r = await this.table.get(key(did, publicKey));
    return r && (inForce(r) || signedInAt <= Date.parse(r.restoredAt!)) ? r : undefined;
  }

  /** the revocations in force of the DID's keys */
  async of(did: string): Promise<RevokedKey[]> {
    const out: RevokedKey[] = [];
    for await (const [, r] of this.table.entries(prefix(did))) if (inForce(r)) out.push(r);
    return out;
  }

  revoke(batch: Batch, r: Omit<RevokedKey, 'restoredAt' | 'restoredHeight'>): void {
    batch.put(this.table, key(r.did, r.publicKey), { did: r.did, publicKey: r.publicKey, replacedBy: r.replacedBy, height: r.height, revokedAt: r.revokedAt });
  }

  /**
   * `publicKey` is the DID's key again: a revocation in force is marked restored. One already
   * restored keeps its time, since the watch checks a DID again at each of its recoveries and a
   * later time would end the sessions the key began since.
   */
  async restore(batch: Batch, did: string, publicKey: string, at: { height: number; restoredAt: string }): Promise<void> {
    const r = await this.table.get(key(did, publicKey));
    if (r && inForce(r)) batch.put(this.table, key(did, publicKey), { ...r, restoredAt: at.restoredAt, restoredHeight: at.height });
  }
}

const inForce = (r: RevokedKey): boolean => r.restoredAt === undefined;

/** 403: a sign-in with a key that a recovery replaced. */
export function keyReplaced(r: RevokedKey): HttpProblem {
  return new HttpProblem('forbidden', `this key no longer controls ${r.did}: a recovery replaced it (seen at height ${r.height}); sign in with the DID's new key`, { code: KEY_REPLACED });
}
