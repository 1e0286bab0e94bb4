/**
 * The constraints a committee can check, and their forms (docs/protocol.md, "Verification requests
 * and responses"): one reader for the request parser, which refuses what it cannot read, and for
 * the committee (node/verification), which never ignores a key it cannot judge.
 */

export const SUPPORTED_CONSTRAINT_KEYS = ['minimumAge', 'minimumLevel', 'jurisdiction'] as const;
export const MAX_MINIMUM_AGE = 150;
/** as parseVerificationRequest allows */
export const MAX_JURISDICTIONS = 64;
const ALPHA2 = /^[A-Z]{2}$/;
/** a reason carries at most this much of a key it did not know: reasons are short, stable codes */
const MAX_KEY_IN_REASON = 64;

export interface Constraints {
  minimumAge?: number;
  minimumLevel?: 1 | 2 | 3;
  /** ISO 3166-1 alpha-2 codes; a credential's "US-CA" is in "US" */
  jurisdiction?: string[];
}

export interface ConstraintRead {
  /** those it could read; the others allow no disclosure */
  constraints: Constraints;
  /** the first unreadable key in sorted order: `unsupported_constraint:<key>` or `invalid_constraint:<key>` */
  problem?: string;
}

/**
 * The claim's constraints, never throwing: a request that reached the chain was already checked,
 * but a committee still never ignores a key it cannot judge, it names it.
 */
export function readConstraints(raw: Record<string, unknown>): ConstraintRead {
  const constraints: Constraints = {};
  let problem: string | undefined;
  const note = (p: string) => (problem ??= p);
  for (const key of Object.keys(raw).sort()) {
    const v = raw[key];
    if (key === 'minimumAge') {
      if (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_MINIMUM_AGE) constraints.minimumAge = v as number;
      else note('invalid_constraint:minimumAge');
    } else if (key === 'minimumLevel') {
      if (v === 1 || v === 2 || v === 3) constraints.minimumLevel = v;
      else note('invalid_constraint:minimumLevel');
    } else if (key === 'jurisdiction') {
      const list = Array.isArray(v) ? v : [v];
      if (list.length > 0 && list.length <= MAX_JURISDICTIONS && list.every((j) => typeof j === 'string' && ALPHA2.test(j))) constraints.jurisdiction = list as string[];
      else note('invalid_constraint:jurisdiction');
    } else note(`unsupported_constraint:${key.slice(0, MAX_KEY_IN_REASON)}`);
  }
  return problem === undefined ? { constraints } : { constraints, problem };
}

