/**
 * Whether a decrypted plaintext is a DIDComm message the reference library (didcomm-node) reads
 * as it stands, so the fast path can return it without the library: the fields its `Message`
 * type declares, with their types, `typ` the plaintext media type, attachments inline (json or
 * base64). Anything else, valid or not (a `from_prior`, links, a `null` where a value is
 * optional, a JWS or JWE inside), is left to the library, which decides and words the error.
 */

export const PLAINTEXT_TYP = 'application/didcomm-plain+json';

const MESSAGE_STRINGS = ['from', 'thid', 'pthid'];
const MESSAGE_TIMES = ['created_time', 'expires_time'];
/** present in a JWE or a JWS, never needed by a message: a payload carrying one is nested */
const ENVELOPE_MEMBERS = ['ciphertext', 'protected', 'recipients', 'payload', 'signatures', 'signature'];
const ATTACHMENT_STRINGS = new Set(['id', 'description', 'filename', 'media_type', 'format']);
const ATTACHMENT_INTS = new Set(['lastmod_time', 'byte_count']);

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isU64 = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function plainAttachment(a: unknown): boolean {
  if (!isObject(a) || !isObject(a.data)) return false;
  for (const [k, v] of Object.entries(a)) {
    if (k === 'data') continue;
    if (ATTACHMENT_STRINGS.has(k) ? typeof v !== 'string' : !ATTACHMENT_INTS.has(k) || !isU64(v)) return false;
  }
  const { data } = a;
  const keys = Object.keys(data).filter((k) => k !== 'jws');
  if (data.jws !== undefined && typeof data.jws !== 'string') return false;
  if (keys.length !== 1) return false;
  if (keys[0] === 'base64') return typeof data.base64 === 'string';
  return keys[0] === 'json' && data.json !== null;
}

/** the message as the library would return it, or null: let the library read it */
export function plainMessage(value: unknown): Record<string, unknown> | null {
  if (!isObject(value)) return null;
  if (typeof value.id !== 'string' || typeof value.type !== 'string' || !('body' in value)) return null;
  if (value.typ !== undefined && value.typ !== PLAINTEXT_TYP) return null;
  if (value.from_prior !== undefined || ENVELOPE_MEMBERS.some((k) => k in value)) return null;
  if (MESSAGE_STRINGS.some((k) => value[k] !== undefined && typeof value[k] !== 'string')) return null;
  if (MESSAGE_TIMES.some((k) => value[k] !== undefined && !isU64(value[k]))) return null;
  if (value.to !== undefined && !(Array.isArray(value.to) && value.to.every((t) => typeof t === 'string'))) return null;
  if (value.attachments !== undefined && !(Array.isArray(value.attachments) && value.attachments.every(plainAttachment))) return null;
  return { ...value, typ: PLAINTEXT_TYP };
}
