// What the page tells people when something went wrong. The server answers with machine-readable
// codes (a session's `reason`, a Problem's `code`) and with text written for developers; the page
// shows only catalogue sentences chosen by code, and a general one for a code it does not know.

import { t } from './i18n.js';

/** Why a session failed or expired, by `reason`: the catalogue key, a function of the level when it differs. */
export const REASON_KEYS = {
  mrz_check_digit: 'reason.mrz_check_digit',
  document_expired: 'reason.document_expired',
  document_rejected: 'reason.document_rejected',
  face_mismatch: (level) => (level >= 2 ? 'reason.face_mismatch' : 'reason.face_mismatch.level1'),
  provider_rejected: 'reason.provider_rejected',
  session_ttl: 'reason.session_ttl',
  review_ttl: 'reason.review_ttl',
  timeout: 'reason.timeout',
};

export const GENERAL_REASON_KEY = 'reason.general';

/** What went wrong with a step, by the Problem's `code`: the catalogue key. */
export const ERROR_KEYS = {
  IMAGE_TOO_SMALL: 'error.IMAGE_TOO_SMALL',
  IMAGE_TOO_LARGE: 'error.tooLarge',
  FILE_TOO_LARGE: 'error.tooLarge',
  BODY_TOO_LARGE: 'error.tooLarge',
  IMAGE_DIMENSIONS_TOO_LARGE: 'error.IMAGE_DIMENSIONS_TOO_LARGE',
  IMAGE_TYPE_UNSUPPORTED: 'error.IMAGE_TYPE_UNSUPPORTED',
  IMAGE_UNDECODABLE: 'error.IMAGE_UNDECODABLE',
  IMAGE_CHECKS_BUSY: 'error.busy',
  MRZ_FORMAT: 'error.MRZ_FORMAT',
  FILE_REQUIRED: 'error.FILE_REQUIRED',
  FILE_EXPECTED: 'error.notArrived',
  FIELD_NOT_FILE: 'error.notArrived',
  TOO_MANY_FILES: 'error.incomplete',
  UNKNOWN_FIELD: 'error.incomplete',
  FIELD_TOO_LONG: 'error.incomplete',
  DUPLICATE_FIELD: 'error.incomplete',
  MULTIPART_REQUIRED: 'error.incomplete',
  MULTIPART_INVALID: 'error.incomplete',
  FRAMES_COUNT: 'error.FRAMES_COUNT',
  LIVENESS_CHALLENGE_REQUIRED: 'error.LIVENESS_CHALLENGE_REQUIRED',
  LIVENESS_CHALLENGE_EXPIRED: 'error.LIVENESS_CHALLENGE_EXPIRED',
  LIVENESS_CHALLENGE_MISMATCH: 'error.LIVENESS_CHALLENGE_MISMATCH',
  LIVENESS_ALREADY_SUBMITTED: 'error.LIVENESS_ALREADY_SUBMITTED',
  LIVENESS_NOT_IN_LEVEL: 'error.notInLevel',
  ADDRESS_PROOF_NOT_IN_LEVEL: 'error.notInLevel',
  ADDRESS_PROOF_SIDE: 'error.ADDRESS_PROOF_SIDE',
  DOCUMENT_LIMIT: 'error.DOCUMENT_LIMIT',
  SESSION_NOT_PENDING: 'error.finished',
  SESSION_FINISHED: 'error.finished',
  SESSION_NOT_FOUND: 'error.SESSION_NOT_FOUND',
};

/** For a code the page does not know, by the HTTP status. */
function generalErrorKey(status) {
  if (status === 0) return 'error.offline';
  if (status === 404) return ERROR_KEYS.SESSION_NOT_FOUND;
  if (status === 413) return ERROR_KEYS.FILE_TOO_LARGE;
  if (status === 429 || status === 503) return ERROR_KEYS.IMAGE_CHECKS_BUSY;
  if (status >= 500) return 'error.server';
  return 'error.general';
}

const own = (table, key) => typeof key === 'string' && Object.hasOwn(table, key);

/** The catalogue key for a session's failure or expiry reason at its level (1 to 3). */
export function reasonKey(reason, level) {
  if (!own(REASON_KEYS, reason)) return GENERAL_REASON_KEY;
  const key = REASON_KEYS[reason];
  return typeof key === 'function' ? key(level) : key;
}

/** The catalogue key for a refused request: by its Problem code, else by its status (0: no answer; none: not a request). */
export const errorKey = (status, code) => (own(ERROR_KEYS, code) ? ERROR_KEYS[code] : generalErrorKey(status));

export const reasonSentence = (reason, level) => t(reasonKey(reason, level));
export const errorSentence = (status, code) => t(errorKey(status, code));
