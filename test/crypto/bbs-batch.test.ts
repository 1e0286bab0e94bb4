import t from 'tap';
import { bbsDeriveProof, bbsKeyPair, bbsSign, verifyBbsProof, verifyBbsProofs, type BbsProofInput } from '../../node/crypto/bbs.js';
import { batchChecks } from '../../node/crypto/bbs/verify.js';

/**
 * Batch verification (node/crypto/bbs/verify.ts proofVerifyBatch) answers what one-by-one
 * verification answers, for every mix: several keys, a proof whose challenge holds but whose
 * pairing does not (derived from a signature over other messages), a tampered proof, a malformed one.
 */

const header = new TextEncoder().encode('ledger batch test');
const encode = (xs: string[]) => xs.map((x) => new TextEncoder().encode(x));

async function proof(o: { seed: number; nonce: string; signOver?: string[] }): Promise<BbsProofInput> {
  const keys = await bbsKeyPair(new Uint8Array(32).fill(o.seed));
  const messages = encode(['a', 'b', 'c', 'd', 'e']);
  const signature = await bbsSign({ ...keys, header, messages: o.signOver ? encode(o.signOver) : messages });
  const presentationHeader = new TextEncoder().encode(o.nonce);
  const disclosedIndexes = [0, 3];
  const p = await bbsDeriveProof({ publicKey: keys.publicKey, signature, header, messages, presentationHeader, disclosedIndexes });
  return { proof: p, publicKey: keys.publicKey, header, presentationHeader, disclosed: disclosedIndexes.map((index) => ({ index, message: messages[index]! })), totalMessageCount: messages.length };
}

t.test('a batch answers as one by one', async (t) => {
  const good = await Promise.all([1, 1, 2, 3, 1].map((seed, i) => proof({ seed, nonce: `n${i}` })));
  const before = { ...batchChecks };
  t.same(await verifyBbsProofs(good), [true, true, true, true, true], 'five proofs under three keys');
  t.same(batchChecks, { checked: before.checked + 1, failed: before.failed }, 'by one shared pairing check, which held');

  const forged = await proof({ seed: 2, nonce: 'forged', signOver: ['x', 'b', 'c', 'd', 'e'] });
  const tampered = { ...good[1]!, presentationHeader: new TextEncoder().encode('another') };
  const malformed = { ...good[2]!, totalMessageCount: 6 };
  const mixed = [good[0]!, forged, good[2]!, tampered, malformed, good[4]!];
  const alone = await Promise.all(mixed.map((i) => verifyBbsProof(i)));
  t.same(alone, [true, false, true, false, false, true], 'one by one');
  t.same(await verifyBbsProofs(mixed), alone, 'the batch, whose pairing check fails on the forged proof, rechecks each');
  t.same(batchChecks, { checked: before.checked + 2, failed: before.failed + 1 }, 'the shared check failed, on the forged proof alone');
  t.same(await verifyBbsProofs([forged, forged]), [false, false], 'a batch of only false proofs');
  t.same(await verifyBbsProofs([]), []);
});
