import t from 'tap';
import { disclosureFor, evaluateConstraints, overDisclosure, readConstraints, requiredDisclosure } from '../../node/verification/constraints.js';

/** The disclosure rules a wallet derives its indexes from, and the judging of disclosed values. */

const STRUCTURAL = ['id', 'type', 'issuer', 'subject', 'issuanceDate', 'expirationDate'];
const claim = (constraints: Record<string, unknown>) => ({ type: 'KYCCredential', constraints, acceptZKProof: true });
const AT = Date.parse('2026-06-01T12:00:00Z');

t.test('requiredDisclosure: the structural fields, one field per constraint, one answer to the age', async (t) => {
  t.same(requiredDisclosure(claim({})), { required: STRUCTURAL, oneOf: [] });
  t.same(requiredDisclosure(claim({ minimumAge: 18, minimumLevel: 2, jurisdiction: 'DE' })), {
    required: [...STRUCTURAL, 'kycLevel', 'jurisdiction'],
    oneOf: [['ageOver18', 'ageOver21', 'birthDate']],
  });
  t.same(requiredDisclosure(claim({ minimumAge: 19 })).oneOf, [['ageOver21', 'birthDate']], 'ageOver18 says nothing about 19');
  t.same(requiredDisclosure(claim({ minimumAge: 21 })).oneOf, [['ageOver21', 'birthDate']]);
  t.same(requiredDisclosure(claim({ minimumAge: 22 })).oneOf, [['birthDate']]);
  t.same(requiredDisclosure(claim({ minimumAge: 0 })).oneOf, [['ageOver18', 'ageOver21', 'birthDate']]);
  t.throws(() => requiredDisclosure(claim({ residency: 'EU' })), { code: 'BAD_CONSTRAINT', message: /unsupported_constraint:residency/ });
  t.throws(() => requiredDisclosure(claim({ minimumLevel: 4 })), { code: 'BAD_CONSTRAINT', message: /invalid_constraint:minimumLevel/ });
});

t.test('readConstraints never throws and names the first unreadable key', async (t) => {
  t.same(readConstraints({ jurisdiction: 'DE' }), { constraints: { jurisdiction: ['DE'] } });
  t.same(readConstraints({ zeta: 1, minimumAge: 18, alpha: 2 }), { constraints: { minimumAge: 18 }, problem: 'unsupported_constraint:alpha' });
  for (const bad of [-1, 151, 18.5, '18', null]) t.equal(readConstraints({ minimumAge: bad }).problem, 'invalid_constraint:minimumAge', `minimumAge ${JSON.stringify(bad)}`);
  for (const bad of [0, '2', 2.5]) t.equal(readConstraints({ minimumLevel: bad }).problem, 'invalid_constraint:minimumLevel', `minimumLevel ${JSON.stringify(bad)}`);
  for (const bad of [[], 'de', 'DEU', ['DE', 1], Array(65).fill('DE')]) t.equal(readConstraints({ jurisdiction: bad }).problem, 'invalid_constraint:jurisdiction', `jurisdiction ${JSON.stringify(bad).slice(0, 30)}`);
  t.equal(readConstraints({ ['k'.repeat(500)]: 1 }).problem, `unsupported_constraint:${'k'.repeat(64)}`, 'a long key is cut: reasons stay short');
});

t.test('overDisclosure', async (t) => {
  const d = disclosureFor({ minimumAge: 18, minimumLevel: 2 });
  t.equal(overDisclosure([...STRUCTURAL, 'kycLevel', 'ageOver18'] as never, d), undefined, 'exactly the allowed set');
  t.equal(overDisclosure([...STRUCTURAL] as never, d), undefined, 'less is not over-disclosure');
  t.match(overDisclosure([...STRUCTURAL, 'jurisdiction'] as never, d), /jurisdiction is disclosed but no constraint/);
  t.match(overDisclosure([...STRUCTURAL, 'ageOver21', 'birthDate'] as never, d), /only one of ageOver18, ageOver21, birthDate/);
});

t.test('evaluateConstraints', async (t) => {
  const age = { minimumAge: 19 };
  t.equal(evaluateConstraints(age, { ageOver21: 'true' }, AT), undefined);
  t.equal(evaluateConstraints(age, { ageOver18: 'true' }, AT), 'attribute_missing', 'ageOver18 cannot answer 19');
  t.equal(evaluateConstraints(age, { ageOver21: 'false' }, AT), 'constraint_not_met:minimumAge');
  t.equal(evaluateConstraints(age, { ageOver21: 'yes' }, AT), 'attribute_invalid');
  t.equal(evaluateConstraints(age, { birthDate: '2007-06-01' }, AT), undefined, '19 on the day');
  t.equal(evaluateConstraints(age, { birthDate: '2007-06-02' }, AT), 'constraint_not_met:minimumAge', 'a day short');
  t.equal(evaluateConstraints(age, { birthDate: '2007-02-30' }, AT), 'attribute_invalid');
  t.equal(evaluateConstraints(age, { birthDate: '' }, AT), 'attribute_missing', 'the issuer had none');
  t.equal(evaluateConstraints({ minimumLevel: 2 }, { kycLevel: '3' }, AT), undefined);
  t.equal(evaluateConstraints({ minimumLevel: 2 }, { kycLevel: '1' }, AT), 'constraint_not_met:minimumLevel');
  t.equal(evaluateConstraints({ minimumLevel: 2 }, { kycLevel: '9' }, AT), 'attribute_invalid');
  t.equal(evaluateConstraints({ jurisdiction: ['FR', 'US'] }, { jurisdiction: 'US-NY' }, AT), undefined);
  t.equal(evaluateConstraints({ jurisdiction: ['FR'] }, { jurisdiction: 'DE' }, AT), 'constraint_not_met:jurisdiction');
  t.equal(evaluateConstraints({ jurisdiction: ['FR'] }, {}, AT), 'attribute_missing');
  t.equal(evaluateConstraints({ minimumAge: 18, minimumLevel: 3 }, { ageOver18: 'false', kycLevel: '1' }, AT), 'constraint_not_met:minimumAge', 'the first unmet, in a fixed order');
  t.equal(evaluateConstraints({}, {}, AT), undefined);
});
