import { invalid } from '../../../../node/errors.js';
import type { ExtractedData } from '../../types.js';

/**
 * ICAO Doc 9303 machine-readable zones: TD1 (3 lines of 30, ID cards), TD2 (2 of 36) and TD3
 * (2 of 44, passports). Every check digit of the format is verified; the result lists the ones
 * that fail by name, so a session can be failed with a precise reason. A text that is not an
 * MRZ at all (line count, line length, characters) is a format error (MRZ_FORMAT), not a failed
 * check: the client sent something else.
 */

export type MrzFormat = 'TD1' | 'TD2' | 'TD3';

/** check digits by what they cover; `*_invalid` marks a date that is not a calendar date */
export type MrzFailure = 'documentNumber' | 'dateOfBirth' | 'expiryDate' | 'optionalData' | 'composite' | 'dateOfBirth_invalid' | 'expiryDate_invalid';

export interface MrzResult {
  format: MrzFormat;
  documentCode: string;
  issuingState: string;
  extractedData: ExtractedData;
  sex: string;
  /** the failing checks; empty when the MRZ is consistent */
  failures: MrzFailure[];
  valid: boolean;
}

const LINE = /^[A-Z0-9<]+$/;
const SHAPES: Record<MrzFormat, { lines: number; length: number }> = { TD1: { lines: 3, length: 30 }, TD2: { lines: 2, length: 36 }, TD3: { lines: 2, length: 44 } };

/** The 9303 check digit: weights 7, 3, 1 over the character values (0-9, A-Z = 10-35, < = 0), mod 10. */
export function checkDigit(text: string): string {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const value = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 90 ? c - 55 : c === 60 ? 0 : -1;
    if (value < 0) throw invalid('MRZ_FORMAT', `character ${JSON.stringify(text[i])} is not allowed in an MRZ`);
    sum += value * weights[i % 3]!;
  }
  return String(sum % 10);
}

const digitOk = (field: string, digit: string): boolean => checkDigit(field) === (digit === '<' ? '0' : digit);
const clean = (s: string): string => s.replace(/<+/g, ' ').trim();

