import { invalid } from '../errors.js';
import { ageAt, KYC_BBS_STRUCTURAL, type KycBbsField } from '../protocol/kyc-bbs.js';
import { readConstraints, type Constraints } from '../protocol/verification-constraints.js';

export { readConstraints, type ConstraintRead, type Constraints } from '../protocol/verification-constraints.js';
import type { RequiredClaim } from '../protocol/verification.js';

/**
 * The constraints a committee can check (issue 27) and what each lets a BBS presentation
 * disclose. A wallet calls requiredDisclosure to choose its indexes; check.ts uses the same rules
 * to refuse over-disclosure and to judge the disclosed values, so the two cannot drift apart.
 */

/** What a BBS presentation for a claim discloses: all of `required`, and exactly one field of each `oneOf` group. */
export interface Disclosure {
  required: KycBbsField[];
  oneOf: KycBbsField[][];
}

export function disclosureFor(c: Constraints): Disclosure {
  const required: KycBbsField[] = [...KYC_BBS_STRUCTURAL];
  if (c.minimumLevel !== undefined) required.push('kycLevel');
  if (c.jurisdiction !== undefined) required.push('jurisdiction');
  const oneOf: KycBbsField[][] = [];
  if (c.minimumAge !== undefined) {
    // an ageOverN flag proves nothing about a minimum above N, so it is offered only up to N
    const group: KycBbsField[] = [];
    if (c.minimumAge <= 18) group.push('ageOver18');
    if (c.minimumAge <= 21) group.push('ageOver21');
    group.push('birthDate');
    oneOf.push(group);
  }
  return { required, oneOf };
}

/**
 * What a wallet must disclose in a BBS presentation for `claim`. Throws BAD_CONSTRAINT when the
 * claim has a constraint no committee can judge: no presentation can satisfy it.
 */
export function requiredDisclosure(claim: RequiredClaim): Disclosure {
  const { constraints, problem } = readConstraints(claim.constraints);
  if (problem !== undefined) throw invalid('BAD_CONSTRAINT', `claim ${claim.type} cannot be satisfied: ${problem}`);
  return disclosureFor(constraints);
}

/**
 * Why `disclosed` tells more than `d` allows (a field outside it, or two of one group), or
 * undefined. A required field left out is not over-disclosure: the claim just stays unmet.
 */
export function overDisclosure(disclosed: readonly KycBbsField[], d: Disclosure): string | undefined {
  const allowed = new Set<KycBbsField>([...d.required, ...d.oneOf.flat()]);
  const extra = disclosed.find((f) => !allowed.has(f));
  if (extra !== undefined) return `${extra} is disclosed but no constraint of the claim needs it`;
  for (const group of d.oneOf) {
    const shown = group.filter((f) => disclosed.includes(f));
    if (shown.length > 1) return `only one of ${group.join(', ')} may be disclosed, got ${shown.join(' and ')}`;
  }
  return undefined;
}

/**
 * The attribute values a claim is judged on, as the KYC layout writes them ("2", "true",
 * "1990-05-01"); absent when the credential does not show them.
 */
export type ClaimAttributes = Partial<Record<'kycLevel' | 'jurisdiction' | 'birthDate' | 'ageOver18' | 'ageOver21', string>>;

/** The first unmet constraint's reason (minimumAge, then minimumLevel, then jurisdiction), or undefined when all are met. */
export function evaluateConstraints(c: Constraints, a: ClaimAttributes, atMs: number): string | undefined {
  if (c.minimumAge !== undefined) {
    const r = judgeAge(c.minimumAge, a, atMs);
    if (r !== undefined) return r;
  }
  if (c.minimumLevel !== undefined) {
    if (a.kycLevel === undefined) return 'attribute_missing';
    if (!/^[1-3]$/.test(a.kycLevel)) return 'attribute_invalid';
    if (Number(a.kycLevel) < c.minimumLevel) return 'constraint_not_met:minimumLevel';
  }
  if (c.jurisdiction !== undefined) {
    if (a.jurisdiction === undefined) return 'attribute_missing';
    // the country part: a credential for "US-CA" is one of the United States
    if (!c.jurisdiction.includes(a.jurisdiction.split('-')[0]!)) return 'constraint_not_met:jurisdiction';
  }
  return undefined;
}

function judgeAge(minimumAge: number, a: ClaimAttributes, atMs: number): string | undefined {
  // ageOverN is the age at issuance, which only grows: "true" holds now, "false" proves nothing
  // about now (the holder discloses birthDate instead), so it is not met
  const flags: Array<[number, string | undefined]> = [
    [18, a.ageOver18],
    [21, a.ageOver21],
  ];
  for (const [n, value] of flags) {
    if (value === undefined || minimumAge > n) continue;
    if (value === 'true') return undefined;
    return value === 'false' ? 'constraint_not_met:minimumAge' : 'attribute_invalid';
  }
  // an empty birthDate: the issuer's document gave none
  if (a.birthDate === undefined || a.birthDate === '') return 'attribute_missing';
  let age: number;
  try {
    age = ageAt(a.birthDate, atMs);
  } catch {
    return 'attribute_invalid';
  }
  return age >= minimumAge ? undefined : 'constraint_not_met:minimumAge';
}
