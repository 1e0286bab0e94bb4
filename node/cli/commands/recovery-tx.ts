import { buildDidRecover, buildSetRecoveryPolicy, type GuardianSignature, type TxBase } from '../../client/builder.js';
import { isLedgerError } from '../../errors.js';
import type { UnsignedTransaction } from '../../protocol/transaction.js';
import { intFlag, requireFlag, stringFlag, UsageError, type Parsed } from '../io.js';

/** The recovery kinds of `ledger tx`: set-recovery-policy (the owner) and did-recover (anyone, with guardians' signatures). */

export const RECOVERY_TX_FLAGS = {
  'set-recovery-policy': ['did', 'guardian', 'threshold', 'delay-blocks', 'clear'],
  'did-recover': ['did', 'new-public-key', 'signature'],
};

export const RECOVERY_TX_OPTIONS = {
  guardian: { type: 'string', multiple: true },
  threshold: { type: 'string' },
  'delay-blocks': { type: 'string' },
  clear: { type: 'boolean' },
  'new-public-key': { type: 'string' },
  signature: { type: 'string', multiple: true },
} as const;

function list(p: Parsed, name: string): string[] {
  const v = p.values[name];
  return Array.isArray(v) ? v : [];
}

/** Builder errors (a bad DID, a threshold out of range) are usage errors: nothing is sent. */
export function usage<T>(command: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (isLedgerError(err)) throw new UsageError(err.message, command);
    throw err;
  }
}

export function setRecoveryPolicyTx(p: Parsed, base: TxBase, ownDid: string): UnsignedTransaction {
  const did = stringFlag(p, 'did') ?? ownDid;
  if (p.values.clear === true) {
    if (list(p, 'guardian').length > 0 || p.values.threshold !== undefined || p.values['delay-blocks'] !== undefined) {
      throw new UsageError('--clear removes the policy: it takes no --guardian, --threshold or --delay-blocks', 'tx');
    }
    return usage('tx', () => buildSetRecoveryPolicy({ ...base, did, guardians: [], threshold: 0 }));
  }
  if (list(p, 'guardian').length === 0) throw new UsageError('set-recovery-policy needs at least one --guardian <did> (or --clear)', 'tx');
  const threshold = intFlag(p, 'threshold', 'tx', 1, 10);
  if (threshold === undefined) throw new UsageError('--threshold is required', 'tx');
  const delayBlocks = intFlag(p, 'delay-blocks', 'tx', 0, 1_000_000) ?? 0;
  return usage('tx', () => buildSetRecoveryPolicy({ ...base, did, guardians: list(p, 'guardian'), threshold, delayBlocks }));
}

/** "<guardian did>=<hex signature>", as `ledger recovery sign` prints it. */
export function parseSignatureFlag(text: string): GuardianSignature {
  const at = text.lastIndexOf('=');
  if (at < 0) throw new UsageError(`--signature takes <guardian did>=<hex signature>; got ${JSON.stringify(text)}`, 'tx');
  return { guardian: text.slice(0, at), signature: text.slice(at + 1) };
}

export function didRecoverTx(p: Parsed, base: TxBase): UnsignedTransaction {
  const signatures = list(p, 'signature').map(parseSignatureFlag);
  if (signatures.length === 0) throw new UsageError('did-recover needs the guardians\' --signature <guardian did>=<hex>', 'tx');
  const did = requireFlag(p, 'did', 'tx');
  const newPublicKey = requireFlag(p, 'new-public-key', 'tx');
  return usage('tx', () => buildDidRecover({ ...base, did, newPublicKey, signatures }));
}
