import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { ed25519PublicKeyFromMultibase, ed25519PublicKeyMultibase } from '../../node/crypto/multibase.js';
import { fromHex, toHex } from '../../node/protocol/bytes.js';
import { loadVectors } from '../fixtures/vectors.js';

const vectors = loadVectors('did-key.json');

t.test('did:key spec example: publicKeyMultibase is z + base58btc(0xed01 || key)', async (t) => {
  const ex = vectors.spec_example;
  const mb = ed25519PublicKeyMultibase(fromHex(ex.ed25519PublicKey));
  t.equal(`did:key:${mb}`, ex.did);
  t.equal(toHex(ed25519PublicKeyFromMultibase(mb)), ex.ed25519PublicKey);
});

for (const v of vectors.ed25519_with_x25519_vectors) {
  t.test(`did:key vector ${v.did.slice(0, 24)}…`, async (t) => {
    const pub = keyPairFromSeed(fromHex(v.seed)).publicKey;
    t.equal(toHex(pub), v.ed25519PublicKey, 'key from seed');
    t.equal(`did:key:${ed25519PublicKeyMultibase(pub)}`, v.did);
  });
}

t.test('rejects other multicodecs and other bases', async (t) => {
  t.throws(() => ed25519PublicKeyFromMultibase(vectors.spec_example.x25519Multibase), { code: 'BAD_MULTIBASE' });
  t.throws(() => ed25519PublicKeyFromMultibase('m' + 'A'.repeat(40)), { code: 'BAD_MULTIBASE' });
});
