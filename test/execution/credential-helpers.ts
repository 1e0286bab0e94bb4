import { ecvrfProve } from '../../node/crypto/ecvrf.js';
import { readCredential } from '../../node/execution/credential-state.js';
import { UNIT } from '../../node/protocol/amount.js';
import { signAttestation } from '../../node/protocol/committee.js';
import { parseCredentialId } from '../../node/protocol/credential-id.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import type { PayloadOf } from '../../node/protocol/payloads.js';
import { CHAIN, type Chain, tx, type Member } from './chain-harness.js';

/** Credential requests and committee attestations for execution tests. */

export const didOf = (m: Member) => didForPublicKey('testnet', m.ed.publicKey);

let uuid = 0;
/** A KYC level-2 request from `issuer` about `subject`, with a fresh id, at position (0, 0) unless told. */
export function request(issuer: Member, subject: Member, o: Partial<PayloadOf<'CredentialRequest'>> = {}): PayloadOf<'CredentialRequest'> {
  uuid++;
  return {
    kind: 'CredentialRequest',
    credentialId: parseCredentialId(`00000000-0000-4000-8000-${uuid.toString(16).padStart(12, '0')}`),
    credentialType: 'KYCCredential',
    kycLevel: 2,
    subject: didOf(subject),
    issuer: didOf(issuer),
    hash: new Uint8Array(32).fill(uuid & 0xff),
    evidenceDigest: new Uint8Array(32).fill(0xee),
    fee: 5n * UNIT,
    statusList: 0,
    statusIndex: 0,
    ...o,
  };
}

export async function attestation(chain: Chain, who: Member, id: Uint8Array, o: { seed?: Uint8Array; hash?: Uint8Array } = {}) {
  const c = (await readCredential(chain.state, id))!;
  const vrfProof = ecvrfProve(who.ed.seed, o.seed ?? c.seed);
  return tx(who, chain.nonce(who), { kind: 'CredentialAttest', credentialId: id, vrfProof, signature: signAttestation(who.ed.seed, CHAIN, id, o.hash ?? c.hash) });
}
