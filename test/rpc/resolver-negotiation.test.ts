import t from 'tap';
import { negotiate, parseAccept, REPRESENTATIONS } from '../../node/rpc/resolver-negotiation.js';

const RESULT = 'application/ld+json;profile="https://w3id.org/did-resolution"';
const best = (accept: string | undefined) => negotiate(accept).acceptable[0];

t.test('parseAccept: types, parameters quoted or not, q-values, accept-extensions, malformed elements', async (t) => {
  t.same(parseAccept(`Application/DID+LD+JSON;q=0.5, ${RESULT}`), [
    { type: 'application', subtype: 'did+ld+json', params: {}, q: 0.5, index: 0 },
    { type: 'application', subtype: 'ld+json', params: { profile: 'https://w3id.org/did-resolution' }, q: 1, index: 1 },
  ]);
  t.same(parseAccept('application/ld+json; PROFILE=https://w3id.org/did-resolution ; q=1.000'), [
    { type: 'application', subtype: 'ld+json', params: { profile: 'https://w3id.org/did-resolution' }, q: 1, index: 0 },
  ]);
  t.same(parseAccept('application/ld+json;profile="a, \\"b\\"; c";q=0.2;ext=1'), [
    { type: 'application', subtype: 'ld+json', params: { profile: 'a, "b"; c' }, q: 0.2, index: 0 },
  ], 'commas and semicolons inside quotes; parameters after q are accept-extensions');
  const malformed = ['nonsense', '*/json', 'application/', 'application/json;q=2', 'application/json;q=0.1234', 'application/json;q', 'a/b/c', 'application/json;p="open'];
  for (const m of malformed) t.same(parseAccept(m), [], m);
  t.same(parseAccept('nonsense, , application/did+json').map((r) => [r.subtype, r.index]), [['did+json', 2]], 'a malformed element is skipped, not the header');
});

t.test('the resolution result is the default', async (t) => {
  for (const accept of [undefined, '', '   ', '*/*', 'application/*', 'application/json', 'application/ld+json', RESULT, 'text/html, */*;q=0.8']) {
    t.equal(best(accept), 'resolution-ld', String(accept));
  }
  t.same(negotiate(undefined).acceptable, ['resolution-ld', 'resolution', 'did-ld-json', 'did-json'], 'no header: everything, result first');
  t.equal(REPRESENTATIONS['resolution-ld'].contentType, RESULT);
});

t.test('the document when it is named', async (t) => {
  t.equal(best('application/did+ld+json'), 'did-ld-json');
  t.equal(best('application/did+json'), 'did-json');
  t.equal(best('application/did+ld+json;charset=UTF-8'), 'did-ld-json', 'charset utf-8 is honoured');
  t.equal(best('*/*, application/did+ld+json'), 'did-ld-json', 'a named type beats the wildcard at equal q');
  t.equal(best('application/json, application/did+json'), 'did-json', 'a type named exactly beats the application/json alias');
  t.equal(best('application/did-resolution'), 'resolution');
});

t.test('profile parameter: quoted or not, a list, or a different profile', async (t) => {
  t.equal(best('application/ld+json;profile=https://w3id.org/did-resolution'), 'resolution-ld');
  t.equal(best('application/ld+json;profile="https://example.org/other https://w3id.org/did-resolution"'), 'resolution-ld', 'a list that holds it');
  t.same(negotiate('application/ld+json;profile="https://www.w3.org/ns/did/v1"').acceptable, [], 'another profile is not produced');
  t.same(negotiate('application/did+ld+json;profile="https://w3id.org/did-resolution"').acceptable, [], 'no profile on the document');
  t.same(negotiate('application/did+json;charset=latin1').acceptable, [], 'another charset');
  t.same(negotiate('application/did+json;version=2').acceptable, [], 'an unknown parameter cannot be honoured');
});

t.test('ordering by q, then precision, then header order, then server preference', async (t) => {
  t.equal(best(`application/did+ld+json;q=0.9, ${RESULT};q=0.8`), 'did-ld-json');
  t.equal(best(`application/did+ld+json;q=0.5, ${RESULT}`), 'resolution-ld');
  t.equal(best('application/did+json;q=0.3, application/did+ld+json;q=0.31'), 'did-ld-json');
  // what the Universal Resolver sends a driver: the result type first, then its caller's Accept
  t.equal(best(`${RESULT},application/did+ld+json`), 'resolution-ld', 'Universal Resolver: the result');
  t.equal(best(`application/did+ld+json, ${RESULT}`), 'did-ld-json', 'equal q and precision: the earlier one');
  t.same(negotiate('application/did+json, application/did+ld+json;q=0.5, application/did-resolution;q=0.1').acceptable, ['did-json', 'did-ld-json', 'resolution']);
});

t.test('q=0 and the most specific range', async (t) => {
  t.equal(best(`${RESULT};q=0, application/did+ld+json;q=0.1`), 'did-ld-json');
  t.equal(best(`*/*, ${RESULT};q=0`), 'resolution', 'the more specific q=0 removes only that one');
  t.same(negotiate(`*/*;q=0, application/did+json`).acceptable, ['did-json'], 'the wildcard at q=0 removes the rest');
  t.equal(best('application/ld+json;q=0, application/json'), 'resolution', 'an exact range outweighs the alias for the same representation');
  t.equal(best(`application/ld+json;q=0, ${RESULT}`), 'resolution-ld', 'the profile range is more specific than the bare type');
});

t.test('nothing acceptable', async (t) => {
  for (const accept of ['text/html', 'image/*', 'application/xml', 'nonsense', '*/*;q=0', 'application/did+cbor', 'text/*, application/did+ld+json;q=0']) {
    t.same(negotiate(accept).acceptable, [], accept);
  }
});
