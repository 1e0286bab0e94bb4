import type { ResealedSecrets, ServiceKeySecret } from '../../../node/config/service-key-secret.js';
import type { BinarySublevel, StoreOp } from '../../../node/state/db.js';
import { compactSublevel } from '../../common/secrets/sealed-rows.js';
import { Core, Tx, bytes, openSubs, type Subs } from './level-core.js';
import { move, resealed, type SecretSlots, type StoredSecret } from './secrets.js';

/**
 * The relay's secrets in its LevelDB namespace: `ss/<name>` holds the envelope, `s/<name>` the
 * plaintext bytes a relay stored before secrets were sealed (level-core.ts). Two sublevels, so
 * that an envelope is never mistaken for plaintext bytes, nor the reverse.
 */

const TABLE = 'ss';

async function stored(subs: Pick<Subs, 's' | 'ss'>, name: string): Promise<StoredSecret | undefined> {
  const sealed = await subs.ss.get(name);
  if (sealed !== undefined) return { sealed };
  const plaintext = await subs.s.get(name);
  return plaintext === undefined ? undefined : { plaintext: new Uint8Array(bytes(plaintext)!) };
}

/** The slots of the store on `core`; call them under its write lock. */
export function levelSecretSlots(core: Core): SecretSlots {
  return {
    table: TABLE,
    get: (name) => stored(core.s, name),
    async add(name, sealed) {
      const tx = new Tx();
      tx.put(core.s.ss, name, sealed);
      await core.commit(tx);
    },
    async replace(name, sealed) {
      const tx = new Tx();
      tx.put(core.s.ss, name, sealed);
      tx.del(core.s.s, name);
      await core.commit(tx);
      // the deleted plaintext would otherwise stay in the log and table files until a compaction happens to reach it
      await compactSublevel(core.s.s);
      return true;
    },
  };
}

/**
 * `ledger service-keys rotate` on the relay's namespace `ns`: the writes that put every secret
 * there under `to` (plaintext ones sealed on the way). Throws SERVICE_KEY_SECRET_WRONG, having
 * written nothing, when one does not open under `from`.
 */
export async function resealLevelSecrets(ns: BinarySublevel, from: ServiceKeySecret, to: ServiceKeySecret): Promise<ResealedSecrets> {
  const subs = openSubs(ns);
  const names = new Set([...(await subs.ss.keys().all()), ...(await subs.s.keys().all())]);
  const m = move(from, to);
  const ops: StoreOp[] = [];
  for (const name of [...names].sort()) {
    const was = (await stored(subs, name))!;
    // as Core.commit writes them: a put or del in the child sublevel, which encodes the value
    ops.push({ type: 'put', key: name, value: await resealed({ table: TABLE }, name, was, m), sublevel: subs.ss } as unknown as StoreOp);
    if ('plaintext' in was) ops.push({ type: 'del', key: name, sublevel: subs.s } as unknown as StoreOp);
  }
  return {
    rows: [...names].sort().map((name) => `${TABLE}/${name}`),
    ops,
    compact: async () => {
      await compactSublevel(subs.ss);
      await compactSublevel(subs.s);
    },
  };
}