/** `YYMMDD` as `YYYY-MM-DD`; the century is the latest one that keeps the date at most `maxYear`. */
function mrzDate(yymmdd: string, maxYear: number): string | undefined {
  if (!/^\d{6}$/.test(yymmdd)) return undefined;
  const yy = Number(yymmdd.slice(0, 2));
  const month = Number(yymmdd.slice(2, 4));
  const day = Number(yymmdd.slice(4, 6));
  let year = Math.floor(maxYear / 100) * 100 + yy;
  if (year > maxYear) year -= 100;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (month < 1 || month > 12 || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  return `${String(year).padStart(4, '0')}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}

function names(field: string): { lastName?: string; firstName?: string } {
  const at = field.indexOf('<<');
  const primary = clean(at < 0 ? field : field.slice(0, at));
  const secondary = at < 0 ? '' : clean(field.slice(at + 2));
  return { ...(primary ? { lastName: primary } : {}), ...(secondary ? { firstName: secondary } : {}) };
}

/** Splits and normalizes the text: CR/LF separated lines, surrounding blanks dropped. */
function lines(text: string): string[] {
  if (typeof text !== 'string' || text.length > 200) throw invalid('MRZ_FORMAT', 'an MRZ is at most 200 characters of text');
  return text
    .trim()
    .split(/\r?\n/)
    .map((l) => l.trim().toUpperCase());
}

export interface MrzOptions {
  /** the year dates are read against (births are not in the future); default the current year */
  referenceYear?: number;
}

export function parseMrz(text: string, opts: MrzOptions = {}): MrzResult {
  const ls = lines(text);
  const format = (Object.keys(SHAPES) as MrzFormat[]).find((f) => SHAPES[f].lines === ls.length && ls.every((l) => l.length === SHAPES[f].length));
  if (!format) {
    throw invalid('MRZ_FORMAT', `an MRZ is 3 lines of 30 (TD1), 2 of 36 (TD2) or 2 of 44 (TD3) characters; got ${ls.length} line(s) of ${ls.map((l) => l.length).join(', ')}`);
  }
  for (const l of ls) if (!LINE.test(l)) throw invalid('MRZ_FORMAT', 'an MRZ line holds only A-Z, 0-9 and <');
  const year = opts.referenceYear ?? new Date().getUTCFullYear();
  return format === 'TD1' ? td1(ls, year) : twoLine(format, ls, year);
}

interface Fields {
  documentCode: string;
  issuingState: string;
  name: string;
  number: string;
  numberOk: boolean;
  nationality: string;
  birth: string;
  birthOk: boolean;
  sex: string;
  expiry: string;
  expiryOk: boolean;
  optionalOk: boolean;
  compositeOk: boolean;
}

function result(format: MrzFormat, f: Fields, year: number): MrzResult {
  const failures: MrzFailure[] = [];
  if (!f.numberOk) failures.push('documentNumber');
  if (!f.birthOk) failures.push('dateOfBirth');
  if (!f.expiryOk) failures.push('expiryDate');
  if (!f.optionalOk) failures.push('optionalData');
  if (!f.compositeOk) failures.push('composite');
  const dateOfBirth = mrzDate(f.birth, year);
  // a document is valid for at most a few decades: read expiry years up to 50 years ahead
  const expiryDate = mrzDate(f.expiry, year + 50);
  if (!dateOfBirth) failures.push('dateOfBirth_invalid');
  if (!expiryDate) failures.push('expiryDate_invalid');
  const extractedData: ExtractedData = { ...names(f.name) };
  if (dateOfBirth) extractedData.dateOfBirth = dateOfBirth;
  const number = clean(f.number);
  if (number) extractedData.documentNumber = number;
  if (expiryDate) extractedData.expiryDate = expiryDate;
  const nationality = clean(f.nationality);
  if (nationality) extractedData.nationality = nationality;
  return { format, documentCode: clean(f.documentCode), issuingState: clean(f.issuingState), extractedData, sex: f.sex, failures, valid: failures.length === 0 };
}

/**
 * The document number and whether its check digit holds. A `<` in the check digit's place means
 * the number is longer than 9 characters and continues in `overflow` (the optional data), up to
 * its first filler, with its check digit last. Formats without that rule pass no overflow.
 */
function documentNumber(first9: string, check: string, overflow: string): { number: string; numberOk: boolean } {
  if (check === '<' && overflow !== '') {
    const end = overflow.indexOf('<');
    const rest = end < 0 ? overflow : overflow.slice(0, end);
    if (rest.length >= 2) {
      const number = first9 + rest.slice(0, -1);
      return { number, numberOk: digitOk(number, rest.slice(-1)) };
    }
  }
  return { number: first9, numberOk: digitOk(first9, check) };
}

/** TD2 and TD3 share their layout; only the name and optional-data widths differ. */
function twoLine(format: 'TD2' | 'TD3', [l1, l2]: string[], year: number): MrzResult {
  const a = l1!;
  const b = l2!;
  const td3 = format === 'TD3';
  const optEnd = td3 ? 42 : 35;
  // TD2: a document number longer than 9 characters continues in the optional data (9303-6 4.2.4)
  const { number, numberOk } = documentNumber(b.slice(0, 9), b[9]!, td3 ? '' : b.slice(28, optEnd));
  const composite = td3 ? b.slice(0, 10) + b.slice(13, 20) + b.slice(21, 43) : b.slice(0, 10) + b.slice(13, 20) + b.slice(21, 35);
  return result(
    format,
    {
      documentCode: a.slice(0, 2),
      issuingState: a.slice(2, 5),
      name: a.slice(5),
      number,
      numberOk,
      nationality: b.slice(10, 13),
      birth: b.slice(13, 19),
      birthOk: digitOk(b.slice(13, 19), b[19]!),
      sex: b[20]!,
      expiry: b.slice(21, 27),
      expiryOk: digitOk(b.slice(21, 27), b[27]!),
      // TD3's personal number has its own check digit ('<' when the field is empty); TD2 has none
      optionalOk: td3 ? digitOk(b.slice(28, 42), b[42]!) : true,
      compositeOk: digitOk(composite, b[td3 ? 43 : 35]!),
    },
    year,
  );
}

function td1([l1, l2, l3]: string[], year: number): MrzResult {
  const a = l1!;
  const b = l2!;
  // a document number longer than 9 characters continues in optional data 1
  const { number, numberOk } = documentNumber(a.slice(5, 14), a[14]!, a.slice(15, 30));
  const composite = a.slice(5, 30) + b.slice(0, 7) + b.slice(8, 15) + b.slice(18, 29);
  return result(
    'TD1',
    {
      documentCode: a.slice(0, 2),
      issuingState: a.slice(2, 5),
      name: l3!,
      number,
      numberOk,
      nationality: b.slice(15, 18),
      birth: b.slice(0, 6),
      birthOk: digitOk(b.slice(0, 6), b[6]!),
      sex: b[7]!,
      expiry: b.slice(8, 14),
      expiryOk: digitOk(b.slice(8, 14), b[14]!),
      optionalOk: true,
      compositeOk: digitOk(composite, b[29]!),
    },
    year,
  );
}
