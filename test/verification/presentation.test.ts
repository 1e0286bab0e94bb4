import t from 'tap';
import { keyPairFromSeed, verify } from '../../node/crypto/ed25519.js';
import { sha256 } from '../../node/crypto/hash.js';
import { MAX_BBS_PROOF_BYTES } from '../../node/crypto/sizes.js';
import { fromHex, toHex, utf8 } from '../../node/protocol/bytes.js';
import { canonicalJson } from '../../node/protocol/verification.js';
import {
  MAX_PRESENTATION_BYTES,
  parsePresentation,
  presentationHash,
  presentationHeader,
  presentationSigningBytes,
  signedByOneOf,
  signPresentation,
  type Presentation,
} from '../../node/verification/presentation.js';
import { bbsEntry, directEntry, makeHolder, present } from './harness.js';

const holder = await makeHolder({ seedByte: 30, uuid: '55555555-5555-4555-8555-555555555555', birthDate: '1990-05-01' });
const bbs = await bbsEntry(holder, 0, ['kycLevel', 'ageOver18']);
const signed = present(holder, [bbs, directEntry(holder, 1)]);
const json = (): Record<string, any> => JSON.parse(JSON.stringify(signed));

/** The same JSON with every object's keys in reverse order. */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)]));
  return v;
}

t.test('sign, parse back, verify', async (t) => {
  const text = JSON.stringify(signed);
  t.same(parsePresentation(text), signed, 'from JSON text');
  t.same(parsePresentation(JSON.parse(text)), signed, 'from a parsed value');
  const { signature, ...unsigned } = signed;
  const bytes = presentationSigningBytes(signed);
  t.equal(Buffer.from(bytes).toString('utf8'), `ledger-presentation-v1${canonicalJson(unsigned)}`, 'domain ‖ JCS without the signature');
  t.same(presentationSigningBytes(unsigned), bytes, 'the signature member is left out');
  t.ok(verify(holder.keys.publicKey, bytes, fromHex(signature, 64)), 'the holder key signed it');
  t.same(presentationSigningBytes(parsePresentation(reversed(signed))), bytes, 'key order is not signed');
  t.same(signPresentation(unsigned, holder.keys.seed), signed, 'Ed25519 is deterministic');
});

t.test('the BBS presentation header names chain, request and holder, in JCS', async (t) => {
  const ph = presentationHeader('ledger-test', 'req-1', holder.did);
  t.equal(Buffer.from(ph).toString('utf8'), `{"chainId":"ledger-test","holder":"${holder.did}","requestId":"req-1"}`);
  t.not(toHex(presentationHeader('ledger-test', 'req-2', holder.did)), toHex(ph));
});

t.test('presentationHash: SHA-256 of the JCS of the whole presentation', async (t) => {
  const h = presentationHash(signed);
  t.equal(h.length, 32);
  t.equal(toHex(h), toHex(sha256(utf8(canonicalJson(signed)))));
  t.equal(toHex(presentationHash(parsePresentation(reversed(signed)))), toHex(h), 'key order does not change it');
  const other = { ...signed, signature: '00'.repeat(64) };
  t.not(toHex(presentationHash(other)), toHex(h), 'the signature is covered');

  const parsed = parsePresentation(json());
  t.ok(Object.isFrozen(parsed) && Object.isFrozen(parsed.credentials[0]), 'a parsed presentation is frozen');
  const first = presentationHash(parsed);
  first.fill(0);
  t.equal(toHex(presentationHash(parsed)), toHex(h), 'its hash is remembered, and a caller changing the copy it got changes nothing');
  const mutable = json() as Presentation;
  presentationHash(mutable);
  mutable.signature = '00'.repeat(64);
  t.equal(toHex(presentationHash(mutable)), toHex(presentationHash(other)), 'an object that is not frozen is hashed again each time');
});

