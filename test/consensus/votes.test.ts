import t from 'tap';
import { CertificateVerifier } from '../../node/consensus/certificates.js';
import { BlsQuorumCrypto, timeoutDigest, voteDigest } from '../../node/consensus/crypto.js';
import { ValidatorSet } from '../../node/consensus/validators.js';
import { TimeoutCollector, VoteCollector } from '../../node/consensus/votes.js';
import { CHAIN, makeValidators } from './harness.js';

const vs = makeValidators(4);
const set = new ValidatorSet({ validators: vs.map((v) => v.validator) });
const cryptos = vs.map((v) => new BlsQuorumCrypto(v.blsSecret));
const genesisQc = { round: 0, height: 0, blockHash: new Uint8Array(32), signers: new Uint8Array(0), signature: new Uint8Array(0) };
const hashA = new Uint8Array(32).fill(0xa);
const hashB = new Uint8Array(32).fill(0xb);
const vote = (i: number, hash = hashA, round = 1) => ({ round, height: 1, blockHash: hash, voter: vs[i]!.address, signature: cryptos[i]!.sign(voteDigest(CHAIN, 0, round, 1, hash)) });

t.test('quorum arithmetic and signer bitmaps', async (t) => {
  t.ok(set.isQuorum(3n));
  t.notOk(set.isQuorum(2n));
  t.ok(set.isValidity(2n));
  t.notOk(set.isValidity(1n));
  t.same(set.signersOf(set.bitmap([0, 2, 3])), [0, 2, 3]);
  t.equal(set.signersOf(Uint8Array.of(0x10)), undefined, 'a bit past the set');
});

t.test('three votes form a QC that verifies with one pairing check, then from cache', async (t) => {
  const c = new VoteCollector(CHAIN, 0, set, cryptos[0]!);
  t.notOk(c.add(vote(0), true).qc);
  t.notOk(c.add(vote(1), false).qc);
  const res = c.add(vote(2), false);
  t.ok(res.qc, 'QC formed');
  const verifier = new CertificateVerifier(CHAIN, 0, set, cryptos[3]!, genesisQc);
  t.ok(verifier.verifyQc(res.qc!));
  t.ok(verifier.verifyQc(res.qc!));
  t.equal(verifier.checks, 1, 'the second check came from the cache');
  t.notOk(verifier.verifyQc({ ...res.qc!, round: 2 }), 'the QC does not verify for another round');
  t.notOk(verifier.verifyQc({ ...res.qc!, signers: set.bitmap([0, 1]) }), 'two signers are not a quorum');
  t.ok(verifier.verifyQc(genesisQc), 'the genesis QC needs no signature');
  t.notOk(verifier.verifyQc({ ...genesisQc, blockHash: hashA }), 'but only the genesis QC');
});

t.test('a bad vote is found and dropped when the aggregate fails', async (t) => {
  const c = new VoteCollector(CHAIN, 0, set, cryptos[0]!);
  c.add(vote(0), true);
  c.add(vote(1), false);
  const forged = { ...vote(2), signature: cryptos[2]!.sign(voteDigest(CHAIN, 0, 9, 1, hashA)) };
  const res = c.add(forged, false);
  t.notOk(res.qc, 'no QC with the forged vote');
  t.equal(res.rejected, 1, 'the forged vote was dropped');
  const ok = c.add(vote(3), false);
  t.ok(ok.qc, 'the next good vote completes the QC');
  t.same(set.signersOf(ok.qc!.signers), [0, 1, 3]);
});

t.test('two different votes from one validator in a round are evidence', async (t) => {
  const c = new VoteCollector(CHAIN, 0, set, cryptos[0]!);
  c.add(vote(1, hashA), false);
  const res = c.add(vote(1, hashB), false);
  t.equal(res.evidence?.kind, 'double-vote');
  t.equal(c.add(vote(1, hashA), false).evidence, undefined, 'a repeat of the same vote is not evidence');
});

t.test('timeouts with different high-QC rounds aggregate into a TC', async (t) => {
  const c = new TimeoutCollector(CHAIN, 0, set, cryptos[0]!);
  const qc1 = { round: 1, height: 1, blockHash: hashA, signers: new Uint8Array(0), signature: new Uint8Array(0) };
  const timeout = (i: number, highQc: typeof genesisQc) => ({ round: 2, highQc, voter: vs[i]!.address, signature: cryptos[i]!.sign(timeoutDigest(CHAIN, 0, 2, highQc.round)) });
  c.add(timeout(0, genesisQc), false);
  t.equal(c.weight(2), 1n);
  c.add(timeout(1, genesisQc), false);
  const res = c.add(timeout(3, genesisQc), false);
  t.ok(res.tc);
  const verifier = new CertificateVerifier(CHAIN, 0, set, cryptos[2]!, genesisQc);
  t.ok(verifier.verifyTc(res.tc!), 'the TC verifies');
  t.notOk(verifier.verifyTc({ ...res.tc!, highQcRounds: [0, 0, 1], highQc: qc1 }), 'tampered high-QC rounds do not verify');
});
