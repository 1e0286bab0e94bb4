import t from 'tap';
import { verifyBbsProof, type BbsProofInput } from '../../node/crypto/bbs.js';
import { fromHex } from '../../node/protocol/bytes.js';
import { loadVectors } from '../fixtures/vectors.js';

const { proofs } = loadVectors('bbs.json');

function input(p: any): BbsProofInput {
  return {
    proof: fromHex(p.proof),
    publicKey: fromHex(p.signerPublicKey),
    header: fromHex(p.header),
    presentationHeader: fromHex(p.presentationHeader),
    disclosed: p.disclosedIndexes.map((index: number, i: number) => ({ index, message: fromHex(p.disclosedMessages[i]) })),
    totalMessageCount: p.totalMessageCount,
  };
}

for (const p of proofs.valid) {
  t.test(`valid: ${p.caseName}`, async (t) => t.equal(await verifyBbsProof(input(p)), true));
}
for (const p of proofs.invalid) {
  t.test(`invalid: ${p.result.reason}`, async (t) => t.equal(await verifyBbsProof(input(p)), false));
}

t.test('malformed inputs are false, not errors', async (t) => {
  const good = input(proofs.valid[2]);
  t.equal(await verifyBbsProof({ ...good, totalMessageCount: good.totalMessageCount + 1 }), false, 'total disagrees with the proof');
  t.equal(await verifyBbsProof({ ...good, proof: good.proof.slice(1) }), false, 'truncated proof');
  t.equal(await verifyBbsProof({ ...good, proof: new Uint8Array(good.proof.length) }), false, 'zero proof');
  t.equal(await verifyBbsProof({ ...good, publicKey: good.publicKey.slice(1) }), false, 'short key');
  t.equal(await verifyBbsProof({ ...good, disclosed: [...good.disclosed.slice(1), good.disclosed[1]!] }), false, 'duplicate index');
  t.equal(await verifyBbsProof({ ...good, disclosed: [...good.disclosed].reverse() }), true, 'order of disclosed messages does not matter');
});
