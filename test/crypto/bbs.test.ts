import t from 'tap';
import { bbsDeriveProof, bbsKeyPair, bbsSign, verifyBbsProof, type BbsProofInput } from '../../node/crypto/bbs.js';
import { fromHex, toHex, utf8 } from '../../node/protocol/bytes.js';
import { loadVectors } from '../fixtures/vectors.js';

const { proofs, signatures, keyPair } = loadVectors('bbs.json');

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

t.test('bbsSign reproduces the published signatures', async (t) => {
  for (const v of signatures.valid) {
    const signature = await bbsSign({ secretKey: fromHex(keyPair.secretKey), publicKey: fromHex(v.signerPublicKey), header: v.header ? fromHex(v.header) : new Uint8Array(), messages: v.messages.map((m: string) => fromHex(m)) });
    t.equal(toHex(signature), v.signature, v.caseName);
  }
});

t.test('bbsKeyPair, bbsSign and bbsDeriveProof: a proof verifies with what it discloses', async (t) => {
  const seed = new Uint8Array(32).fill(7);
  const pair = await bbsKeyPair(seed);
  t.same(await bbsKeyPair(seed), pair, 'the same seed gives the same pair');
  t.notSame((await bbsKeyPair()).publicKey, pair.publicKey, 'without a seed, a new pair');
  t.equal(pair.publicKey.length, 96);
  await t.rejects(bbsKeyPair(new Uint8Array(31)), { code: 'BAD_BBS_KEY' });

  const header = utf8('header');
  const messages = ['a', 'b', 'c', 'd'].map(utf8);
  const signature = await bbsSign({ ...pair, header, messages });
  const presentationHeader = utf8('nonce-1');
  const proof = await bbsDeriveProof({ publicKey: pair.publicKey, signature, header, messages, presentationHeader, disclosedIndexes: [3, 0] });
  const check = (disclosed: Array<{ index: number; message: Uint8Array }>) => verifyBbsProof({ proof, publicKey: pair.publicKey, header, presentationHeader, disclosed, totalMessageCount: 4 });
  t.equal(await check([{ index: 0, message: messages[0]! }, { index: 3, message: messages[3]! }]), true, 'indexes in any order');
  t.equal(await check([{ index: 0, message: messages[0]! }, { index: 3, message: utf8('x') }]), false, 'a changed message');

  await t.rejects(bbsDeriveProof({ publicKey: pair.publicKey, signature, header, messages, presentationHeader, disclosedIndexes: [4] }), { code: 'BAD_BBS_INDEXES' });
  await t.rejects(bbsDeriveProof({ publicKey: pair.publicKey, signature, header, messages, presentationHeader, disclosedIndexes: [1, 1] }), { code: 'BAD_BBS_INDEXES' });
  await t.rejects(bbsDeriveProof({ publicKey: pair.publicKey, signature: signature.slice(1), header, messages, presentationHeader, disclosedIndexes: [] }), { code: 'BAD_BBS_SIGNATURE' });
  await t.rejects(bbsSign({ ...pair, header, messages: [] }), { code: 'BAD_BBS_MESSAGES' });
  await t.rejects(bbsSign({ secretKey: pair.secretKey, publicKey: pair.publicKey.slice(1), header, messages }), { code: 'BAD_BBS_KEY' });
});

t.test('verification is mcl-wasm’s, loaded on the first call', async (t) => {
  const first = input(proofs.valid[0]);
  const { proofVerify } = await import('../../node/crypto/bbs/verify.js');
  t.equal(await proofVerify({ PK: first.publicKey, proof: first.proof, header: first.header, ph: first.presentationHeader, disclosed: first.disclosed }), true, 'mcl-wasm loads');
  for (const p of [...proofs.valid, ...proofs.invalid]) t.equal(await verifyBbsProof(input(p)), p.result.valid, p.caseName);
  const good = input(proofs.valid[2]);
  t.equal(await verifyBbsProof({ ...good, proof: good.proof.slice(1) }), false, 'truncated proof');
  t.equal(await verifyBbsProof({ ...good, disclosed: [...good.disclosed].reverse() }), true, 'order of disclosed messages does not matter');
});
