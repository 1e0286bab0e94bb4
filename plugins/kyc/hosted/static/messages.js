// What the page tells people. The server answers with machine-readable codes (a session's
// `reason`, a Problem's `code`) and with text written for developers; the page shows only the
// sentences below, chosen by code, and a general sentence for a code it does not know.

/** Why a session failed or expired, by `reason`: a function of the session's level when it differs. */
export const REASON_SENTENCES = {
  mrz_check_digit: 'The code lines printed on your document could not be read correctly.',
  document_expired: 'Your document has expired. A document that is still valid is needed.',
  document_rejected: 'Your document could not be accepted.',
  // a level-1 session has no selfie photos: nothing was compared with a face
  face_mismatch: (level) => (level >= 2 ? 'The face in your selfie photos did not match the photo on your document.' : 'Your document could not be verified.'),
  provider_rejected: 'Your documents could not be verified.',
  session_ttl: 'The time to complete the verification ran out.',
  review_ttl: 'No decision could be made in time.',
  timeout: 'The verification took too long and was stopped.',
};

export const GENERAL_REASON = 'Your verification could not be completed.';

/** What went wrong with a step, by the Problem's `code`. */
export const ERROR_SENTENCES = {
  IMAGE_TOO_SMALL: 'This photo is too small to read. Move closer so that the document fills the picture, or choose a larger photo.',
  IMAGE_TOO_LARGE: 'This photo is larger than 10 MB. Choose a smaller one.',
  FILE_TOO_LARGE: 'This photo is larger than 10 MB. Choose a smaller one.',
  BODY_TOO_LARGE: 'This photo is larger than 10 MB. Choose a smaller one.',
  IMAGE_DIMENSIONS_TOO_LARGE: 'This photo has too many pixels. Take a new photo, or choose a smaller one.',
  IMAGE_TYPE_UNSUPPORTED: 'This file is not a JPEG or PNG photo. Choose a photo in one of those formats.',
  IMAGE_UNDECODABLE: 'This photo could not be opened; it may be damaged. Take a new photo, or choose another one.',
  IMAGE_CHECKS_BUSY: 'We are very busy right now. Wait a moment, then try again.',
  MRZ_FORMAT: 'The code lines printed on your document could not be read. Take the photo again.',
  FILE_REQUIRED: 'Take or choose a photo first.',
  FILE_EXPECTED: 'The photo did not arrive. Try again.',
  FIELD_NOT_FILE: 'The photo did not arrive. Try again.',
  TOO_MANY_FILES: 'The upload was not complete. Try again.',
  UNKNOWN_FIELD: 'The upload was not complete. Try again.',
  FIELD_TOO_LONG: 'The upload was not complete. Try again.',
  DUPLICATE_FIELD: 'The upload was not complete. Try again.',
  MULTIPART_REQUIRED: 'The upload was not complete. Try again.',
  MULTIPART_INVALID: 'The upload was not complete. Try again.',
  FRAMES_COUNT: 'The camera photos did not arrive. Try again.',
  LIVENESS_CHALLENGE_REQUIRED: 'The check was not ready. Try again.',
  LIVENESS_CHALLENGE_EXPIRED: 'The check took too long. Try again.',
  LIVENESS_CHALLENGE_MISMATCH: 'The check was started again elsewhere. Try again here.',
  LIVENESS_ALREADY_SUBMITTED: 'This step is already done. Reload the page to continue.',
  LIVENESS_NOT_IN_LEVEL: 'This step is not part of your verification. Reload the page to continue.',
  ADDRESS_PROOF_NOT_IN_LEVEL: 'This step is not part of your verification. Reload the page to continue.',
  ADDRESS_PROOF_SIDE: 'Upload your proof of address as one page.',
  DOCUMENT_LIMIT: 'Too many photos were sent for this verification. Ask the organization that sent you the link for a new one.',
  SESSION_NOT_PENDING: 'This verification is already finished. Reload the page to see its result.',
  SESSION_FINISHED: 'This verification is already finished. Reload the page to see its result.',
  SESSION_NOT_FOUND: 'This verification link is not valid. Ask the organization that sent it to you for a new one.',
};

/** For a code the page does not know, by the HTTP status. */
function generalError(status) {
  if (status === 0) return 'The service cannot be reached. Check your connection, then try again.';
  if (status === 404) return ERROR_SENTENCES.SESSION_NOT_FOUND;
  if (status === 413) return ERROR_SENTENCES.FILE_TOO_LARGE;
  if (status === 429 || status === 503) return ERROR_SENTENCES.IMAGE_CHECKS_BUSY;
  if (status >= 500) return 'Something went wrong on our side. Try again in a moment.';
  return 'Something went wrong with this step. Try again; if it keeps happening, ask the organization that sent you the link for help.';
}

const own = (table, key) => typeof key === 'string' && Object.prototype.hasOwnProperty.call(table, key);

/** The sentence for a session's failure or expiry reason at its level (1 to 3). */
export function reasonSentence(reason, level) {
  if (!own(REASON_SENTENCES, reason)) return GENERAL_REASON;
  const sentence = REASON_SENTENCES[reason];
  return typeof sentence === 'function' ? sentence(level) : sentence;
}

/** The sentence for a refused request: by its Problem code, else by its status (0: no answer; none: not a request). */
export function errorSentence(status, code) {
  return own(ERROR_SENTENCES, code) ? ERROR_SENTENCES[code] : generalError(status);
}
