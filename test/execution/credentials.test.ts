import t from 'tap';
import { readCredential } from '../../node/execution/credential-state.js';
import { writeGovernance } from '../../node/execution/chain-params.js';
import { readAccount } from '../../node/execution/state-access.js';
import { formatCredentialId } from '../../node/protocol/credential-id.js';
import { revocationListKey } from '../../node/protocol/credential-records.js';
import { ATTESTATION_WINDOW, MIN_VALIDATOR_STAKE } from '../../node/protocol/params.js';
import type { PayloadOf } from '../../node/protocol/payloads.js';
import { RevocationList } from '../../node/protocol/revocation-list.js';
import { Chain, member, tx, type Member } from './chain-harness.js';
import { attestation, didOf, request } from './credential-helpers.js';

const validators = [member(11), member(12), member(13), member(14)];
const issuer = member(31);
const subject = member(32);
const outsider = member(33);
const governance = member(34);
const kyc = (o: Partial<PayloadOf<'CredentialRequest'>> = {}) => request(issuer, subject, o);

async function setup(): Promise<Chain> {
  const chain = await Chain.genesis(
    validators.map((who) => ({ who, stake: MIN_VALIDATOR_STAKE })),
    { funded: [issuer, subject, outsider, governance, ...validators] },
  );
  writeGovernance(chain.state, governance.address);
  await chain.block([issuer, subject, outsider].map((m) => tx(m, chain.nonce(m), { kind: 'DidCreate', service: [] })));
  return chain;
}

async function status(chain: Chain, m: Member, payload: PayloadOf<'CredentialRequest' | 'CredentialAttest' | 'CredentialRevoke'>) {
  const res = await chain.block([tx(m, chain.nonce(m), payload)]);
  return res.txs[0]!.outcome;
}

t.test('a request is attested by the committee, registered at the threshold, and the fee pays the attesters', async (t) => {
  const chain = await setup();
  const before = await readAccount(chain.state, issuer.address);
  const p = kyc();
  const out = await status(chain, issuer, p);
  t.equal(out.status, 'success');
  t.match(out.events[0], { type: 'CredentialRequested', id: formatCredentialId(p.credentialId), deadline_height: chain.height + ATTESTATION_WINDOW });
  t.equal((await readAccount(chain.state, issuer.address)).balance, before.balance - p.fee - out.feePaid, 'the issuance fee is held');
  const pending = (await readCredential(chain.state, p.credentialId))!;
  t.equal(pending.status, 'pending');
  t.equal(pending.threshold, 3, 'ceil(2n/3) of 4 validators');

  const balances = await Promise.all(validators.map((v) => readAccount(chain.state, v.address)));
  const res = await chain.block(await Promise.all(validators.slice(0, 3).map((v) => attestation(chain, v, p.credentialId))));
  t.same(res.txs.map((e) => e.outcome.status), ['success', 'success', 'success']);
  t.match(res.txs[2]!.outcome.events, [{ type: 'CredentialAttested', attestations: 3 }, { type: 'CredentialRegistered', consensus_round: chain.height }]);
  const c = (await readCredential(chain.state, p.credentialId))!;
  t.equal(c.status, 'registered');
  t.equal(c.attestations.length, 3);
  t.ok(c.issuedMs > 0);
  const share = p.fee / 3n;
  for (const [i, v] of validators.slice(0, 3).entries()) {
    const got = (await readAccount(chain.state, v.address)).balance - balances[i]!.balance;
    t.equal(got + res.txs[i]!.outcome.feePaid, i === 0 ? share + (p.fee - 3n * share) : share, `attester ${i} is paid its share`);
  }
  const late = await chain.block([await attestation(chain, validators[3]!, p.credentialId)]);
  t.match(late.txs[0]!.outcome.status, /already registered/);
});

