import { ed25519PublicKeyMultibase } from '../crypto/multibase.js';
import type { ServiceEndpoint } from './payload-types.js';
import type { DidRecord } from './records.js';

export const DID_CONTEXT = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/ed25519-2020/v1'];

export interface VerificationMethod {
  id: string;
  type: 'Ed25519VerificationKey2020';
  controller: string;
  publicKeyMultibase: string;
}

export interface DidDocument {
  '@context': string[];
  id: string;
  controller: string;
  verificationMethod: VerificationMethod[];
  authentication: string[];
  assertionMethod: string[];
  service: ServiceEndpoint[];
}

/** The RPC form (`ledger_didResolve`): the document unwrapped, plus its state. */
export interface DidDocumentRpc extends DidDocument {
  active: boolean;
  created_ms: number;
  updated_ms: number;
  version_id: string;
}

export function didDocument(r: DidRecord): DidDocument {
  const keyId = `${r.did}#key-1`;
  const methods: VerificationMethod[] = r.publicKey
    ? [{ id: keyId, type: 'Ed25519VerificationKey2020', controller: r.did, publicKeyMultibase: ed25519PublicKeyMultibase(r.publicKey) }]
    : [];
  const refs = methods.map((m) => m.id);
  return {
    '@context': [...DID_CONTEXT],
    id: r.did,
    controller: r.did,
    verificationMethod: methods,
    authentication: refs,
    assertionMethod: [...refs],
    service: r.service.map((s) => ({ ...s })),
  };
}

export function didDocumentRpc(r: DidRecord): DidDocumentRpc {
  return { ...didDocument(r), active: r.active, created_ms: r.createdMs, updated_ms: r.updatedMs, version_id: String(r.versionId) };
}

/** The keys listed under `authentication`: the only keys that may deactivate the DID. */
export function authenticationKeys(r: DidRecord): Uint8Array[] {
  return r.active && r.publicKey ? [r.publicKey] : [];
}
