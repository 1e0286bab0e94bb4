import t from 'tap';
import { generateSeed, keyPairFromSeed, sign } from '../../node/crypto/ed25519.js';
import { createSignatureChecker, type SignatureItem } from '../../node/crypto/signature-checker.js';
import { packSignatures, unpackSignatures } from '../../node/crypto/signature-batch.js';

function items(n: number): SignatureItem[] {
  const key = keyPairFromSeed(generateSeed());
  return Array.from({ length: n }, (_, i) => {
    const message = new TextEncoder().encode(`message ${i}`);
    return { publicKey: key.publicKey, message, signature: sign(key.seed, message) };
  });
}

/** Good signatures, one over another message, one with a short key: [true, false, false]. */
function mixed(): SignatureItem[] {
  const [good, other] = items(2);
  return [good!, { ...other!, signature: good!.signature }, { ...good!, publicKey: good!.publicKey.subarray(0, 31) }];
}

t.test('a batch survives packing byte for byte, messages of any length included', async (t) => {
  const batch = [...items(3), { ...items(1)[0]!, message: new Uint8Array(0) }];
  const back = unpackSignatures(packSignatures(batch));
  t.same(back.map((it) => [Buffer.from(it.publicKey), Buffer.from(it.signature), Buffer.from(it.message)]), batch.map((it) => [Buffer.from(it.publicKey), Buffer.from(it.signature), Buffer.from(it.message)]));
});

for (const threads of [0, 1, 2]) {
  t.test(`${threads} threads: one verdict per item, in order; a wrong signature or a malformed key is false`, async (t) => {
    const checker = createSignatureChecker({ threads });
    t.teardown(() => checker.close());
    t.same(await checker.verifyMany(mixed()), [true, false, false]);
    t.same(await checker.verifyMany([]), []);
    t.equal(checker.stats().checked, 3);
    t.equal(checker.stats().pending, 0);
  });
}

t.test('checks asked for in the same turn go to the workers together, split over the threads', async (t) => {
  const checker = createSignatureChecker({ threads: 2 });
  t.teardown(() => checker.close());
  const [a, b] = await Promise.all([checker.verifyMany(items(40)), checker.verifyMany(mixed())]);
  t.ok(a.every((v) => v), 'the 40 good ones');
  t.same(b, [true, false, false], 'and the mixed ones, each caller its own verdicts');
  t.equal(checker.stats().batches, 2, '42 well-formed signatures: one batch per thread, not one per call or per signature');
  t.equal(checker.stats().checked, 43);
  const small = await Promise.all([checker.verifyMany(items(1)), checker.verifyMany(items(1))]);
  t.same(small, [[true], [true]]);
  t.equal(checker.stats().batches, 3, 'two signatures are not worth a second thread');
});
