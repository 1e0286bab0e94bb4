import { buildCredentialRequest, buildCredentialRevoke, buildValidatorQualify, type TxBase } from '../../client/builder.js';
import { CREDENTIAL_TYPES, isCredentialType } from '../../protocol/credential-types.js';
import { fromHex } from '../../protocol/bytes.js';
import type { UnsignedTransaction } from '../../protocol/transaction.js';
import { intFlag, requireFlag, UsageError, type Parsed } from '../io.js';
import { usage } from './recovery-tx.js';

/**
 * The credential kinds of `ledger tx`: credential-request (the issuer), credential-revoke (the
 * issuer or the governance key) and validator-qualify (a validator naming its KYC credential).
 * The revocation position is a required flag: the credential, and so its hash, already holds it.
 */

export const CREDENTIAL_TX_FLAGS = {
  'credential-request': ['credential', 'subject', 'type', 'kyc-level', 'hash', 'evidence', 'status-list', 'status-index'],
  'credential-revoke': ['credential'],
  'validator-qualify': ['credential'],
};

export const CREDENTIAL_TX_OPTIONS = {
  credential: { type: 'string' },
  subject: { type: 'string' },
  type: { type: 'string' },
  'kyc-level': { type: 'string' },
  hash: { type: 'string' },
  evidence: { type: 'string' },
  'status-list': { type: 'string' },
  'status-index': { type: 'string' },
} as const;

function hash32(p: Parsed, flag: string): Uint8Array {
  const text = requireFlag(p, flag, 'tx');
  try {
    return fromHex(text, 32, `--${flag}`);
  } catch {
    throw new UsageError(`--${flag} must be 64 lowercase hex characters (32 bytes)`, 'tx');
  }
}

export function credentialRequestTx(p: Parsed, base: TxBase, issuerDid: string): UnsignedTransaction {
  const type = requireFlag(p, 'type', 'tx');
  if (!isCredentialType(type)) throw new UsageError(`--type must be one of ${CREDENTIAL_TYPES.join(', ')}`, 'tx');
  const statusList = intFlag(p, 'status-list', 'tx', 0, 0xffffffff) ?? 0;
  const statusIndex = intFlag(p, 'status-index', 'tx', 0, 131_071);
  if (statusIndex === undefined) throw new UsageError('--status-index is required: the issuer\'s next position (ledger_nextRevocationIndex), which the credential holds', 'tx');
  const kycLevel = intFlag(p, 'kyc-level', 'tx', 1, 3);
  return usage('tx', () =>
    buildCredentialRequest({
      ...base,
      credentialId: requireFlag(p, 'credential', 'tx'),
      credentialType: type,
      ...(kycLevel === undefined ? {} : { kycLevel }),
      subjectDid: requireFlag(p, 'subject', 'tx'),
      issuerDid,
      hash: hash32(p, 'hash'),
      evidenceDigest: hash32(p, 'evidence'),
      statusList,
      statusIndex,
    }),
  );
}

export function credentialRevokeTx(p: Parsed, base: TxBase): UnsignedTransaction {
  return usage('tx', () => buildCredentialRevoke({ ...base, credentialId: requireFlag(p, 'credential', 'tx') }));
}

export function validatorQualifyTx(p: Parsed, base: TxBase): UnsignedTransaction {
  return usage('tx', () => buildValidatorQualify({ ...base, credentialId: requireFlag(p, 'credential', 'tx') }));
}
