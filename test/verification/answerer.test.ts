import t from 'tap';
import { ecvrfVerify } from '../../node/crypto/ecvrf.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import type { EpochValidatorSet } from '../../node/execution/validator-set.js';
import { createLogger } from '../../node/logging.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import type { PayloadOf } from '../../node/protocol/payloads.js';
import type { Transaction } from '../../node/protocol/transaction.js';
import { verifyAnswer } from '../../node/protocol/verification-answer.js';
import type { VerificationRecord } from '../../node/protocol/verification-records.js';
import { Answerer, committeeSeat } from '../../node/verification/answerer.js';
import { bbsEntry, CHAIN_ID, makeHolder, makeRequest, present, REQUEST_MS, World } from './harness.js';

const log = createLogger({ level: 'silent' });
const me = keyPairFromSeed(new Uint8Array(32).fill(21));
const other = keyPairFromSeed(new Uint8Array(32).fill(22));
const adult = await makeHolder({ seedByte: 31, uuid: '00000000-0000-4000-8000-000000000031', birthDate: '1990-05-17' });
const minor = await makeHolder({ seedByte: 32, uuid: '00000000-0000-4000-8000-000000000032', birthDate: '2015-05-17' });
const set = (...keys: Array<{ publicKey: Uint8Array }>): EpochValidatorSet =>
  ({ epoch: 0, firstHeight: 0, length: 100, validators: keys.map((k) => ({ address: addressBytesFromPublicKey(k.publicKey), blsPublicKey: new Uint8Array(48), weight: 1n })) }) as EpochValidatorSet;

function record(subject: string, requestId: string, o: Partial<VerificationRecord> = {}): VerificationRecord {
  const { signature: _s, ...request } = makeRequest(subject, [{ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 }, acceptZKProof: true }], requestId);
  return {
    request: { ...request, chainId: CHAIN_ID, nonce: 0 },
    signature: new Uint8Array(64),
    requester: new Uint8Array(20),
    subject: new Uint8Array(20),
    fee: 100_000n,
    status: 'pending',
    requestHeight: 5,
    requestMs: REQUEST_MS,
    deadlineHeight: 305,
    seed: new Uint8Array(32).fill(requestId.length),
    threshold: 2,
    committeeSize: 2,
    answers: [],
    txHash: new Uint8Array(32),
    ...o,
  };
}

function answerer(records: Map<string, VerificationRecord>, world: World, validators = set(me, other)) {
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
  t.same(sent.map((tx) => tx.nonce), [7n, 8n], 'one transaction at a time');
  const byId = new Map(sent.map((tx) => [(tx.payload as PayloadOf<'VerificationAnswer'>).requestId, tx.payload as PayloadOf<'VerificationAnswer'>]));
  const adultAnswer = byId.get('req-a')!;
  t.match(adultAnswer.claims, [{ type: 'KYCCredential', satisfied: true, proofType: 'zk-snark' }]);
  t.match(byId.get('req-m')!.claims, [{ satisfied: false, reason: 'constraint_not_met:minimumAge' }]);
  t.ok(verifyAnswer(me.publicKey, adultAnswer.signature, CHAIN_ID, 'req-a', adultAnswer.presentationHash, adultAnswer.claims), 'the answer signature verifies');
  t.ok(ecvrfVerify(me.publicKey, records.get('req-a')!.seed, adultAnswer.vrfProof), 'the VRF proof is over the request seed');
});

t.test('no answer: not a member, already answered, closed, or a presentation that is not the subject\'s', async (t) => {
  const world = new World([adult, minor]);
  const seat = (v: VerificationRecord, validators = set(me, other)) => committeeSeat(v, validators, me);
  t.same(seat(record(adult.did, 'x'), set(other)), { skip: 'not in the current validator set' });
  t.same(seat(record(adult.did, 'x', { answers: [{ publicKey: me.publicKey, presentationHash: new Uint8Array(32), claims: [], signature: new Uint8Array(64) }] })), { skip: 'already answered' });
  t.same(seat(record(adult.did, 'x', { status: 'final' })), { skip: 'request is final' });
  t.ok('vrfProof' in seat(record(adult.did, 'x')));

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