t.test('bad attestations fail with a clear receipt', async (t) => {
  const chain = await setup();
  const p = kyc();
  await status(chain, issuer, p);
  const [v1, v2] = validators as [Member, Member];
  const wrongSeed = await attestation(chain, v1, p.credentialId, { seed: new Uint8Array(32).fill(9) });
  const forged = await attestation(chain, v2, p.credentialId, { hash: new Uint8Array(32).fill(0x77) });
  const stranger = await attestation(chain, outsider, p.credentialId);
  const res = await chain.block([wrongSeed, forged, stranger]);
  t.match(res.txs[0]!.outcome.status, /failed: the VRF proof does not verify for the seed of credential request/);
  t.match(res.txs[1]!.outcome.status, /failed: the attestation signature does not verify over the credential hash/);
  t.match(res.txs[2]!.outcome.status, /failed: .* is not in the current validator set/);
  const first = await chain.block([await attestation(chain, v1, p.credentialId)]);
  t.equal(first.txs[0]!.outcome.status, 'success');
  const again = await chain.block([await attestation(chain, v1, p.credentialId)]);
  t.match(again.txs[0]!.outcome.status, /already attested credential/);
  const unknown = await chain.block([tx(v2, chain.nonce(v2), { kind: 'CredentialAttest', credentialId: new Uint8Array(16), vrfProof: new Uint8Array(80), signature: new Uint8Array(64) })]);
  t.match(unknown.txs[0]!.outcome.status, /no credential request urn:ledger:credential:00000000-0000-0000-0000-000000000000/);
});

t.test('requests: the issuer signs, both DIDs exist, the position is the next free one, ids are unique', async (t) => {
  const chain = await setup();
  t.match((await status(chain, outsider, kyc({ statusIndex: 0 }))).status, /not signed by the issuer DID's authentication key/);
  t.match((await status(chain, issuer, kyc({ statusIndex: 0, subject: didOf(validators[0]!) }))).status, /subject DID not found: /);
  t.match((await status(chain, issuer, kyc({ statusIndex: 5 }))).status, /revocation position \(list 0, index 5\) is not the issuer's next free position \(list 0, index 0\)/);
  const ok = kyc({ statusIndex: 0 });
  t.equal((await status(chain, issuer, ok)).status, 'success');
  t.match((await status(chain, issuer, { ...kyc({ statusIndex: 1 }), credentialId: ok.credentialId })).status, /credential id already in use/);
});

t.test('a request without enough attestations by its deadline expires and the fee goes back', async (t) => {
  const chain = await setup();
  const p = kyc({ statusIndex: 0 });
  await status(chain, issuer, p);
  const deadline = (await readCredential(chain.state, p.credentialId))!.deadlineHeight;
  await chain.block([await attestation(chain, validators[0]!, p.credentialId)]);
  const held = (await readAccount(chain.state, issuer.address)).balance;
  await chain.until(deadline - 1);
  t.equal((await readCredential(chain.state, p.credentialId))!.status, 'pending', 'still open the height before the deadline');
  await chain.block();
  t.equal((await readCredential(chain.state, p.credentialId))!.status, 'expired');
  t.equal((await readAccount(chain.state, issuer.address)).balance, held + p.fee, 'the issuance fee is refunded');
  const late = await chain.block([await attestation(chain, validators[1]!, p.credentialId)]);
  t.match(late.txs[0]!.outcome.status, new RegExp(`expired at height ${deadline}`));
});

t.test('revocation: the issuer or governance sets the bit, for good; nobody else can', async (t) => {
  const chain = await setup();
  const a = kyc({ statusIndex: 0 });
  const b = kyc({ statusIndex: 1 });
  await chain.block([tx(issuer, chain.nonce(issuer), a), tx(issuer, chain.nonce(issuer), b)]);
  t.match((await status(chain, issuer, { kind: 'CredentialRevoke', credentialId: a.credentialId })).status, /is not registered yet/);
  for (const id of [a.credentialId, b.credentialId]) await chain.block(await Promise.all(validators.slice(0, 3).map((v) => attestation(chain, v, id))));

  t.match((await status(chain, outsider, { kind: 'CredentialRevoke', credentialId: a.credentialId })).status, /only the issuer .* or the governance key can revoke/);
  t.equal((await status(chain, issuer, { kind: 'CredentialRevoke', credentialId: a.credentialId })).status, 'success');
  t.match((await status(chain, issuer, { kind: 'CredentialRevoke', credentialId: a.credentialId })).status, /is already revoked/);
  t.equal((await status(chain, governance, { kind: 'CredentialRevoke', credentialId: b.credentialId })).status, 'success');
  const list = RevocationList.fromChain((await chain.state.get(revocationListKey(issuer.address, 0)))!);
  t.ok(list.isRevoked(0) && list.isRevoked(1));
  t.equal(list.count(), 2);
  t.ok((await readCredential(chain.state, a.credentialId))!.revokedMs! > 0);
});
