import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openDatabase, type Database } from '../../../../node/state/db.js';
import { key, PluginDb } from '../../../../plugins/common/store/tables.js';
import { KeyRevocations, type RevokedKey } from '../../../../plugins/wallet/users/key-revocations.js';

/**
 * The revoked-keys table on its own, in a LevelDB directory: what each revoke and restore leaves,
 * which sessions it refuses (by the time they signed in with the key), and that a reopened store
 * says the same.
 */

const DID = 'did:ledger:testnet:2WRXAwiHCW7rvEpkN1nPmFY5hiUC';
const A = 'aa'.repeat(32);
const B = 'bb'.repeat(32);
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (minutes: number): number => T0 + minutes * 60_000;
const iso = (minutes: number): string => new Date(at(minutes)).toISOString();

async function openStore(t: Test): Promise<{ dir: string; open(): Promise<{ db: Database; r: KeyRevocations; pdb: PluginDb }> }> {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-revocations-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return {
    dir,
    async open() {
      const db = await openDatabase(dir);
      const pdb = new PluginDb(db.pluginStore('wallet'));
      return { db, r: new KeyRevocations(pdb), pdb };
    },
  };
}

function revoke(pdb: PluginDb, r: KeyRevocations, publicKey: string, replacedBy: string, minutes: number): Promise<void> {
  const batch = pdb.batch();
  r.revoke(batch, { did: DID, publicKey, replacedBy, height: minutes, revokedAt: iso(minutes) });
  return batch.write();
}

async function restore(pdb: PluginDb, r: KeyRevocations, publicKey: string, minutes: number): Promise<void> {
  const batch = pdb.batch();
  await r.restore(batch, DID, publicKey, { height: minutes, restoredAt: iso(minutes) });
  await batch.write();
}

/** which of the sessions that signed in with `publicKey` at these minutes are refused */
async function refused(r: KeyRevocations, publicKey: string, minutes: number[]): Promise<number[]> {
  const out: number[] = [];
  for (const m of minutes) if (await r.refusing(DID, publicKey, at(m))) out.push(m);
  return out;
}

t.test('a key given back signs in again, but its sessions from before stay refused, through a restart', async (t) => {
  const s = await openStore(t);
  const { db, r, pdb } = await s.open();
  await revoke(pdb, r, A, B, 10);
  t.match(await r.find(DID, A), { publicKey: A, replacedBy: B, revokedAt: iso(10) }, 'revoked: in force');
  t.same((await r.of(DID)).map((x) => x.publicKey), [A]);
  t.same(await refused(r, A, [5, 15]), [5, 15], 'in force, every session of the key is refused');

  await restore(pdb, r, A, 20);
  t.equal(await r.find(DID, A), undefined, 'given back: no revocation in force, so the key may sign in by proof and through the handoff');
  t.same(await r.of(DID), [], 'and a proof by it is not answered KEY_REPLACED_BY_RECOVERY');
  t.same(await refused(r, A, [5, 15, 20, 21]), [5, 15, 20], 'a session from before the key came back stays refused; one after works');

  await restore(pdb, r, A, 30);
  t.same(await refused(r, A, [21, 25]), [], 'a second look at the same key keeps the first restore time: the sessions begun since live on');
  await restore(pdb, r, B, 30);
  t.equal(await r.refusing(DID, B, at(1)), undefined, 'a key never revoked: restore writes nothing');

  await db.close();
  const again = await s.open();
  t.teardown(() => again.db.close());
  t.match(await again.r.refusing(DID, A, at(5)), { restoredAt: iso(20), restoredHeight: 20 }, 'after a restart the old session is still refused');
  t.equal(await again.r.refusing(DID, A, at(21)), undefined, 'and the new one still works');
  t.equal(await again.r.find(DID, A), undefined);
});

t.test('A to B, back to A, to B again: each cycle refuses the sessions begun before it', async (t) => {
  const s = await openStore(t);
  const { db, r, pdb } = await s.open();
  t.teardown(() => db.close());
  const sessions = [0, 15, 25, 35, 45];
  await revoke(pdb, r, A, B, 10); // to B
  await restore(pdb, r, A, 20); // back to A
  t.same(await refused(r, A, sessions), [0, 15], 'A given back once: only its sessions from before');
  await revoke(pdb, r, A, B, 30); // to B again
  t.notOk((await r.find(DID, A))?.restoredAt, 'revoked again: the restore mark is cleared');
  t.same(await refused(r, A, sessions), sessions, 'in force again: every session of A');
  t.match(await r.find(DID, A), { revokedAt: iso(30), height: 30 });
  await restore(pdb, r, A, 40); // and back to A
  t.same(await refused(r, A, sessions), [0, 15, 25, 35], 'given back twice: the sessions of the cycle in between end too');
});

t.test('a row written before restores were kept (no restore mark) is a revocation in force', async (t) => {
  const s = await openStore(t);
  const { db, r, pdb } = await s.open();
  t.teardown(() => db.close());
  const old: RevokedKey = { did: DID, publicKey: A, replacedBy: B, height: 7, revokedAt: iso(7) };
  await pdb.json<RevokedKey>('revoked-keys').put(key(DID, A), old);
  t.same(await r.find(DID, A), old);
  t.same(await refused(r, A, [0, 100]), [0, 100]);
  await restore(pdb, r, A, 8);
  t.same(await refused(r, A, [0, 100]), [0], 'and it is restored like any other');
});
