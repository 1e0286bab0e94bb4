import t from 'tap';
import { readQualifyingCredential } from '../../node/execution/eligibility.js';
import { isEligible } from '../../node/execution/validator-set.js';
import { formatAddress } from '../../node/protocol/address.js';
import { toHex } from '../../node/protocol/bytes.js';
import { MIN_VALIDATOR_STAKE } from '../../node/protocol/params.js';
import type { Payload } from '../../node/protocol/payloads.js';
import { proofOfPossession } from '../../node/protocol/validator-keys.js';
import { CHAIN, Chain, member, tx, type Member } from './chain-harness.js';
import { attestation, request } from './credential-helpers.js';

const validators = [member(41), member(42), member(43), member(44)];
const issuer = member(51);
const joiner = member(52);
const other = member(53);
const LENGTH = 10;

async function send(chain: Chain, who: Member, payload: Payload) {
  return (await chain.block([tx(who, chain.nonce(who), payload)])).txs[0]!.outcome;
}

/** A 4-validator chain with the KYC rule at level 2; the joiner has staked and registered its vote key. */
async function setup(): Promise<Chain> {
  const chain = await Chain.genesis(
    validators.map((who) => ({ who, stake: MIN_VALIDATOR_STAKE })),
    { funded: [issuer, joiner, other, ...validators], length: LENGTH, kycLevel: 2 },
  );
  await chain.block([issuer, joiner, other].map((m) => tx(m, chain.nonce(m), { kind: 'DidCreate', service: [] })));
  const pop = proofOfPossession(CHAIN, joiner.address, joiner.bls.secretKey);
  await chain.block([
    tx(joiner, chain.nonce(joiner), { kind: 'Stake', amount: MIN_VALIDATOR_STAKE }),
    tx(joiner, chain.nonce(joiner), { kind: 'ValidatorRegister', blsPublicKey: pop.blsPublicKey, proofOfPossession: pop.proofOfPossession }),
  ]);
  return chain;
}

/** Requests a credential from `issuer` and has three validators register it. */
async function issue(chain: Chain, subject: Member, kycLevel: number, position: number) {
  const p = request(issuer, subject, { kycLevel, fee: kycLevel === 1 ? 100_000_000n : 500_000_000n, statusIndex: position });
  const out = await send(chain, issuer, p);
  if (out.status !== 'success') throw new Error(`request failed: ${out.status}`);
  await chain.block(await Promise.all(validators.slice(0, 3).map((v) => attestation(chain, v, p.credentialId))));
  return p.credentialId;
}

async function members(chain: Chain): Promise<string[]> {
  return ((await chain.set())?.validators ?? []).map((v) => formatAddress(v.address));
}

const nextBoundary = (chain: Chain) => Math.ceil((chain.height + 1) / LENGTH) * LENGTH - 1;

t.test('with the KYC rule, staking and a vote key are not enough: a KYC credential qualifies, its revocation disqualifies', async (t) => {
  const chain = await setup();
  const joinerAddress = formatAddress(joiner.address);
  await chain.until(nextBoundary(chain));
  t.notOk((await members(chain)).includes(joinerAddress), 'not in the set without a credential');
  t.notOk((await chain.record(joiner))!.qualified);

  const kyc2 = await issue(chain, joiner, 2, 0);
  const qualified = await send(chain, joiner, { kind: 'ValidatorQualify', credentialId: kyc2 });
  t.equal(qualified.status, 'success');
  t.match(qualified.events, [{ type: 'ValidatorQualified', address: joinerAddress }]);
  t.equal(toHex((await readQualifyingCredential(chain.state, joiner.address))!), toHex(kyc2));
  await chain.until(nextBoundary(chain));
  t.ok((await members(chain)).includes(joinerAddress), 'in the set from the next epoch');

  t.equal((await send(chain, issuer, { kind: 'CredentialRevoke', credentialId: kyc2 })).status, 'success');
  t.notOk((await chain.record(joiner))!.qualified, 'the revocation takes the qualification away');
  t.equal(await readQualifyingCredential(chain.state, joiner.address), undefined);
  await chain.until(nextBoundary(chain));
  t.notOk((await members(chain)).includes(joinerAddress), 'out of the set from the next boundary');
  t.equal((await chain.set())!.validators.length, 4, 'the genesis validators, qualified by genesis, stay');
});

t.test('ValidatorQualify refuses what does not qualify, each with its reason', async (t) => {
  const chain = await setup();
  const kyc1 = await issue(chain, joiner, 1, 0);
  t.match((await send(chain, joiner, { kind: 'ValidatorQualify', credentialId: kyc1 })).status, /is not a KYCCredential of level 2 or higher/);
  const others = await issue(chain, other, 2, 1);
  t.match((await send(chain, joiner, { kind: 'ValidatorQualify', credentialId: others })).status, /the subject of credential .* is not the sender's DID/);
  const pending = request(issuer, joiner, { statusIndex: 2 });
  await send(chain, issuer, pending);
  t.match((await send(chain, joiner, { kind: 'ValidatorQualify', credentialId: pending.credentialId })).status, /no registered credential/);
  const revoked = await issue(chain, joiner, 3, 3);
  await send(chain, issuer, { kind: 'CredentialRevoke', credentialId: revoked });
  t.match((await send(chain, joiner, { kind: 'ValidatorQualify', credentialId: revoked })).status, /is revoked/);
  t.notOk((await chain.record(joiner))!.qualified);
});

t.test('without the rule (no validator_kyc_level in state) eligibility ignores qualification', async (t) => {
  const record = { staked: MIN_VALIDATOR_STAKE, unbonding: [], reputation: 0, active: false, ed25519PublicKey: new Uint8Array(32), blsPublicKey: new Uint8Array(48).fill(1) };
  t.ok(isEligible(record));
  t.notOk(isEligible(record, true));
  t.ok(isEligible({ ...record, qualified: true }, true));
});
