import t from 'tap';
import { generateSeed, keyPairFromSeed, toHex } from '../../../../node/client/index.js';
import { openDatabase } from '../../../../node/state/db.js';
import { KeyedSerial } from '../../../../plugins/common/http/router.js';
import { HttpProblem } from '../../../../plugins/common/http/problems.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { parseWalletConfig } from '../../../../plugins/wallet/config.js';
import { RecoveryInitiation } from '../../../../plugins/wallet/guardians/initiate.js';
import { leadingZeroBits, powHash, type PowProof } from '../../../../plugins/wallet/guardians/pow.js';
import { GuardianStore } from '../../../../plugins/wallet/guardians/store.js';
import type { SignedIn } from '../harness.js';
import { approvalOf, approveAndFinalize, initiate, setPolicy, startGuardians, TEST_CONFIG, type GuardianHarness } from './fixture.js';

const newKey = () => {
  const seed = generateSeed();
  const key = keyPairFromSeed(seed).publicKey;
  return { seed, key, hex: toHex(key) };
};

/** a proof whose hash has exactly `bits` leading zero bits: an attacker that proves no more than it must */
function exactProof(challenge: string, did: string, key: string, bits: number): PowProof {
  for (let i = 0; ; i++) {
    const nonce = `x${i.toString(36)}`;
    if (leadingZeroBits(powHash(challenge, did, key, nonce)) === bits) return { challenge, nonce };
  }
}

async function withPolicy(h: GuardianHarness): Promise<{ owner: SignedIn; g1: SignedIn; g2: SignedIn; did: string }> {
  const [owner, g1, g2] = await Promise.all([h.signIn({ onChain: true }), h.signIn({ onChain: true }), h.signIn({ onChain: true })]);
  await h.makeGuardian(owner, g1);
  await h.makeGuardian(owner, g2);
  await setPolicy(h, owner, [g1, g2]);
  return { owner, g1, g2, did: owner.user.did };
}

const pendingOf = async (h: GuardianHarness, g: SignedIn): Promise<Array<{ requestId: string; newPublicKey: string }>> =>
  (await h.req('GET', '/v1/guardian/pending-requests', { cookie: g.cookie })).body;

t.test('the initiation limits are kept in the store: a restart of the wallet on the same store keeps them', async (t) => {
  const level = await openDatabase('memory');
  t.teardown(() => level.close());
  const db = new PluginDb(level.pluginStore('wallet'));
  const config = parseWalletConfig({ enabled: true, host: '127.0.0.1', port: 0, recovery: { perAddressPerHour: 2, perKeyPerHour: 3 } });
  const base = { config, db, chain: {} as never, network: 'testnet', chainId: 'ledger-testnet-1', now: Date.now };
  const make = () => new RecoveryInitiation({ base, store: new GuardianStore(db), serial: new KeyedSerial() });
  const did = 'did:ledger:testnet:2WRXAwiHCW7rvEpkN1nPmFY5hiUC';
  const refusal = (p: Promise<unknown>) => p.then(() => 'accepted', (err: unknown) => (err instanceof HttpProblem ? `${err.extra.code} ${err.extra.headers?.['retry-after'] ?? ''}`.trim() : (err as { code?: string }).code));
  const first = make();
  const key = newKey().hex;
  t.same([await refusal(first.initiate({ subjectDid: did, newPublicKey: key }, '192.0.2.1')), await refusal(first.initiate({ subjectDid: did, newPublicKey: key }, '192.0.2.1'))], ['POW_REQUIRED', 'POW_REQUIRED'], 'attempts without work are counted too');
  t.match(await refusal(first.initiate({ subjectDid: did, newPublicKey: newKey().hex }, '192.0.2.1')), /^RATE_LIMITED 3\d{3}$/, 'the address has had its two this hour');
  const restarted = make();
  t.match(await refusal(restarted.initiate({ subjectDid: did, newPublicKey: newKey().hex }, '192.0.2.1')), /^RATE_LIMITED \d+$/, 'after a restart too');
  t.equal(await refusal(restarted.initiate({ subjectDid: did, newPublicKey: key }, '192.0.2.2')), 'POW_REQUIRED', 'the key\'s third');
  t.match(await refusal(restarted.initiate({ subjectDid: did, newPublicKey: key }, '192.0.2.3')), /^RATE_LIMITED \d+$/, 'a proposed key is limited across addresses');
  t.equal(await refusal(restarted.initiate({ subjectDid: did, newPublicKey: newKey().hex }, '192.0.2.3')), 'POW_REQUIRED', 'never per DID: another caller may still start one for it');
});

