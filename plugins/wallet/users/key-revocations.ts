import { HttpProblem } from '../../common/http/problems.js';
import { key, prefix, type Batch, type PluginDb, type Table } from '../../common/store/tables.js';

/**
 * The keys a recovery took from a DID (docs/wallet.md, "After a recovery"). Whoever holds such a
 * key may be the thief of the lost phone, so the wallet ends its sessions: the session check
 * refuses every session of a revoked key (and so every cookie renewed from one), and a revoked
 * key cannot sign in again, by proof or through the OIDC handoff. Written by the recovery watch
 * (guardians/recovery-watch.ts) in the batch that moves the history index's cursor.
 *
 * Table `revoked-keys` (json): <did> SEP <public key, hex> -> RevokedKey. A key the DID gets back
 * by a later recovery is taken off the table.
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
}

export class KeyRevocations {
  private readonly table: Table<RevokedKey>;

  constructor(db: PluginDb) {
    this.table = db.json<RevokedKey>('revoked-keys');
  }

  find(did: string, publicKey: string): Promise<RevokedKey | undefined> {
    return this.table.get(key(did, publicKey));
  }

  async of(did: string): Promise<RevokedKey[]> {
    const out: RevokedKey[] = [];
    for await (const [, r] of this.table.entries(prefix(did))) out.push(r);
    return out;
  }

  revoke(batch: Batch, r: RevokedKey): void {
    batch.put(this.table, key(r.did, r.publicKey), r);
  }

  /** `publicKey` is the DID's key again */
  restore(batch: Batch, did: string, publicKey: string): void {
    batch.del(this.table, key(did, publicKey));
  }
}

/** 403: a sign-in with a key that a recovery replaced. */
export function keyReplaced(r: RevokedKey): HttpProblem {
  return new HttpProblem('forbidden', `this key no longer controls ${r.did}: a recovery replaced it (seen at height ${r.height}); sign in with the DID's new key`, { code: KEY_REPLACED });
}
