import { readFileSync, statSync } from 'node:fs';
import { invalid, isLedgerError } from '../../../../node/errors.js';
import { didKeyFromSeed } from './did-key.js';
import { encodeMultikey } from './document.js';

/**
 * The mediator's keys from configuration (docs/relay.md, "Moving a relay to a new host"):
 * `plugins.relay.keys` inline, or `plugins.relay.keysFile`, a JSON file of the same shape that
 * only its owner may read (mode 0600, as `ledger keys new` writes key files).
 *
 * The shape is `{"ed25519": "<32-byte seed>", "x25519": "<public multikey>"?}`, the seed as 64
 * hex characters or 43 base64url ones. The X25519 key-agreement key is the one derived from the
 * Ed25519 key (did:key defines it so: a did:key names one key); `x25519`, when given, must be
 * that derived public key (`z6LS…`), a check that the file belongs to the DID one expects.
 * `did`, when given, must be the did:key of that seed. Errors name the field and what is wrong,
 * never the value.
 */

export interface MediatorKeys {
  ed25519Seed: Uint8Array;
  /** where the keys came from, for logs: `plugins.relay.keys` or the file's path */
  source: string;
}

const FIELDS = ['ed25519', 'x25519', 'did'];

function fail(field: string, what: string): never {
  throw invalid('CONFIG_INVALID', `${field} ${what}`, { field });
}

function decodeSeed(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string') fail(field, 'must be a string: the 32-byte Ed25519 seed as 64 hex characters or 43 base64url characters');
  let bytes: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(value)) bytes = Buffer.from(value, 'hex');
  else if (/^[A-Za-z0-9_-]{43}$/.test(value)) bytes = Buffer.from(value, 'base64url');
  if (!bytes || bytes.length !== 32) fail(field, `must be the 32-byte Ed25519 seed as 64 hex characters or 43 base64url characters (it has ${value.length} characters)`);
  if (bytes.every((b) => b === 0)) fail(field, 'is all zeros, not a secret key');
  return Uint8Array.from(bytes);
}

/** Reads a keys object (`where` is its config path, e.g. `plugins.relay.keys`). */
export function parseMediatorKeys(value: unknown, where: string): MediatorKeys {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(where, 'must be an object {"ed25519": "<seed>"}');
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!FIELDS.includes(k)) fail(`${where}.${k}`, `is not a key field; allowed: ${FIELDS.join(', ')}`);
  if (o.ed25519 === undefined) fail(`${where}.ed25519`, 'is missing: the 32-byte Ed25519 seed of the mediator');
  const ed25519Seed = decodeSeed(o.ed25519, `${where}.ed25519`);
  if (o.x25519 !== undefined) {
    const derived = encodeMultikey('X25519', didKeyFromSeed(ed25519Seed).x25519PublicKey);
    if (typeof o.x25519 !== 'string' || !o.x25519.startsWith('z6LS')) fail(`${where}.x25519`, 'must be an X25519 public multikey (z6LS…)');
    if (o.x25519 !== derived) fail(`${where}.x25519`, 'is not the X25519 key derived from ed25519: the two fields belong to different identities');
  }
  if (o.did !== undefined && o.did !== didKeyFromSeed(ed25519Seed).did) fail(`${where}.did`, 'is not the did:key of ed25519: the fields belong to different identities');
  return redacted(ed25519Seed, where);
}

/** keeps the seed out of anything that serializes or inspects the config (logs, error reports) */
function redacted(ed25519Seed: Uint8Array, source: string): MediatorKeys {
  const keys = { source } as MediatorKeys;
  Object.defineProperty(keys, 'ed25519Seed', { value: ed25519Seed, enumerable: false });
  return keys;
}

/** Reads `plugins.relay.keysFile`: refused when group or others may read it, or when it is not JSON. */
export function readMediatorKeysFile(path: string, where: string): MediatorKeys {
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) fail(where, `names ${path}, which is not a file`);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      fail(where, `names ${path}, which group or others may read (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it`);
    }
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (isLedgerError(err)) throw err;
    fail(where, `names ${path}, which cannot be read (${(err as { code?: string }).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail(where, `names ${path}, which is not JSON`);
  }
  return redacted(parseMediatorKeys(json, `${where} (${path})`).ed25519Seed, path);
}

/** The JSON of a keys file for `seed` (what `ledger relay keys new` writes). */
export function mediatorKeysFileText(seed: Uint8Array): string {
  const id = didKeyFromSeed(seed);
  const body = { ed25519: Buffer.from(seed).toString('base64url'), x25519: encodeMultikey('X25519', id.x25519PublicKey), did: id.did };
  return `${JSON.stringify(body, null, 2)}\n`;
}
