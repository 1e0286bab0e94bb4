import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { isLedgerError } from '../../../../node/errors.js';
import { openDatabase } from '../../../../node/state/db.js';
import { leadingZeroBits, parsePowProof, POW_CHALLENGE_TTL_MS, PowGate, powHash, solvePow, type PowProof } from '../../../../plugins/wallet/guardians/pow.js';

const DID = 'did:ledger:testnet:2WRXAwiHCW7rvEpkN1nPmFY5hiUC';
const OTHER_DID = 'did:ledger:testnet:2qxzFjpYXMFGbCquBTpYM7xqNTkA';
const KEY = '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c';

async function store(t: Test) {
  const level = await openDatabase('memory');
  t.teardown(() => level.close());
  return level.pluginStore('wallet');
}

async function code(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return isLedgerError(err) ? `${err.code} ${String(err.data['field'])}` : String(err);
  }
}

t.test('leading zero bits and the hashed text', async (t) => {
  t.equal(leadingZeroBits(Uint8Array.from([0x80])), 0);
  t.equal(leadingZeroBits(Uint8Array.from([0x01, 0xff])), 7);
  t.equal(leadingZeroBits(Uint8Array.from([0x00, 0x0f])), 12);
  t.equal(leadingZeroBits(new Uint8Array(32)), 256);
  const expected = createHash('sha256').update(`ledger-wallet-recovery-pow-v1\x00c\x00${DID}\x00${KEY}\x00n`).digest();
  t.same(powHash('c', DID, KEY, 'n'), expected, 'SHA-256 of the domain, challenge, DID, key and nonce joined by NUL bytes');
});

t.test('a challenge is solved for one DID and key, within its lifetime, with the bits asked; a restart keeps it valid', async (t) => {
  const level = await store(t);
  let now = 1_700_000_000_000;
  let bits = 8;
  const gate = new PowGate({ store: level, bits: () => bits, now: () => now });
  const c = await gate.issue();
  t.match(c, { challenge: /^[A-Za-z0-9_-]{54}$/, bits: 8, algorithm: 'sha256', expiresAt: new Date(now + POW_CHALLENGE_TTL_MS).toISOString() });
  t.not((await gate.issue()).challenge, c.challenge, 'random');

  const proof = solvePow({ challenge: c.challenge, did: DID, newPublicKey: KEY, bits: 8 });
  const worth = await gate.verify(proof, DID, KEY);
  t.equal(worth, leadingZeroBits(powHash(c.challenge, DID, KEY, proof.nonce)), 'a proof is worth its hash\'s leading zero bits');
  t.ok(worth >= 8);
  t.equal(await new PowGate({ store: level, bits: () => 8, now: () => now }).verify(proof, DID, KEY), worth, 'a new gate on the same store (a restart) accepts it');

  // a nonce that solves it for DID but not for OTHER_DID (nearly every one does not)
  let forDid: PowProof = proof;
  for (let i = 0; leadingZeroBits(powHash(c.challenge, OTHER_DID, KEY, forDid.nonce)) >= 8; i++) forDid = { challenge: c.challenge, nonce: solveFrom(c.challenge, DID, KEY, 8, i) };
  t.equal(await code(gate.verify(forDid, OTHER_DID, KEY)), 'POW_INVALID proof', 'the work is bound to its DID');
  t.equal(await code(gate.verify(undefined, DID, KEY)), 'POW_REQUIRED proof');
  const flipped = `${c.challenge.slice(0, 10)}${c.challenge[10] === 'A' ? 'B' : 'A'}${c.challenge.slice(11)}`;
  t.equal(await code(gate.verify({ ...proof, challenge: flipped }, DID, KEY)), 'POW_INVALID proof', 'a changed challenge');
  t.equal(await code(gate.verify({ ...proof, challenge: 'abc' }, DID, KEY)), 'POW_INVALID proof', 'not a challenge at all');
  const foreign = await new PowGate({ store: await store(t), bits: () => 8, now: () => now }).issue();
  t.equal(await code(gate.verify(solvePow({ challenge: foreign.challenge, did: DID, newPublicKey: KEY, bits: 8 }), DID, KEY)), 'POW_INVALID proof', 'another wallet\'s challenge');

  bits = worth + 1;
  t.equal(await code(gate.verify(proof, DID, KEY)), 'POW_INVALID proof', 'the bits asked are read at each check');
  bits = 8;
  now += POW_CHALLENGE_TTL_MS;
  t.equal(await code(gate.verify(proof, DID, KEY)), 'POW_STALE proof', 'at its expiry the challenge is stale');
});

t.test('the proof field is {challenge, nonce}', async (t) => {
  t.equal(parsePowProof(undefined), undefined);
  t.same(parsePowProof({ challenge: 'c', nonce: 'a_1-Z' }), { challenge: 'c', nonce: 'a_1-Z' });
  for (const bad of ['x', [], { challenge: 'c' }, { challenge: 'c', nonce: '' }, { challenge: 'c', nonce: 'a b' }, { challenge: 'c', nonce: 'n'.repeat(33) }, { challenge: 'c'.repeat(65), nonce: 'n' }, { challenge: 'c', nonce: 'n', bits: 9 }]) {
    t.throws(() => parsePowProof(bad), { code: 'POW_INVALID' }, JSON.stringify(bad));
  }
});

/** the `skip`-th nonce that solves the challenge */
function solveFrom(challenge: string, did: string, key: string, bits: number, skip: number): string {
  let found = -1;
  for (let i = 0; ; i++) {
    const nonce = `s${i.toString(36)}`;
    if (leadingZeroBits(powHash(challenge, did, key, nonce)) >= bits && ++found === skip) return nonce;
  }
}