t.test('strict: each fault named', async (t) => {
  const cases: Array<[string, (p: Record<string, any>) => unknown, RegExp]> = [
    ['unknown top-level member', (p) => ({ ...p, extra: 1 }), /unexpected member "extra"/],
    ['missing member', (p) => ({ ...p, holder: undefined }), /has no holder/],
    ['version as a number', (p) => ({ ...p, version: 1 }), /version must be "1.0"/],
    ['empty requestId', (p) => ({ ...p, requestId: '' }), /requestId/],
    ['holder not a did:ledger', (p) => ({ ...p, holder: 'did:web:example.com' }), /^holder: /],
    ['short signature', (p) => ({ ...p, signature: 'ab'.repeat(63) }), /signature must be 64 bytes/],
    ['uppercase signature', (p) => ({ ...p, signature: p.signature.toUpperCase() }), /signature must be 64 bytes of lowercase hex/],
    ['credentials not a list', (p) => ({ ...p, credentials: {} }), /credentials must be a list/],
    ['33 entries', (p) => ({ ...p, credentials: Array.from({ length: 33 }, () => p.credentials[0]) }), /at most 32 entries/],
    ['claim not an integer', (p) => (p.credentials[0].claim = 1.5, p), /credentials\[0\]\.claim must be an integer/],
    ['claim negative', (p) => (p.credentials[0].claim = -1, p), /credentials\[0\]\.claim/],
    ['unknown proof type', (p) => (p.credentials[0].proofType = 'zk', p), /credentials\[0\]\.proofType must be "direct" or "bbs"/],
    ['unknown entry member', (p) => (p.credentials[0].note = 'x', p), /credentials\[0\] has an unexpected member "note"/],
    ['a direct entry with a BBS member', (p) => (p.credentials[1].proof = 'ab', p), /credentials\[1\] has an unexpected member "proof"/],
    ['bare UUID', (p) => (p.credentials[0].credentialId = holder.credentialId.slice('urn:ledger:credential:'.length), p), /credentials\[0\]\.credentialId must be urn:ledger:credential/],
    ['uppercase credential id', (p) => (p.credentials[0].credentialId = holder.credentialId.toUpperCase(), p), /credentialId/],
    ['13 disclosed', (p) => (p.credentials[0].disclosed = Array.from({ length: 13 }, (_, i) => ({ index: i, message: 'x' })), p), /disclosed must be a list of at most 12/],
    ['index outside the layout', (p) => (p.credentials[0].disclosed.push({ index: 12, message: 'x=1' }), p), /disclosed\[8\]\.index must be an integer from 0 to 11/],
    ['message of another field', (p) => (p.credentials[0].disclosed[6].message = 'jurisdiction=DE', p), /disclosed\[6\]\.message must be kycLevel=/],
    ['message too long', (p) => (p.credentials[0].disclosed[6].message = `kycLevel=${'2'.repeat(300)}`, p), /disclosed\[6\]\.message must be a string of at most 256/],
    ['unknown disclosed member', (p) => (p.credentials[0].disclosed[0].value = 1, p), /disclosed\[0\] has an unexpected member "value"/],
    ['descending indexes', (p) => (p.credentials[0].disclosed.reverse(), p), /ascending index order/],
    ['repeated index', (p) => (p.credentials[0].disclosed.splice(1, 0, p.credentials[0].disclosed[0]), p), /ascending index order without repeats/],
    ['a structural field hidden', (p) => (p.credentials[0].disclosed.splice(4, 1), p), /must include issuanceDate \(index 4\)/],
    ['odd-length proof', (p) => (p.credentials[0].proof += 'a', p), /credentials\[0\]\.proof must be lowercase hex/],
    ['empty proof', (p) => (p.credentials[0].proof = '', p), /credentials\[0\]\.proof must be lowercase hex of 1 to/],
    // MAX_BBS_PROOF_BYTES in hex is more than the whole presentation may be: the size bound refuses it first
    ['proof too long', (p) => (p.credentials[0].proof = 'ab'.repeat(MAX_BBS_PROOF_BYTES + 1), p), /at most 65536 bytes of JSON/],
    ['a malformed direct credential', (p) => (p.credentials[1].credential.credentialSubject.kycLevel = 4, p), /^credentials\[1\]\.credential: credentialSubject\.kycLevel/],
    ['a direct credential with an extra field', (p) => (p.credentials[1].credential.evidence = [], p), /^credentials\[1\]\.credential: .*unexpected field "evidence"/],
  ];
  for (const [name, mutate, message] of cases) {
    const input = mutate(json());
    t.throws(() => parsePresentation(input), { code: 'BAD_PRESENTATION', message }, name);
  }
  t.doesNotThrow(() => parsePresentation(json()), 'the unmutated presentation parses');
});

t.test('size and JSON', async (t) => {
  const big = JSON.stringify({ ...signed, pad: 'x'.repeat(MAX_PRESENTATION_BYTES) });
  t.throws(() => parsePresentation(big), { code: 'BAD_PRESENTATION', message: /at most 65536 bytes of JSON/ });
  t.throws(() => parsePresentation('{"version":'), { code: 'BAD_PRESENTATION', message: /does not parse/ });
  t.throws(() => parsePresentation('[]'), { code: 'BAD_PRESENTATION', message: /must be a JSON object/ });
  t.throws(() => parsePresentation(undefined), { code: 'BAD_PRESENTATION' });
  const empty: Presentation = present(holder, []);
  t.same(parsePresentation(JSON.stringify(empty)).credentials, [], 'an empty answer is well formed (every claim unmet)');
});

t.test('signedByOneOf: the holder\'s signature under any of its keys, the second check a lookup with the same answer', async (t) => {
  const other = keyPairFromSeed(new Uint8Array(32).fill(99)).publicKey;
  t.equal(signedByOneOf(signed, [holder.keys.publicKey]), true);
  t.equal(signedByOneOf(signed, [holder.keys.publicKey]), true, 'again, from the memo');
  t.equal(signedByOneOf(signed, [other]), false, 'another key');
  t.equal(signedByOneOf(signed, [other, holder.keys.publicKey]), true, 'one of several');
  const forged = { ...signed, signature: toHex(new Uint8Array(64).fill(1)) };
  t.equal(signedByOneOf(forged, [holder.keys.publicKey]), false, 'a forged signature is another presentation (its hash covers the signature)');
  t.equal(signedByOneOf(forged, [holder.keys.publicKey]), false);
});
