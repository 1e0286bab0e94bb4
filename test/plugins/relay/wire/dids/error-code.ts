import { isLedgerError } from '../../../../../node/errors.js';

/** The LedgerError code `fn` throws, or what went differently. */
export const errorCode = (fn: () => unknown): string => {
  try {
    fn();
    return 'no error';
  } catch (err) {
    return isLedgerError(err) ? err.code : `not a LedgerError: ${String(err)}`;
  }
};
