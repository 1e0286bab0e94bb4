import t from 'tap';
import { ecvrfVerify } from '../../node/crypto/ecvrf.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import type { EpochValidatorSet } from '../../node/execution/validator-set.js';
import { createLogger } from '../../node/logging.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import type { Transaction } from '../../node/protocol/transaction.js';
import { verifyAnswer } from '../../node/protocol/verification-answer.js';
import type { VerificationRecord } from '../../node/protocol/verification-records.js';
import { AnswerSightings } from '../../node/verification/answer-sightings.js';
import { answersIn } from '../../node/verification/answer-sender.js';
import { Answerer } from '../../node/verification/answerer.js';
import { answerRank, committeeSeat } from '../../node/verification/seat.js';
import { bbsEntry, CHAIN_ID, makeHolder, pendingRecord, present, World } from './harness.js';

const log = createLogger({ level: 'silent' });
const me = keyPairFromSeed(new Uint8Array(32).fill(21));
const other = keyPairFromSeed(new Uint8Array(32).fill(22));
const adult = await makeHolder({ seedByte: 31, uuid: '00000000-0000-4000-8000-000000000031', birthDate: '1990-05-17' });
const minor = await makeHolder({ seedByte: 32, uuid: '00000000-0000-4000-8000-000000000032', birthDate: '2015-05-17' });
const set = (...keys: Array<{ publicKey: Uint8Array }>): EpochValidatorSet =>
  ({ epoch: 0, firstHeight: 0, length: 100, validators: keys.map((k) => ({ address: addressBytesFromPublicKey(k.publicKey), blsPublicKey: new Uint8Array(48), weight: 1n })) }) as EpochValidatorSet;

const record = (subject: string, requestId: string, o: Partial<VerificationRecord> = {}): VerificationRecord =>
  pendingRecord(subject, requestId, [{ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 }, acceptZKProof: true }], { seed: new Uint8Array(32).fill(requestId.length), ...o });

function answerer(records: Map<string, VerificationRecord>, world: World, validators = set(me, other), o: { sightings?: AnswerSightings; standbyDelayMs?: number } = {}) {
  const sent: Transaction[] = [];
  let nonce = 7n;
  const a = new Answerer({
    chainId: CHAIN_ID,
    seed: me.seed,
    publicKey: me.publicKey,
    verification: async (id) => records.get(id),
    validatorSet: async () => validators,
    check: { chain: world.chain(), verifyBbs: (i) => import('../../node/crypto/bbs.js').then((m) => m.verifyBbsProof(i)), verifyDirect: async () => true },
    nextNonce: async () => nonce++,
    submit: async (tx) => void sent.push(tx),
    ...o,
    log,
  });
  return { a, sent };
}

t.test('a selected member checks the presentation and sends a signed answer, nonces in order', async (t) => {
  const world = new World([adult, minor]);
  const records = new Map([
    ['req-a', record(adult.did, 'req-a')],
    ['req-m', record(minor.did, 'req-m')],
  ]);
  const { a, sent } = answerer(records, world);
  const outcomes = await Promise.all([
    a.onPresentation(present(adult, [await bbsEntry(adult, 0, ['kycLevel', 'ageOver18'], { requestId: 'req-a' })], 'req-a')),
    a.onPresentation(present(minor, [await bbsEntry(minor, 0, ['kycLevel', 'birthDate'], { requestId: 'req-m' })], 'req-m')),
  ]);
  t.same(outcomes, ['answered', 'answered']);
  t.same(sent.map((tx) => tx.nonce), sent.map((_, i) => 7n + BigInt(i)), 'nonces in order');
  const byId = new Map(sent.flatMap((tx) => answersIn(tx.payload)).map((a) => [a.requestId, a]));
  const adultAnswer = byId.get('req-a')!;
  t.match(adultAnswer.claims, [{ type: 'KYCCredential', satisfied: true, proofType: 'zk-snark' }]);
  t.match(byId.get('req-m')!.claims, [{ satisfied: false, reason: 'constraint_not_met:minimumAge' }]);
  t.ok(verifyAnswer(me.publicKey, adultAnswer.signature, CHAIN_ID, 'req-a', adultAnswer.presentationHash, adultAnswer.claims), 'the answer signature verifies');
  t.equal(adultAnswer.vrfProof, undefined, 'a set of 2 is the whole committee: no VRF proof');
});

t.test('no answer: not a member, already answered, closed, or a presentation that is not the subject\'s', async (t) => {
  const world = new World([adult, minor]);
  const seat = (v: VerificationRecord, validators = set(me, other)) => committeeSeat(v, validators, me);
  t.same(seat(record(adult.did, 'x'), set(other)), { skip: 'not in the current validator set' });
  t.same(seat(record(adult.did, 'x', { answers: [{ publicKey: me.publicKey, presentationHash: new Uint8Array(32), claims: [], signature: new Uint8Array(64) }] })), { skip: 'already answered' });
  t.same(seat(record(adult.did, 'x', { status: 'final' })), { skip: 'request is final' });
  t.same(seat(record(adult.did, 'x')), { standby: false }, 'two members, threshold 2: both answer at once');

  const records = new Map([['req-a', record(adult.did, 'req-a')]]);
  const { a, sent } = answerer(records, world);
  t.equal(await a.onPresentation(present(minor, [await bbsEntry(minor, 0, ['kycLevel', 'ageOver18'], { requestId: 'req-a' })], 'req-a')), 'refused', "another DID's presentation");
  t.equal(await a.onPresentation(present(adult, [await bbsEntry(adult, 0, ['kycLevel', 'ageOver18'], { requestId: 'req-a' })], 'unknown')), 'skipped', 'an unknown request');
  t.equal(sent.length, 0);
});

