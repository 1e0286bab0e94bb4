import t from 'tap';
import { ecvrfProve } from '../../node/crypto/ecvrf.js';
import { readAccount } from '../../node/execution/state-access.js';
import { readVerification } from '../../node/execution/verification.js';
import { MIN_VALIDATOR_STAKE } from '../../node/protocol/params.js';
import type { UnsignedVerificationRequest, VerificationAnswerItem } from '../../node/protocol/payloads.js';
import { verifyTransactionSignature } from '../../node/protocol/transaction.js';
import { signAnswer } from '../../node/protocol/verification-answer.js';
import { requestKeyOf } from '../../node/protocol/verification-records.js';
import { signVerificationRequest, verifyVerificationRequest, type ClaimResult } from '../../node/protocol/verification.js';
import { CHAIN, Chain, member, tx, type Member } from './chain-harness.js';
import { didOf } from './credential-helpers.js';

const validators = [member(41), member(42), member(43), member(44)];
const dapp = member(51);
const subject = member(52);
const stranger = member(53);
const FEE = 1_000_000n;

async function setup(): Promise<Chain> {
  const chain = await Chain.genesis(validators.map((who) => ({ who, stake: MIN_VALIDATOR_STAKE })), { funded: [dapp, subject, stranger, ...validators] });
  await chain.block([dapp, subject].map((m) => tx(m, chain.nonce(m), { kind: 'DidCreate', service: [] })));
  return chain;
}

const nextNonce = (chain: Chain, who: Member) => Number(chain.nonces.get(Buffer.from(who.address).toString('hex')) ?? 0n);
let ids = 0;
function request(chain: Chain, o: Partial<UnsignedVerificationRequest> = {}, who: Member = dapp): UnsignedVerificationRequest {
  return {
    version: '1.0',
    requestId: `req-${++ids}`,
    timestamp: 1_767_225_600_000,
    requester: { did: didOf(who), purpose: 'age check' },
    subject: { did: didOf(subject) },
    requiredClaims: [{ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 }, acceptZKProof: true }],
    fee: String(FEE),
    chainId: CHAIN,
    nonce: nextNonce(chain, who),
    validForBlocks: 10,
    ...o,
  };
}

function requestTx(chain: Chain, r: UnsignedVerificationRequest, who: Member = dapp) {
  return tx(who, chain.nonce(who), { kind: 'VerificationRequest', request: r });
}

