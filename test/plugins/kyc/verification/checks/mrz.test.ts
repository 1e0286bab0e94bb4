import t from 'tap';
import { isLedgerError } from '../../../../../node/errors.js';
import { checkDigit, parseMrz } from '../../../../../plugins/kyc/verification/checks/mrz.js';

// ICAO Doc 9303 specimens (part 4 appendix for TD3, part 5 for TD1, part 6 for TD2)
const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
const TD1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];
const TD2 = ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6'];
const opts = { referenceYear: 2025 };

/** `line` with the character at `i` replaced by `c` */
const at = (line: string, i: number, c: string): string => line.slice(0, i) + c + line.slice(i + 1);
/** a different digit at `i` */
const bump = (line: string, i: number): string => at(line, i, String((Number(line[i]) + 1) % 10));

t.test('check digits of the 9303 worked examples', async (t) => {
  t.equal(checkDigit('L898902C3'), '6');
  t.equal(checkDigit('740812'), '2');
  t.equal(checkDigit('120415'), '9');
  t.equal(checkDigit('ZE184226B<<<<<'), '1');
  t.equal(checkDigit('D23145890'), '7');
});

t.test('TD3 specimen: every check passes, data extracted', async (t) => {
  const r = parseMrz(TD3.join('\n'), opts);
  t.equal(r.format, 'TD3');
  t.equal(r.valid, true);
  t.same(r.failures, []);
  t.equal(r.documentCode, 'P');
  t.equal(r.issuingState, 'UTO');
  t.equal(r.sex, 'F');
  t.same(r.extractedData, { lastName: 'ERIKSSON', firstName: 'ANNA MARIA', dateOfBirth: '1974-08-12', documentNumber: 'L898902C3', expiryDate: '2012-04-15', nationality: 'UTO' });
});

t.test('TD1 specimen', async (t) => {
  const r = parseMrz(TD1.join('\n'), opts);
  t.equal(r.format, 'TD1');
  t.same(r.failures, []);
  t.same(r.extractedData, { lastName: 'ERIKSSON', firstName: 'ANNA MARIA', dateOfBirth: '1974-08-12', documentNumber: 'D23145890', expiryDate: '2012-04-15', nationality: 'UTO' });
});

t.test('TD2 specimen, CRLF and surrounding blanks accepted', async (t) => {
  const r = parseMrz(`  ${TD2.join('\r\n')}\n`, opts);
  t.equal(r.format, 'TD2');
  t.same(r.failures, []);
  t.equal(r.extractedData.documentNumber, 'D23145890');
  t.equal(r.extractedData.firstName, 'ANNA MARIA');
});

t.test('TD3: each corrupted check digit is named', async (t) => {
  const cases: Array<[number, string[]]> = [
    [9, ['documentNumber', 'composite']],
    [19, ['dateOfBirth', 'composite']],
    [27, ['expiryDate', 'composite']],
    [42, ['optionalData', 'composite']],
    [43, ['composite']],
  ];
  for (const [i, want] of cases) {
    const r = parseMrz(`${TD3[0]}\n${bump(TD3[1]!, i)}`, opts);
    t.equal(r.valid, false, `digit ${i}`);
    // the changed check digit breaks its own check; the composite covers it too (except itself)
    t.same(r.failures.filter((f) => f !== 'composite'), want.filter((f) => f !== 'composite'), `digit ${i}`);
    t.ok(r.failures.includes('composite') === want.includes('composite'), `composite for digit ${i}`);
  }
  // a changed data character (not a check digit) fails its field and the composite
  const r = parseMrz(`${TD3[0]}\n${at(TD3[1]!, 2, '7')}`, opts);
  t.same(r.failures, ['documentNumber', 'composite']);
});

t.test('TD1 and TD2: corrupted digits', async (t) => {
  t.same(parseMrz([bump(TD1[0]!, 14), TD1[1], TD1[2]].join('\n'), opts).failures, ['documentNumber', 'composite']);
  t.same(parseMrz([TD1[0], bump(TD1[1]!, 6), TD1[2]].join('\n'), opts).failures, ['dateOfBirth', 'composite']);
  t.same(parseMrz([TD1[0], bump(TD1[1]!, 14), TD1[2]].join('\n'), opts).failures, ['expiryDate', 'composite']);
  t.same(parseMrz([TD1[0], bump(TD1[1]!, 29), TD1[2]].join('\n'), opts).failures, ['composite']);
  t.same(parseMrz([TD2[0], bump(TD2[1]!, 35)].join('\n'), opts).failures, ['composite']);
  t.same(parseMrz([TD2[0], bump(TD2[1]!, 9)].join('\n'), opts).failures, ['documentNumber', 'composite']);
});

t.test('a date that is no calendar date is reported', async (t) => {
  // month 13 with a matching check digit
  const line = `L898902C36UTO741312${checkDigit('741312')}F1204159ZE184226B<<<<<1`;
  const full = line + checkDigit(line.slice(0, 10) + line.slice(13, 20) + line.slice(21, 43));
  const r = parseMrz(`${TD3[0]}\n${full}`, opts);
  t.same(r.failures, ['dateOfBirth_invalid']);
  t.equal(r.extractedData.dateOfBirth, undefined);
});

t.test('birth years never lie in the future; expiry years may', async (t) => {
  t.equal(parseMrz(TD3.join('\n'), { referenceYear: 2070 }).extractedData.dateOfBirth, '1974-08-12');
  t.equal(parseMrz(TD3.join('\n'), { referenceYear: 2073 }).extractedData.dateOfBirth, '1974-08-12');
  t.equal(parseMrz(TD3.join('\n'), { referenceYear: 2075 }).extractedData.dateOfBirth, '2074-08-12');
  // the specimen's expiry (12) read in 2070 is 2112, within 50 years ahead, and 2012 in 2025
  t.equal(parseMrz(TD3.join('\n'), { referenceYear: 2070 }).extractedData.expiryDate, '2112-04-15');
  t.equal(parseMrz(TD3.join('\n'), opts).extractedData.expiryDate, '2012-04-15');
});

t.test('text that is not an MRZ is a format error', async (t) => {
  for (const text of ['', 'hello', TD3[0]!, `${TD3[0]}\n${TD3[1]!.slice(1)}`, `${TD3[0]}\n${at(TD3[1]!, 3, 'é')}`, 'x'.repeat(300)]) {
    let code: string | undefined;
    try {
      parseMrz(text, opts);
    } catch (err) {
      code = isLedgerError(err) ? err.code : String(err);
    }
    t.equal(code, 'MRZ_FORMAT', JSON.stringify(text.slice(0, 30)));
  }
});