t.test('1,000 initiations by an attacker do not keep the owner from recovering, and the guardians\' lists stay short', async (t) => {
  const h = await startGuardians(t);
  const { g1, g2, did } = await withPolicy(h);
  const { body: challenge } = await h.req('GET', '/v1/guardian/recovery/challenge');
  t.match(challenge, { challenge: /^[A-Za-z0-9_-]{54}$/, bits: 6, algorithm: 'sha256', expiresAt: String });

  // one address, a new key each time, each with a proof of exactly the bits asked
  const counts: Record<number, number> = {};
  const attackers: string[] = [];
  let limited;
  let full;
  for (let i = 0; i < 1000; i++) {
    const key = newKey().hex;
    const res = await initiate(h, { subjectDid: did, newPublicKey: key }, { ip: '203.0.113.66', proof: exactProof(challenge.challenge, did, key, 6) });
    counts[res.status] = (counts[res.status] ?? 0) + 1;
    if (res.status === 201) attackers.push(res.body.requestId);
    if (res.status === 409) full ??= res;
    if (res.status === 429) limited ??= res;
  }
  t.same(counts, { 201: 3, 409: 7, 429: 990 }, 'three slots taken, seven starts refused as full, the rest over the address\'s hourly limit');
  t.match(full, { body: { status: 409, code: 'PENDING_KEYS_FULL', detail: /more than 6 bits, or a guardian's approval/ } });
  t.match(limited, { body: { status: 429, code: 'RATE_LIMITED' } });
  t.match(limited!.headers.get('retry-after'), /^\d+$/);
  t.equal((await pendingOf(h, g1)).length, 3, 'the guardians see three requests, not a thousand');

  // the owner's new phone, at its own address, proves one bit more than the attacker: it takes the place of one
  const phone = newKey();
  const mine = await initiate(h, { subjectDid: did, newPublicKey: phone.hex }, { ip: '198.51.100.7', bits: 7 });
  t.equal(mine.status, 201, mine.text);
  t.equal((await pendingOf(h, g2)).length, 3);
  t.ok((await pendingOf(h, g2)).some((r) => r.requestId === mine.body.requestId), 'the owner\'s request is on the guardians\' lists');
  const displaced = await Promise.all(attackers.map((id) => h.req('GET', `/v1/guardian/recovery/${id}`)));
  t.same(displaced.map((r) => r.body.status).sort(), ['collecting', 'collecting', 'failed'], 'one of the attacker\'s requests gave up its place');
  t.match(displaced.find((r) => r.body.status === 'failed')!.body.reason, /took this request's place/);

  // a guardian vouches for the owner's request; then the attacker, proving far more from new addresses, can only displace its own
  const versionId: number = mine.body.versionId;
  t.equal((await h.req('POST', `/v1/guardian/recovery/${mine.body.requestId}/approve`, { cookie: g1.cookie, body: { signature: approvalOf(h, g1, did, phone.key, versionId) } })).status, 200);
  const strong = [];
  for (let i = 0; i < 5; i++) {
    const key = newKey().hex;
    strong.push((await initiate(h, { subjectDid: did, newPublicKey: key }, { ip: `203.0.113.${100 + i}`, proof: exactProof(challenge.challenge, did, key, 12) })).status);
  }
  t.same(strong, [201, 201, 201, 409, 409], 'the free slot and the two 6-bit requests go to the 12-bit ones; then it is full again');
  t.match((await h.req('GET', `/v1/guardian/recovery/${mine.body.requestId}`)).body, { status: 'collecting', approvals: [{ guardianDid: g1.user.did }] }, 'an approved request is never displaced');
  const g2List = await pendingOf(h, g2);
  t.equal(g2List.length, 4, 'the owner\'s request and the three the attacker holds');

  // the second guardian approves, the new phone finalizes: the DID is the owner's again and the attacker's requests are void
  const receipt = await approveAndFinalize(h, { requestId: mine.body.requestId, did, versionId, guardians: [g1, g2], newSeed: phone.seed, newKey: phone.key });
  t.match(receipt, { status: 'success', events: [{ type: 'DidRecovered', did, new_public_key: phone.hex }] });
  t.match((await h.req('GET', `/v1/guardian/recovery/${mine.body.requestId}`)).body, { status: 'completed' });
  t.same(await pendingOf(h, g2), [], 'the attacker\'s requests are stale: the guardians\' lists are empty');
});

// more tries per proposed key than the default 5 an hour: these tests try one key many ways
const MANY_TRIES = { config: { ...TEST_CONFIG, recovery: { powBits: 6, perKeyPerHour: 50 } } };

t.test('a start a guardian signed needs no work and always finds room; a repeated start returns the same request', async (t) => {
  const h = await startGuardians(t, MANY_TRIES);
  const { owner, g1, g2, did } = await withPolicy(h);
  const { body: c } = await h.req('GET', '/v1/guardian/recovery/challenge');
  const held = [];
  for (let i = 0; i < 3; i++) {
    const key = newKey().hex;
    const res = await initiate(h, { subjectDid: did, newPublicKey: key }, { ip: `203.0.113.${i + 1}`, proof: exactProof(c.challenge, did, key, 10) });
    t.equal(res.status, 201);
    held.push({ key, res });
  }
  const other = newKey().hex;
  t.match(await initiate(h, { subjectDid: did, newPublicKey: other }, { ip: '203.0.113.9', proof: exactProof(c.challenge, did, other, 10) }), { status: 409, body: { code: 'PENDING_KEYS_FULL' } });

  const phone = newKey();
  const versionId = held[0]!.res.body.versionId;
  const approval = { guardianDid: g1.user.did, signature: approvalOf(h, g1, did, phone.key, versionId) };
  const refused: Array<[Record<string, unknown>, number, string]> = [
    [{ guardianDid: owner.user.did, signature: approvalOf(h, owner, did, phone.key, versionId) }, 403, 'NOT_A_GUARDIAN'],
    [{ guardianDid: g1.user.did, signature: approvalOf(h, g2, did, phone.key, versionId) }, 400, 'BAD_RECOVERY_SIGNATURE'],
    [{ guardianDid: g1.user.did, signature: approvalOf(h, g1, did, phone.key, versionId - 1) }, 400, 'BAD_RECOVERY_SIGNATURE'],
  ];
  for (const [a, status, code] of refused) t.match(await initiate(h, { subjectDid: did, newPublicKey: phone.hex, approval: a }, { ip: '198.51.100.7', proof: null }), { status, body: { code } }, code);
  const vouched = await initiate(h, { subjectDid: did, newPublicKey: phone.hex, approval }, { ip: '198.51.100.7', proof: null });
  t.match(vouched, { status: 201, body: { proofBits: 0, approvals: 1 } }, 'accepted with no work, though the slots are full');
  t.equal((await pendingOf(h, g2)).length, 4, 'the other guardian sees it beside the three held');
  t.notOk((await pendingOf(h, g1)).some((r) => r.requestId === vouched.body.requestId), 'the guardian who signed it does not need to approve it again');

  const again = await initiate(h, { subjectDid: did, newPublicKey: phone.hex.toUpperCase() }, { ip: '198.51.100.7', bits: 9 });
  t.equal(again.status, 200, 'a repeated start is not a new request');
  t.equal(again.body.requestId, vouched.body.requestId);
  t.match(again.body, { approvals: 1 });
  t.ok(again.body.proofBits >= 9, 'it keeps the stronger proof');
  const repeat = await initiate(h, { subjectDid: did, newPublicKey: held[0]!.key }, { ip: '203.0.113.1', proof: exactProof(c.challenge, did, held[0]!.key, 10) });
  t.match(repeat, { status: 200, body: { requestId: held[0]!.res.body.requestId } }, 'the attacker\'s repeat too: full slots are no obstacle to one\'s own request');
  const list = await pendingOf(h, g2);
  t.equal(new Set(list.map((r) => r.newPublicKey)).size, list.length, 'one entry per new key');
});

t.test('a missing or wrong proof is refused', async (t) => {
  const h = await startGuardians(t, MANY_TRIES);
  const { did } = await withPolicy(h);
  const { body: c } = await h.req('GET', '/v1/guardian/recovery/challenge');
  const key = newKey().hex;
  const other = newKey().hex;
  const worth = (k: string, nonce: string) => leadingZeroBits(powHash(c.challenge, did, k, nonce));
  let forKey: PowProof | undefined;
  for (let i = 0; !forKey; i++) if (worth(key, `k${i}`) >= 6 && worth(other, `k${i}`) < 6) forKey = { challenge: c.challenge, nonce: `k${i}` };
  const cases: Array<[unknown, string]> = [
    [null, 'POW_REQUIRED'],
    [{ challenge: c.challenge }, 'POW_INVALID'],
    [{ challenge: c.challenge, nonce: 'not a nonce' }, 'POW_INVALID'],
    [{ challenge: 'A'.repeat(54), nonce: '1' }, 'POW_INVALID'],
    [{ ...forKey, challenge: `${c.challenge.slice(0, 20)}${c.challenge[20] === 'A' ? 'B' : 'A'}${c.challenge.slice(21)}` }, 'POW_INVALID'],
    [forKey, 'POW_INVALID'],
    [exactProof(c.challenge, did, other, 3), 'POW_INVALID'],
  ];
  for (const [proof, code] of cases) {
    t.match(await initiate(h, { subjectDid: did, newPublicKey: other }, { ip: '198.51.100.1', proof }), { status: 400, body: { status: 400, code, field: 'proof' } }, `${code}: ${JSON.stringify(proof).slice(0, 50)}`);
  }
  t.equal((await initiate(h, { subjectDid: did, newPublicKey: key }, { ip: '198.51.100.2', proof: forKey })).status, 201, 'the same proof for its own key');
});
