import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { openDatabase } from '../../../../node/state/db.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { GuardianStore, newGuardianId, newInviteToken, tokenHash, type GuardianRecord, type RecoveryRequest } from '../../../../plugins/wallet/guardians/store.js';

async function store(t: Test): Promise<{ s: GuardianStore; db: PluginDb }> {
  const raw = await openDatabase('memory');
  t.teardown(() => raw.close());
  const db = new PluginDb(raw.pluginStore('wallet'));
  return { s: new GuardianStore(db), db };
}

const DID_A = 'did:ledger:testnet:2WRXAwiHCW7rvEpkN1nPmFY5hiUC';
const DID_B = 'did:ledger:testnet:2qxzFjpYXMFGbCquBTpYM7xqNTkA';

function invite(o: Partial<GuardianRecord> = {}): GuardianRecord {
  return {
    id: newGuardianId(),
    ownerUserId: 'usr_owner',
    ownerDid: 'did:ledger:testnet:E4ADWjgjm7q25MvG89xRhyqHyFD',
    guardianDid: null,
    guardianEmail: 'g@example.com',
    guardianName: null,
    status: 'invited',
    tokenHash: tokenHash(newInviteToken()),
    invitedAt: new Date().toISOString(),
    acceptedAt: null,
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    ...o,
  };
}

t.test('guardian indexes follow the record: token while invited, DID once known, nothing once removed', async (t) => {
  const { s } = await store(t);
  const token = newInviteToken();
  t.match(token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  const g = await s.create(invite({ tokenHash: tokenHash(token) }));
  t.equal((await s.byTokenHash(tokenHash(token)))?.id, g.id);
  t.same((await s.forEmail('G@Example.com')).map((x) => x.id), [g.id], 'email lookups ignore case');
  t.same(await s.forDid(DID_A), []);
  t.same((await s.ofOwner('usr_owner')).map((x) => x.id), [g.id]);

  const active = await s.update(g.id, (r) => ({ ...r, status: 'active', guardianDid: DID_A, acceptedAt: new Date().toISOString() }));
  t.equal(active.status, 'active');
  t.equal(await s.byTokenHash(tokenHash(token)), undefined, 'a confirmed invite\'s token no longer works');
  t.same((await s.forDid(DID_A)).map((x) => x.id), [g.id]);

  const other = await s.create(invite({ guardianDid: DID_B, guardianEmail: null, invitedAt: new Date(Date.parse(g.invitedAt) + 1000).toISOString() }));
  t.same((await s.ofOwner('usr_owner')).map((x) => x.id), [g.id, other.id], 'oldest first');
  await s.update(g.id, (r) => ({ ...r, status: 'removed' }));
  t.same(await s.forDid(DID_A), []);
  t.same(await s.forEmail('g@example.com'), []);
  t.same((await s.ofOwner('usr_owner')).map((x) => x.id), [other.id]);
  t.equal((await s.get(g.id))?.status, 'removed', 'the record stays, as history');
  await t.rejects(s.update('gdn_000000000000000000000000', (r) => r), { code: 'GUARDIAN_NOT_FOUND' });
});

function request(o: Partial<RecoveryRequest> = {}): RecoveryRequest {
  return {
    requestId: randomUUID(),
    subjectDid: 'did:ledger:testnet:E4ADWjgjm7q25MvG89xRhyqHyFD',
    newPublicKey: 'ab'.repeat(32),
    versionId: 2,
    guardians: [DID_A, DID_B],
    threshold: 2,
    delayBlocks: 0,
    approvals: [],
    status: 'open',
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    txHash: null,
    submittedAt: null,
    ...o,
  };
}

t.test('a recovery request is listed for its guardians while open', async (t) => {
  const { s } = await store(t);
  const r: RecoveryRequest = request();
  await s.createRequest(r);
  t.same((await s.requestsForGuardian(DID_A)).map((x) => x.requestId), [r.requestId]);
  t.same((await s.requestsForGuardian(DID_B)).map((x) => x.requestId), [r.requestId]);
  const approved = await s.updateRequest(r.requestId, (x) => ({ ...x, approvals: [{ guardianDid: DID_A, signature: '00'.repeat(64), approvedAt: x.createdAt }] }));
  t.equal(approved.approvals.length, 1);
  t.same((await s.requestsForGuardian(DID_A)).map((x) => x.requestId), [r.requestId], 'an approval keeps it listed (the caller filters its own)');
  await s.updateRequest(r.requestId, (x) => ({ ...x, status: 'submitted', txHash: 'cd'.repeat(32) }));
  t.same(await s.requestsForGuardian(DID_A), []);
  t.same(await s.requestsForGuardian(DID_B), []);
  t.equal((await s.getRequest(r.requestId))?.txHash, 'cd'.repeat(32));
  await t.rejects(s.updateRequest(randomUUID(), (x) => x), { code: 'RECOVERY_NOT_FOUND' });
});

t.test('a request is found by its DID and new key while open or submitted', async (t) => {
  const { s } = await store(t);
  const a = await s.createRequest(request());
  const b = await s.createRequest(request({ newPublicKey: 'cd'.repeat(32) }));
  t.equal((await s.requestFor(a.subjectDid, a.newPublicKey))?.requestId, a.requestId);
  t.same((await s.requestsOf(a.subjectDid)).map((x) => x.requestId).sort(), [a.requestId, b.requestId].sort(), 'one per new key');
  await s.updateRequest(a.requestId, (x) => ({ ...x, status: 'submitted', txHash: 'ef'.repeat(32) }));
  t.equal((await s.requestFor(a.subjectDid, a.newPublicKey))?.requestId, a.requestId, 'submitted: still the request for that key');
  await s.updateRequest(a.requestId, (x) => ({ ...x, status: 'expired' }));
  await s.updateRequest(b.requestId, (x) => ({ ...x, status: 'superseded', supersededBy: a.requestId }));
  t.equal(await s.requestFor(a.subjectDid, a.newPublicKey), undefined, 'over: the key may start again');
  t.same(await s.requestsOf(a.subjectDid), []);
  t.same(await s.requestsForGuardian(DID_A), []);
});
