import { createRequire } from 'node:module';
import type { DIDDoc, IMessage, Secret, UnpackMetadata } from 'didcomm-node';
import { staticSecretsResolver } from './dids/secrets.js';
import { ownKeys } from './jwe/own-keys.js';
import { fastPack } from './jwe/pack.js';
import { fastUnpack } from './jwe/unpack.js';
import type { OwnKeys } from './jwe/unpack.js';

/**
 * Packing and unpacking envelopes: X25519 envelopes with a plaintext message on Node's crypto
 * (jwe/, the fast path), everything else with the reference DIDComm v2 implementation
 * (didcomm-node, WASM), which also decides and words every refusal. The library is wrapped so
 * that nothing it returns outlives a call: every Message is freed in `finally`, or WASM memory
 * grows. DID documents come in as a map, resolved beforehand on the caller's side; this module
 * does no I/O, so it runs the same in the event loop or in a worker thread.
 */

type DidcommModule = typeof import('didcomm-node');
const didcomm = createRequire(import.meta.url)('didcomm-node') as DidcommModule;

export type { DIDDoc, IMessage, Secret };

/** which implementation did the crypto: Node's (jwe/) or the reference library's */
export type CryptoPath = 'node' | 'library';

export interface Unpacked {
  message: IMessage;
  /** the authenticated sender's key id (authcrypt), else undefined */
  fromKid: string | undefined;
  authenticated: boolean;
  encrypted: boolean;
  toKids: string[];
  via: CryptoPath;
}

export interface Packed {
  packed: string;
  via: CryptoPath;
}

export interface PackRequest {
  message: IMessage;
  to: string;
  /** the sender DID for authcrypt; null for anoncrypt */
  from: string | null;
}

export type DocLookup = (did: string) => DIDDoc | null;

function resolverOf(lookup: DocLookup) {
  return { resolve: async (did: string) => lookup(did) };
}

// the mediator's keys under its did:key ids and under its did:peer:2 ids (dids/secrets.ts)
const secretsOf = staticSecretsResolver;

const fastKeys = new WeakMap<readonly Secret[], OwnKeys>();
function fastKeysOf(secrets: readonly Secret[]): OwnKeys {
  let keys = fastKeys.get(secrets);
  if (!keys) fastKeys.set(secrets, (keys = ownKeys(secrets)));
  return keys;
}

export async function unpackEnvelope(envelope: string, lookup: DocLookup, secrets: readonly Secret[]): Promise<Unpacked> {
  const fast = fastUnpack(envelope, lookup, fastKeysOf(secrets));
  if (fast) return { ...fast, message: fast.message as unknown as IMessage, via: 'node' };
  return unpackWithLibrary(envelope, lookup, secrets);
}

/** the reference library alone (tests compare the fast path with it) */
export async function unpackWithLibrary(envelope: string, lookup: DocLookup, secrets: readonly Secret[]): Promise<Unpacked> {
  const [msg, meta] = (await didcomm.Message.unpack(envelope, resolverOf(lookup), secretsOf(secrets), {})) as [InstanceType<DidcommModule['Message']>, UnpackMetadata];
  try {
    return {
      message: msg.as_value(),
      fromKid: meta.encrypted_from_kid ?? undefined,
      authenticated: meta.authenticated,
      encrypted: meta.encrypted,
      toKids: meta.encrypted_to_kids ?? [],
      via: 'library',
    };
  } finally {
    msg.free();
  }
}

export async function packEnvelope(req: PackRequest, lookup: DocLookup, secrets: readonly Secret[]): Promise<Packed> {
  const fast = fastPack({ ...req, message: req.message as unknown as Record<string, unknown> }, lookup, fastKeysOf(secrets));
  return fast === null ? { packed: await packWithLibrary(req, lookup, secrets), via: 'library' } : { packed: fast, via: 'node' };
}

/** the reference library alone (tests compare the fast path with it) */
export async function packWithLibrary(req: PackRequest, lookup: DocLookup, secrets: readonly Secret[]): Promise<string> {
  const msg = new didcomm.Message(req.message);
  try {
    const [packed] = await msg.pack_encrypted(req.to, req.from, null, resolverOf(lookup), secretsOf(secrets), { forward: false });
    return packed;
  } finally {
    msg.free();
  }
}

/** didcomm-node throws strings or Errors like "DIDCommMalformed: ..."; this keeps the first line, capped. */
export function didcommErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.slice(0, 300);
}
