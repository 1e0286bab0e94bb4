import t from 'tap';
import { isLedgerError } from '../../../../node/errors.js';
import { didOf, inspectEnvelope } from '../../../../plugins/relay/wire/envelope.js';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwe = (header: Record<string, unknown>, recipients: unknown = [{ header: { kid: 'did:key:z6Mk#z6LS' }, encrypted_key: 'AAAA' }]) =>
  JSON.stringify({ protected: b64(header), recipients, iv: 'AA', ciphertext: 'AA', tag: 'AA' });
const refusal = (text: string) => {
  try {
    inspectEnvelope(text);
    return 'accepted';
  } catch (err) {
    return isLedgerError(err) ? `${err.code}: ${err.message}` : String(err);
  }
};

t.test('anoncrypt and authcrypt headers', async (t) => {
  t.same(inspectEnvelope(jwe({ alg: 'ECDH-ES+A256KW', enc: 'XC20P' })), { skid: undefined, kids: ['did:key:z6Mk#z6LS'], alg: 'ECDH-ES+A256KW', enc: 'XC20P' });
  t.equal(inspectEnvelope(jwe({ alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512', skid: 'did:peer:2.x#key-1' })).skid, 'did:peer:2.x#key-1');
  t.equal(inspectEnvelope(jwe({ alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512', apu: Buffer.from('did:a#k').toString('base64url') })).skid, 'did:a#k', 'the sender from apu');
});

t.test('garbage is refused before any crypto, saying what is wrong', async (t) => {
  t.match(refusal('nope'), /^ENVELOPE_MALFORMED: the body is not JSON/);
  t.match(refusal('[]'), /not a JSON object/);
  t.match(refusal(JSON.stringify({ payload: 'x', signatures: [] })), /signed or plaintext message must be encrypted/);
  t.match(refusal(JSON.stringify({ protected: b64({}), recipients: [], iv: 'AA', ciphertext: 'AA' })), /no base64url `tag`/);
  t.match(refusal(jwe({ alg: 'ECDH-ES+A256KW' }, [])), /no recipients/);
  t.match(refusal(jwe({ alg: 'ECDH-ES+A256KW' }, Array.from({ length: 65 }, () => ({ header: { kid: 'k' }, encrypted_key: 'AA' })))), /more than 64 recipients/);
  t.match(refusal(jwe({ alg: 'ECDH-ES+A256KW' }, [{ header: {}, encrypted_key: 'AA' }])), /no key id/);
  t.match(refusal(jwe({ alg: 'RSA-OAEP' })), /unsupported JWE alg/);
  t.match(refusal(jwe({ alg: 'ECDH-1PU+A256KW' })), /must name its sender key/);
  t.match(refusal(JSON.stringify({ protected: '%%%', recipients: [{ header: { kid: 'k' }, encrypted_key: 'A' }], iv: 'A', ciphertext: 'A', tag: 'A' })), /protected header is not base64url/);
});

t.test('didOf', async (t) => {
  t.equal(didOf('did:peer:2.Ez#key-1'), 'did:peer:2.Ez');
  t.equal(didOf('did:example:a?x=1'), 'did:example:a');
  t.equal(didOf('did:example:a'), 'did:example:a');
});
