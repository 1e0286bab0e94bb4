import t from 'tap';
import canonicalizeModule from 'canonicalize';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { ecvrfVerify } from '../../node/crypto/ecvrf.js';
import { concatBytes, fromHex, toHex, utf8 } from '../../node/protocol/bytes.js';
import { verificationCommitteeSeed } from '../../node/protocol/committee.js';
import type { PayloadOf } from '../../node/protocol/payloads.js';
import { encodeTransaction, signingBytes, signTransaction, transactionFromJson, transactionHash, transactionToJson, verifyTransactionSignature } from '../../node/protocol/transaction.js';
import { answerSigningBytes, verifyAnswer } from '../../node/protocol/verification-answer.js';
import { requestKeyOf } from '../../node/protocol/verification-records.js';
import { parseVerificationRequest, requestSigningBytes, verifyVerificationRequest, VERIFICATION_DOMAIN } from '../../node/protocol/verification.js';
import { loadVectors } from '../fixtures/vectors.js';

/**
 * The verification vectors (test/fixtures/vectors/ledger-verification.json, docs/protocol.md):
 * the request's signing bytes are rebuilt with an independent RFC 8785 implementation
 * (`canonicalize`, by one of the RFC's authors), and every transaction round-trips and verifies.
 */

const V = loadVectors<any>('ledger-verification.json');
// a CommonJS module whose types declare an ES default export: its module.exports is the function
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

t.test('the request signs the JCS form, as an independent JCS library writes it', async (t) => {
  const request = parseVerificationRequest(V.request);
  const { signature, ...unsigned } = V.request;
  const independent = concatBytes(utf8(VERIFICATION_DOMAIN), utf8(canonicalize(unsigned)!));
  t.equal(toHex(independent), V.request_signing_bytes);
  t.equal(toHex(requestSigningBytes(request)), V.request_signing_bytes);
  const requester = keyPairFromSeed(fromHex(V.requester_seed));
  t.ok(verifyVerificationRequest(request, requester.publicKey));
  t.equal(signature, V.transactions[0].signature, "the transaction's signature is the request's");
});

t.test('the transactions: signing bytes, hash, encoding, JSON, signature', async (t) => {
  const seeds: Record<string, string> = { VerificationRequest: V.requester_seed, VerificationAnswer: V.validator_seed, VerificationAnswerBatch: V.validator_seed };
  t.same(V.transactions.map((v: { kind: string }) => v.kind), ['VerificationRequest', 'VerificationAnswer', 'VerificationAnswer', 'VerificationAnswerBatch']);
  for (const v of V.transactions) {
    const { tx } = transactionFromJson(v.json);
    t.equal(toHex(signingBytes(V.chain_id, tx)), v.signing_bytes, `${v.kind}: signing bytes`);
    t.equal(transactionHash(V.chain_id, tx), v.hash);
    t.equal(toHex(encodeTransaction(tx)), v.encoded);
    t.ok(verifyTransactionSignature(V.chain_id, tx));
    t.same(signTransaction(V.chain_id, { senderPubkey: tx.senderPubkey, nonce: tx.nonce, payload: tx.payload }, fromHex(seeds[v.kind]!)), tx, 'deterministic');
    t.same(JSON.parse(JSON.stringify(transactionToJson(tx), (_k, x) => (typeof x === 'bigint' ? Number(x) : x))), v.json, 'the JSON form');
  }
  t.equal(V.transactions[0].signing_bytes, V.request_signing_bytes, 'a request transaction signs the request bytes');
});

t.test('the committee seed and the answer message', async (t) => {
  const seed = verificationCommitteeSeed(V.chain_id, fromHex(V.parent_hash), requestKeyOf(V.request.requestId));
  t.equal(toHex(seed), V.committee_seed);
  const answer = transactionFromJson(V.transactions[2].json).tx.payload as PayloadOf<'VerificationAnswer'>;
  const small = transactionFromJson(V.transactions[1].json).tx.payload as PayloadOf<'VerificationAnswer'>;
  t.equal(small.vrfProof, undefined, 'up to 21 validators, no VRF proof');
  t.same({ ...small, vrfProof: answer.vrfProof }, answer, 'otherwise the same answer');
  const { presentationHash, claims, requestId } = answer;
  const independent = concatBytes(utf8('ledger-verification-answer-v1'), utf8(canonicalize({ chainId: V.chain_id, requestId, presentationHash: toHex(presentationHash), claims })!));
  t.equal(toHex(independent), V.answer_message);
  t.equal(toHex(answerSigningBytes(V.chain_id, requestId, presentationHash, claims)), V.answer_message);
  const validator = keyPairFromSeed(fromHex(V.validator_seed));
  t.ok(verifyAnswer(validator.publicKey, answer.signature, V.chain_id, requestId, presentationHash, claims));
  t.ok(ecvrfVerify(validator.publicKey, seed, answer.vrfProof!), 'past 21 validators, the VRF proof is over the committee seed');
});

t.test("a batch holds answers exactly as VerificationAnswer holds one, each signed on its own", async (t) => {
  const batch = transactionFromJson(V.transactions[3].json).tx.payload as PayloadOf<'VerificationAnswerBatch'>;
  const { kind: _, ...single } = transactionFromJson(V.transactions[1].json).tx.payload as PayloadOf<'VerificationAnswer'>;
  t.equal(batch.answers.length, 2);
  t.same(batch.answers[0], single, 'the first is the answer of the second transaction');
  const encodedSingle = V.transactions[1].encoded.slice(2 * (32 + 8 + 1));
  t.ok(V.transactions[3].encoded.includes(encodedSingle.slice(0, encodedSingle.length - 128)), "the answer's bytes appear in the batch as they are");
  const validator = keyPairFromSeed(fromHex(V.validator_seed));
  for (const a of batch.answers) t.ok(verifyAnswer(validator.publicKey, a.signature, V.chain_id, a.requestId, a.presentationHash, a.claims), `${a.requestId}: its signature verifies`);
  t.match(batch.answers[1]!.claims, [{ satisfied: false, reason: 'constraint_not_met:minimumAge' }]);
});
