import { formatAddress } from '../../protocol/address.js';
import { toHex } from '../../protocol/bytes.js';
import { formatCredentialId } from '../../protocol/credential-id.js';
import type { CredentialRecord } from '../../protocol/credential-records.js';
import { didForIdentifier } from '../../protocol/did.js';
import type { ChainStore } from '../../state/chain-store.js';

/**
 * The RPC form of a credential record: seed 002's fields (`id` … `revoked_ms`), then what the
 * chain also knows. `issued_ms` is null until registration.
 */
export function credentialView(c: CredentialRecord, network: string, issuerActive: boolean): Record<string, unknown> {
  return {
    id: formatCredentialId(c.id),
    issuer_did: didForIdentifier(network, c.issuer),
    subject_did: didForIdentifier(network, c.subject),
    credential_type: c.credentialType,
    hash: toHex(c.hash),
    issued_ms: c.status === 'registered' ? c.issuedMs : null,
    revoked: c.revokedMs !== null,
    revoked_ms: c.revokedMs,
    ...(c.credentialType === 'KYCCredential' ? { kyc_level: c.kycLevel } : {}),
    status: c.status,
    issuer_active: issuerActive,
    status_list: c.statusList,
    status_index: c.statusIndex,
    evidence_digest: toHex(c.evidenceDigest),
    request_height: c.requestHeight,
    deadline_height: c.deadlineHeight,
    threshold: c.threshold,
    consensus_round: c.status === 'registered' ? c.consensusRound : null,
    validator_signatures: c.attestations.map((a) => ({ validator: formatAddress(a.validator), signature: toHex(a.signature) })),
    ...(c.bbs ? { bbs_public_key: toHex(c.bbs.publicKey), bbs_message_count: c.bbs.messageCount } : {}),
    tx_hash: toHex(c.txHash),
  };
}

/** The record's view with its issuer's current status read from the store. */
export async function credentialViewOf(store: ChainStore, network: string, c: CredentialRecord): Promise<Record<string, unknown>> {
  return credentialView(c, network, (await store.dids.get(c.issuer))?.active ?? false);
}

/**
 * The ledger_credentialVerify answer: null unless the credential is registered; valid while it is
 * not revoked, also when its issuer has since been deactivated.
 */
export async function credentialVerification(store: ChainStore, network: string, id: Uint8Array): Promise<{ valid: boolean; credential: Record<string, unknown>; revoked: boolean } | null> {
  const c = await store.credentials.get(id);
  if (c?.status !== 'registered') return null;
  const revoked = c.revokedMs !== null;
  return { valid: !revoked, credential: await credentialViewOf(store, network, c), revoked };
}