t.test('a request that closes while its check waits costs no proof work and no transaction', async (t) => {
  const world = new World([adult]);
  const records = new Map([['req-c', record(adult.did, 'req-c')]]);
  const sent: Transaction[] = [];
  let proofs = 0;
  const lookups = world.chain();
  const a = new Answerer({
    chainId: CHAIN_ID,
    seed: me.seed,
    publicKey: me.publicKey,
    verification: async (id) => records.get(id),
    validatorSet: async () => set(me, other),
    check: {
      chain: {
        ...lookups,
        // the others' answers make the request final while this member looks the credential up
        credential: async (id) => {
          records.set('req-c', { ...records.get('req-c')!, status: 'final' });
          return lookups.credential(id);
        },
      },
      verifyBbs: async () => {
        proofs++;
        return true;
      },
      verifyDirect: async () => true,
    },
    nextNonce: async () => 0n,
    submit: async (tx) => void sent.push(tx),
    log,
  });
  t.equal(await a.onPresentation(present(adult, [await bbsEntry(adult, 0, ['kycLevel', 'ageOver18'], { requestId: 'req-c' })], 'req-c')), 'skipped');
  t.equal(proofs, 0, 'no proof verified');
  t.equal(sent.length, 0, 'no answer sent');
});

t.test('the answer order: the same for every member, a different one per request; past 21 members, the VRF draws', async (t) => {
  const keys = Array.from({ length: 7 }, (_, i) => keyPairFromSeed(new Uint8Array(32).fill(60 + i)));
  const addresses = keys.map((k) => addressBytesFromPublicKey(k.publicKey));
  const ranks = (seed: Uint8Array) => addresses.map((a) => answerRank(seed, addresses, a));
  t.same([...ranks(new Uint8Array(32).fill(1))].sort(), [0, 1, 2, 3, 4, 5, 6], 'a permutation of the members');
  t.notSame(ranks(new Uint8Array(32).fill(1)), ranks(new Uint8Array(32).fill(2)), 'another seed, another order');
  const seats = keys.map((k) => committeeSeat(record(adult.did, 'x', { threshold: 5, committeeSize: 7 }), set(...keys), k));
  t.equal(seats.filter((s) => 'standby' in s && !s.standby).length, 5, 'the first 5 of 7 answer at once');
  t.equal(seats.filter((s) => 'standby' in s && s.standby).length, 2, 'the other 2 stand by');
  t.ok(seats.every((s) => !('vrfProof' in s)), 'no VRF proof up to 21 members');

  const many = [me, ...Array.from({ length: 21 }, (_, i) => keyPairFromSeed(new Uint8Array(32).fill(100 + i)))];
  const drawn = committeeSeat(record(adult.did, 'x', { threshold: 14, committeeSize: 21 }), set(...many), me);
  if ('skip' in drawn) t.equal(drawn.skip, 'not selected for this committee');
  else t.ok(drawn.vrfProof && ecvrfVerify(me.publicKey, new Uint8Array(32).fill(1), drawn.vrfProof) && !drawn.standby, 'a drawn member answers at once, with its proof');
});

/** a request (by its seed) on which `me` stands by in a set of (me, other) with threshold 1 */
function standbyRecord(requestId: string): VerificationRecord {
  const addresses = [me, other].map((k) => addressBytesFromPublicKey(k.publicKey));
  for (let b = 0; ; b++) {
    const seed = new Uint8Array(32).fill(b);
    if (answerRank(seed, addresses, addresses[0]!) === 1) return record(adult.did, requestId, { seed, threshold: 1 });
  }
}

t.test('a standby member answers only when, after its delay, the request still needs it', async (t) => {
  const world = new World([adult]);
  const entry = async (id: string) => present(adult, [await bbsEntry(adult, 0, ['kycLevel', 'ageOver18'], { requestId: id })], id);

  const records = new Map([['req-alone', standbyRecord('req-alone')]]);
  const alone = answerer(records, world, set(me, other), { standbyDelayMs: 5 });
  t.equal(await alone.a.onPresentation(await entry('req-alone')), 'answered', 'the first member is silent: the standby answers');

  const closing = new Map([['req-done', standbyRecord('req-done')]]);
  const closed = answerer(closing, world, set(me, other), { standbyDelayMs: 20 });
  const outcome = closed.a.onPresentation(await entry('req-done'));
  closing.set('req-done', { ...closing.get('req-done')!, status: 'final' });
  t.equal(await outcome, 'not_needed', 'the others made the response final during the delay');
  t.equal(closed.sent.length, 0);

  // the first member's answer is in flight but never closes the request: the standby waits, then answers anyway
  const sightings = new AnswerSightings();
  sightings.record('req-slow', other.publicKey);
  const slow = answerer(new Map([['req-slow', standbyRecord('req-slow')]]), world, set(me, other), { sightings, standbyDelayMs: 5 });
  const started = Date.now();
  t.equal(await slow.a.onPresentation(await entry('req-slow')), 'answered');
  t.ok(Date.now() - started >= 10, 'after more delays than one');
});
