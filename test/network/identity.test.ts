import { generateKeyPair, generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { addressFromPeerId, addressOfPeer, peerIdFromSeed } from '../../node/network/identity.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';

const seed = new Uint8Array(32).map((_, i) => i * 7);

t.test('the peer id embeds the validator key, and its address is the validator address', async (t) => {
  const expected = peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', seed));
  t.equal(peerIdFromSeed(seed), expected.toString(), 'same id as libp2p derives from the seed');
  t.match(peerIdFromSeed(seed), /^12D3KooW/);
  const address = addressBytesFromPublicKey(keyPairFromSeed(seed).publicKey);
  t.same(addressFromPeerId(peerIdFromSeed(seed)), address);
  t.same(addressFromPeerId(expected), address);
  t.same(addressOfPeer(expected), address);
});

t.test('only Ed25519 peer ids have an address', async (t) => {
  const secp = peerIdFromPrivateKey(await generateKeyPair('secp256k1'));
  t.equal(addressOfPeer(secp), undefined);
  t.throws(() => addressFromPeerId(secp), { code: 'BAD_PEER_ID' });
  t.throws(() => addressFromPeerId('not-a-peer-id'), { code: 'BAD_PEER_ID' });
  t.throws(() => peerIdFromSeed(new Uint8Array(31)), { code: 'BAD_SEED' });
});
