import t from 'tap';
import { createLogger } from '../../../../node/logging.js';
import { openDatabase } from '../../../../node/state/db.js';
import { Mailer } from '../../../../plugins/common/mail/index.js';
import { createAccounts } from '../../../../plugins/kyc/accounts/index.js';
import { AccountStore, type UserRow } from '../../../../plugins/kyc/accounts/store.js';
import { parseKycConfig } from '../../../../plugins/kyc/config.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';

/** Accounts stored before teams and roles: no role on the row, no team index. */

t.test('an account made before teams is its organization\'s only member and owner', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const ns = db.pluginStore('kyc');
  const old = new AccountStore(new PluginDb(ns));
  const createdAt = '2025-01-01T00:00:00.000Z';
  const legacy: UserRow = { id: 'usr_legacy', email: 'old@example.org', name: 'Old', organizationId: 'org_legacy', createdAt, passwordHash: null, passwordChangedAt: null, totpSecret: null, totpPending: null };
  await old.users.put(legacy.id, legacy);
  await old.orgs.put('org_legacy', { id: 'org_legacy', name: 'Old Ltd', email: legacy.email, plan: 'free', totpEnabled: false, createdAt });
  t.same(await old.membersOf('org_legacy'), [], 'no team index yet');

  const log = createLogger({ level: 'silent' });
  const mailer = new Mailer({ store: ns, smtpUrl: undefined, from: 'kyc@ledger.test', log });
  const config = parseKycConfig({ enabled: true, host: '127.0.0.1', port: 0 });
  const accounts = await createAccounts({ config, db: new PluginDb(ns), log, now: Date.now, publicUrl: () => 'http://127.0.0.1' }, mailer);
  t.same((await accounts.team.list('org_legacy')).members, [{ id: 'usr_legacy', email: 'old@example.org', name: 'Old', role: 'owner', totpEnabled: false, createdAt }], 'indexed at start, read as owner');
  t.equal(await accounts.store.meta.get('members-indexed'), true);
  t.equal((await accounts.store.users.get('usr_legacy'))?.role, undefined, 'the stored row is left as it was');

  await accounts.store.members.del('org_legacy\x00usr_legacy');
  await accounts.store.indexMembers();
  t.same(await accounts.store.membersOf('org_legacy'), [], 'once per store: the scan does not run at every start');
});
