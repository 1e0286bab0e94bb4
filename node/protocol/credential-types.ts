import { invalid } from '../errors.js';
import { UNIT } from './amount.js';

/**
 * The credential types of seed 002 and their issuance fees, in smallest units (1 LGR = 10^8).
 * KYCCredential comes in three levels, each with its own fee; the other types have none.
 */

export const CREDENTIAL_TYPES = [
  'EmailVerificationCredential',
  'PhoneVerificationCredential',
  'KYCCredential',
  'AgeVerificationCredential',
  'ReputationCredential',
] as const;

export type CredentialType = (typeof CREDENTIAL_TYPES)[number];
export type KycLevel = 1 | 2 | 3;

const FLAT_FEES: Record<Exclude<CredentialType, 'KYCCredential'>, bigint> = {
  EmailVerificationCredential: UNIT / 100n, // 0.01
  PhoneVerificationCredential: UNIT / 50n, // 0.02
  AgeVerificationCredential: UNIT / 20n, // 0.05
  ReputationCredential: UNIT / 100n, // 0.01
};

/** level 1: name and date of birth; 2: government ID and address; 3: biometric, in person */
const KYC_FEES: Record<KycLevel, bigint> = { 1: UNIT, 2: 5n * UNIT, 3: 20n * UNIT };

export function isCredentialType(value: unknown): value is CredentialType {
  return typeof value === 'string' && (CREDENTIAL_TYPES as readonly string[]).includes(value);
}

/** The issuance fee; a KYCCredential needs its level (1-3), the other types take none. */
export function issuanceFee(type: CredentialType, kycLevel?: number): bigint {
  if (type !== 'KYCCredential') {
    if (kycLevel !== undefined) throw invalid('BAD_CREDENTIAL_TYPE', `${type} has no KYC level`);
    return FLAT_FEES[type];
  }
  if (kycLevel !== 1 && kycLevel !== 2 && kycLevel !== 3) throw invalid('BAD_CREDENTIAL_TYPE', `a KYCCredential has level 1, 2 or 3, got ${String(kycLevel)}`);
  return KYC_FEES[kycLevel];
}
