import t from 'tap';
import { BlsQuorumCrypto, blsKeyFromSeed, voteDigest } from '../../node/consensus/crypto.js';
import { blsSign, isValidBlsPublicKey, POP_DST, VOTE_DST } from '../../node/crypto/bls.js';
import { ADDRESS_LENGTH } from '../../node/protocol/address.js';
import { ByteWriter, toHex, utf8 } from '../../node/protocol/bytes.js';
import type { PayloadOf, SignedVoteRef } from '../../node/protocol/payloads.js';
import { checkEquivocation, checkProofOfPossession, popMessage, proofOfPossession } from '../../node/protocol/validator-keys.js';

const CHAIN = 'ledger-testnet-1';
const A = new Uint8Array(ADDRESS_LENGTH).fill(0xa1);
const B = new Uint8Array(ADDRESS_LENGTH).fill(0xb2);
const k1 = blsKeyFromSeed(new Uint8Array(32).fill(1));
const k2 = blsKeyFromSeed(new Uint8Array(32).fill(2));

t.test('the proof-of-possession message is the domain, the chain id, the address and the key', async (t) => {
  const expected = new ByteWriter().bytes(utf8('ledger-bls-pop-v1')).u16(CHAIN.length).bytes(utf8(CHAIN)).bytes(A).bytes(k1.publicKey).finish();
  t.equal(toHex(popMessage(CHAIN, A, k1.publicKey)), toHex(expected));
});

t.test('a proof of possession verifies for its key, address and chain only', async (t) => {
  const p = proofOfPossession(CHAIN, A, k1.secretKey);
  t.equal(toHex(p.blsPublicKey), toHex(k1.publicKey));
  t.equal(p.proofOfPossession.length, 96);
  t.equal(toHex(proofOfPossession(CHAIN, A, k1.secretKey).proofOfPossession), toHex(p.proofOfPossession), 'deterministic');
  t.equal(checkProofOfPossession(CHAIN, A, k1.publicKey, p.proofOfPossession), undefined, 'accepted');
  t.match(checkProofOfPossession(CHAIN, A, k2.publicKey, p.proofOfPossession), /does not verify/, 'wrong key');
  t.match(checkProofOfPossession(CHAIN, B, k1.publicKey, p.proofOfPossession), /does not verify/, 'wrong address');
  t.match(checkProofOfPossession('ledger-mainnet-1', A, k1.publicKey, p.proofOfPossession), /does not verify/, 'wrong chain');
  const other = proofOfPossession(CHAIN, A, k2.secretKey);
  t.match(checkProofOfPossession(CHAIN, A, k1.publicKey, other.proofOfPossession), /does not verify/, "another key's proof");
  t.match(checkProofOfPossession(CHAIN, A, k1.publicKey, new Uint8Array(96)), /does not verify/, 'not a G2 point');
});

t.test('a signature over the same message with the vote ciphersuite is no proof (rogue keys, cross-use)', async (t) => {
  const sig = blsSign(k1.secretKey, popMessage(CHAIN, A, k1.publicKey), VOTE_DST);
  t.match(checkProofOfPossession(CHAIN, A, k1.publicKey, sig), /does not verify/);
  t.equal(checkProofOfPossession(CHAIN, A, k1.publicKey, blsSign(k1.secretKey, popMessage(CHAIN, A, k1.publicKey), POP_DST)), undefined);
});

t.test('keys that are not G1 public keys are refused', async (t) => {
  const identity = new Uint8Array(48);
  identity[0] = 0xc0; // compressed point at infinity
  t.notOk(isValidBlsPublicKey(identity), 'the identity');
  t.notOk(isValidBlsPublicKey(new Uint8Array(48).fill(0x33)), 'not on the curve');
  t.notOk(isValidBlsPublicKey(k1.publicKey.slice(1)), 'short');
  t.ok(isValidBlsPublicKey(k1.publicKey));
  const p = proofOfPossession(CHAIN, A, k1.secretKey);
  t.match(checkProofOfPossession(CHAIN, A, identity, p.proofOfPossession), /not a valid BLS12-381 G1 public key/);
});

function evidence(signer: Uint8Array, chainId = CHAIN, round = 9): PayloadOf<'SubmitEvidence'> {
  const crypto = new BlsQuorumCrypto(signer);
  const vote = (fill: number, height: number): SignedVoteRef => {
    const blockHash = new Uint8Array(32).fill(fill);
    return { height, blockHash, signature: crypto.sign(voteDigest(chainId, 0, round, height, blockHash)) };
  };
  return { kind: 'SubmitEvidence', evidence: 'double-vote', epoch: 0, round, validator: A, first: vote(1, 4), second: vote(2, 4) };
}

t.test("equivocation: two votes signed by the engine's own signer verify; anything else does not", async (t) => {
  const e = evidence(k1.secretKey);
  t.equal(checkEquivocation(CHAIN, k1.publicKey, e), undefined, 'the engine and execution agree on the digest and ciphersuite');
  t.match(checkEquivocation(CHAIN, k2.publicKey, e), /first vote signature does not verify/, 'another key');
  t.match(checkEquivocation('ledger-mainnet-1', k1.publicKey, e), /does not verify/, 'another chain');
  t.match(checkEquivocation(CHAIN, k1.publicKey, { ...e, round: 10 }), /does not verify/, 'another round');
  t.match(checkEquivocation(CHAIN, k1.publicKey, { ...e, second: { ...e.second, height: 5 } }), /second vote signature does not verify/, 'a signature over something else');
  t.match(checkEquivocation(CHAIN, new Uint8Array(0), e), /no valid BLS key/);
});