const result = (satisfied: boolean): ClaimResult[] => [
  { type: 'KYCCredential', satisfied, issuer: 'did:ledger:testnet:issuer', issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z', proofType: 'zk-snark', zkProofReference: 'bbs-bls12381-sha256:ab', ...(satisfied ? {} : { reason: 'constraint_not_met:minimumAge' }) },
];

async function answerItem(chain: Chain, who: Member, requestId: string, claims: ClaimResult[], o: { presentationHash?: Uint8Array; signWith?: Member; vrf?: boolean } = {}): Promise<VerificationAnswerItem> {
  const v = (await readVerification(chain.state, requestKeyOf(requestId)))!;
  const presentationHash = o.presentationHash ?? new Uint8Array(32).fill(7);
  return {
    requestId,
    ...(o.vrf ? { vrfProof: ecvrfProve(who.ed.seed, v.seed) } : {}),
    presentationHash,
    claims,
    signature: signAnswer((o.signWith ?? who).ed.seed, CHAIN, requestId, presentationHash, claims),
  };
}

async function answer(chain: Chain, who: Member, requestId: string, claims: ClaimResult[], o: Parameters<typeof answerItem>[4] = {}) {
  return tx(who, chain.nonce(who), { kind: 'VerificationAnswer', ...(await answerItem(chain, who, requestId, claims, o)) });
}

/** one member's answers to several requests in one VerificationAnswerBatch transaction */
async function batch(chain: Chain, who: Member, requestIds: string[], claims: ClaimResult[]) {
  const answers = await Promise.all(requestIds.map((id) => answerItem(chain, who, id, claims)));
  return tx(who, chain.nonce(who), { kind: 'VerificationAnswerBatch', answers });
}

t.test('the request is its own transaction: one signature, the requester\'s, over the seed\'s signing rule', async (t) => {
  const chain = await setup();
  const r = request(chain);
  const signed = requestTx(chain, r);
  t.ok(verifyTransactionSignature(CHAIN, signed));
  const seedForm = signVerificationRequest(r, dapp.ed.seed);
  t.equal(Buffer.from(signed.signature).toString('hex'), seedForm.signature, 'the transaction signature is the request signature');
  t.ok(verifyVerificationRequest(seedForm, dapp.ed.publicKey));
  t.notOk(verifyTransactionSignature('another-chain', signed), 'bound to the chain');
  t.notOk(verifyTransactionSignature(CHAIN, { ...signed, nonce: signed.nonce + 1n }), 'bound to the nonce');
});

t.test('held fee, committee answers, final at the threshold, the fee pays the members that agreed', async (t) => {
  const chain = await setup();
  const r = request(chain);
  const before = await readAccount(chain.state, dapp.address);
  const res = await chain.block([requestTx(chain, r)]);
  const out = res.txs[0]!.outcome;
  t.equal(out.status, 'success');
  t.match(out.events, [{ type: 'VerificationRequested', request_id: r.requestId, subject: didOf(subject), deadline_height: chain.height + 10 }]);
  t.equal((await readAccount(chain.state, dapp.address)).balance, before.balance - FEE - out.feePaid, 'the request fee is held');
  const pending = (await readVerification(chain.state, requestKeyOf(r.requestId)))!;
  t.equal(pending.status, 'pending');
  t.equal(pending.threshold, 3);
  t.equal(pending.committeeSize, 4);
  t.equal(pending.requestMs, chain.timestampMs);

  const balances = await Promise.all(validators.map((v) => readAccount(chain.state, v.address)));
  const answers = await chain.block(await Promise.all(validators.slice(0, 3).map((v) => answer(chain, v, r.requestId, result(true)))));
  t.same(answers.txs.map((e) => e.outcome.status), ['success', 'success', 'success']);
  t.match(answers.txs[2]!.outcome.events, [{ type: 'VerificationAnswered', answers: 3 }, { type: 'VerificationFinalized', verified: true, consensus_round: chain.height }]);
  const v = (await readVerification(chain.state, requestKeyOf(r.requestId)))!;
  t.equal(v.status, 'final');
  t.same(v.outcome, { verified: true, agreed: [0, 1, 2], height: chain.height, round: chain.height, finalMs: chain.timestampMs });
  const share = FEE / 3n;
  for (const [i, m] of validators.slice(0, 3).entries()) {
    const got = (await readAccount(chain.state, m.address)).balance - balances[i]!.balance;
    t.equal(got + answers.txs[i]!.outcome.feePaid, i === 0 ? share + (FEE - 3n * share) : share, `member ${i} is paid its share`);
  }
  const late = await chain.block([await answer(chain, validators[3]!, r.requestId, result(true))]);
  t.equal(late.txs[0]!.outcome.status, `failed: verification request ${r.requestId} is already final`, 'nothing is paid twice');
});

t.test('a batch of answers: each applies or is refused on its own; the batch fails only when all are refused', async (t) => {
  const chain = await setup();
  const requests: UnsignedVerificationRequest[] = [];
  for (let i = 0; i < 3; i++) {
    requests.push(request(chain, { requestId: `batch-${i}` }));
    await chain.block([requestTx(chain, requests.at(-1)!)]);
  }
  const [r1, r2, r3] = requests as [UnsignedVerificationRequest, UnsignedVerificationRequest, UnsignedVerificationRequest];
  await chain.block([await answer(chain, validators[3]!, r3.requestId, result(true))]);
  const balance = (await readAccount(chain.state, validators[3]!.address)).balance;
  const first = await chain.block([await batch(chain, validators[3]!, [r1.requestId, r2.requestId, r3.requestId], result(true))]);
  const out = first.txs[0]!.outcome;
  t.equal(out.status, 'success', 'two of three answers applied');
  t.match(out.events, [
    { type: 'VerificationAnswered', request_id: r1.requestId, answers: 1 },
    { type: 'VerificationAnswered', request_id: r2.requestId, answers: 1 },
    { type: 'VerificationAnswerRefused', request_id: r3.requestId, reason: /already answered/ },
  ]);
  t.equal((await readAccount(chain.state, validators[3]!.address)).balance, balance - out.feePaid, 'one fee for the whole batch');

  // two more members in batches: both requests final, each in its own receipt events
  await chain.block([await batch(chain, validators[0]!, [r1.requestId, r2.requestId], result(true))]);
  const closing = await chain.block([await batch(chain, validators[1]!, [r2.requestId, r1.requestId], result(true))]);
  t.same(closing.txs[0]!.outcome.events.filter((e) => e.type === 'VerificationFinalized').map((e) => 'request_id' in e && e.request_id), [r2.requestId, r1.requestId]);
  for (const r of [r1, r2]) t.equal((await readVerification(chain.state, requestKeyOf(r.requestId)))!.status, 'final');

  const refused = await chain.block([await batch(chain, validators[2]!, [r1.requestId, r2.requestId], result(true))]);
  t.equal(refused.txs[0]!.outcome.status, `failed: all 2 answers refused; the first: verification request ${r1.requestId} is already final`);
  t.same(refused.txs[0]!.outcome.events, [], 'a failed transaction leaves no events');
});

t.test('an unsatisfied claim is a final verified: false; answers that differ do not count together', async (t) => {
  const chain = await setup();
  const r = request(chain);
  await chain.block([requestTx(chain, r)]);
  const split = await chain.block([
    await answer(chain, validators[0]!, r.requestId, result(false)),
    await answer(chain, validators[1]!, r.requestId, result(true)),
    await answer(chain, validators[2]!, r.requestId, result(false)),
    await answer(chain, validators[3]!, r.requestId, result(false), { presentationHash: new Uint8Array(32).fill(9) }),
  ]);
  t.same(split.txs.map((e) => e.outcome.status), ['success', 'success', 'success', 'success']);
  t.equal((await readVerification(chain.state, requestKeyOf(r.requestId)))!.status, 'pending', 'no three members signed the same thing');

  const r2 = request(chain);
  await chain.block([requestTx(chain, r2)]);
  await chain.block(await Promise.all(validators.slice(1).map((v) => answer(chain, v, r2.requestId, result(false)))));
  const v2 = (await readVerification(chain.state, requestKeyOf(r2.requestId)))!;
  t.equal(v2.status, 'final');
  t.equal(v2.outcome!.verified, false);
});

t.test('a request that no threshold answers expires at its deadline and its fee goes back', async (t) => {
  const chain = await setup();
  const r = request(chain, { validForBlocks: 5 });
  await chain.block([requestTx(chain, r)]);
  const deadline = chain.height + 5;
  const held = (await readAccount(chain.state, dapp.address)).balance;
  await chain.until(deadline - 1);
  t.equal((await readVerification(chain.state, requestKeyOf(r.requestId)))!.status, 'pending');
  await chain.block();
  t.equal((await readVerification(chain.state, requestKeyOf(r.requestId)))!.status, 'expired');
  t.equal((await readAccount(chain.state, dapp.address)).balance, held + FEE, 'the fee is back');
  const after = await chain.block([await answer(chain, validators[0]!, r.requestId, result(true))]);
  t.equal(after.txs[0]!.outcome.status, `failed: verification request ${r.requestId} expired at height ${deadline}`);
});

t.test('failures: each with its reason, and only the transaction fee taken', async (t) => {
  const chain = await setup();
  const fail = async (who: Member, r: UnsignedVerificationRequest) => {
    const before = await readAccount(chain.state, who.address);
    const res = await chain.block([requestTx(chain, r, who)]);
    const o = res.txs[0]!.outcome;
    t.equal((await readAccount(chain.state, who.address)).balance, before.balance - o.feePaid, 'no request fee taken');
    return o.status;
  };
  t.match(await fail(stranger, request(chain, {}, stranger)), /failed: requester DID not found/);
  t.match(await fail(dapp, request(chain, { subject: { did: didOf(stranger) } })), /failed: subject DID not found/);
  const first = request(chain);
  await chain.block([requestTx(chain, first)]);
  t.equal(await fail(dapp, request(chain, { requestId: first.requestId })), `failed: requestId already used: ${first.requestId}`);
  // a subject key signing a request in the dapp's name
  t.match(await fail(subject, request(chain, { nonce: nextNonce(chain, subject) }, dapp)), /failed: .*requester DID's authentication key/);

  const r = request(chain);
  await chain.block([requestTx(chain, r)]);
  const bad = await chain.block([
    await answer(chain, stranger, r.requestId, result(true)),
    await answer(chain, validators[0]!, r.requestId, result(true), { signWith: validators[1] }),
    await answer(chain, validators[1]!, r.requestId, [...result(true), ...result(true)]),
    await answer(chain, validators[2]!, 'no-such-request', result(true)).catch(() => undefined),
  ].filter((x) => x !== undefined));
  t.match(bad.txs.map((e) => e.outcome.status), [/is not in the current validator set/, /answer signature does not verify/, /one result per required claim/]);
  const twice = await chain.block([await answer(chain, validators[3]!, r.requestId, result(true)), await answer(chain, validators[3]!, r.requestId, result(true))]);
  t.match(twice.txs.map((e) => e.outcome.status), ['success', /already answered/]);
  const proved = await chain.block([await answer(chain, validators[2]!, r.requestId, result(true), { vrf: true })]);
  t.equal(proved.txs[0]!.outcome.status, `failed: a set of 4 validators is the whole committee; the answer carries no VRF proof (verification request ${r.requestId})`);
});

t.test('past 21 validators the VRF draws the committee: an answer needs a proof that verifies and selects its member', async (t) => {
  const many = Array.from({ length: 22 }, (_, i) => member(100 + i));
  // half the set weighs ten times the other half: the light members are seldom drawn
  const chain = await Chain.genesis(many.map((who, i) => ({ who, stake: i < 11 ? 10n * MIN_VALIDATOR_STAKE : MIN_VALIDATOR_STAKE })), { funded: [dapp, subject, ...many] });
  await chain.block([dapp, subject].map((m) => tx(m, chain.nonce(m), { kind: 'DidCreate', service: [] })));
  // the draw follows from the request id: this one leaves some light members out
  const r = request(chain, { requestId: 'req-1' });
  await chain.block([requestTx(chain, r)]);
  const v = (await readVerification(chain.state, requestKeyOf(r.requestId)))!;
  t.equal(v.committeeSize, 21);
  t.equal(v.threshold, 14);
  const res = await chain.block([
    await answer(chain, many[0]!, r.requestId, result(true)),
    ...(await Promise.all(many.slice(1).map((m) => answer(chain, m, r.requestId, result(true), { vrf: true })))),
  ]);
  const statuses = res.txs.map((e) => e.outcome.status);
  t.equal(statuses[0], `failed: a set of 22 validators draws its committee by VRF; the answer needs its VRF proof (verification request ${r.requestId})`);
  const others = statuses.slice(1);
  t.ok(others.slice(0, 10).every((s) => s === 'success'), 'the heavy members are always drawn, and answer');
  t.ok(others.some((s) => /is not in the committee \(verification request/.test(s)), 'a member the VRF did not draw is refused');
  t.ok(others.every((s) => s === 'success' || /is not in the committee|is already final/.test(s)), 'nothing else fails');
});
