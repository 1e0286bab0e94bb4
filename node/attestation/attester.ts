import type { CommittedBlock } from '../chain/app.js';
import { ecvrfProofToHash, ecvrfProve } from '../crypto/ecvrf.js';
import type { EpochValidatorSet } from '../execution/validator-set.js';
import type { Logger } from '../logging.js';
import { addressBytesFromPublicKey, formatAddress } from '../protocol/address.js';
import { bytesEqual } from '../protocol/bytes.js';
import { isSelected, signAttestation } from '../protocol/committee.js';
import { parseCredentialId } from '../protocol/credential-id.js';
import type { CredentialRecord } from '../protocol/credential-records.js';
import type { PayloadOf } from '../protocol/payloads.js';
import { signTransaction, type Transaction } from '../protocol/transaction.js';

/**
 * A validator's side of issuance: after each committed block, for each new credential request,
 * it evaluates its VRF over the request's seed and, when that selects it, sends a CredentialAttest
 * signed with its account key. What it checks before attesting is what the chain can observe (the
 * request is pending, the DIDs were active when it was accepted, the fee is held); the evidence
 * itself stays off chain with the issuer (docs/protocol.md, "Credential issuance").
 */

export interface AttesterDeps {
  chainId: string;
  /** the validator's 32-byte Ed25519 seed: its VRF key and its account key */
  seed: Uint8Array;
  publicKey: Uint8Array;
  credential(id: Uint8Array): Promise<CredentialRecord | undefined>;
  validatorSet(): Promise<EpochValidatorSet | undefined>;
  /** the next nonce to use: committed nonce plus what this sender has pending */
  nextNonce(address: Uint8Array): Promise<bigint>;
  submit(tx: Transaction): Promise<void>;
  log: Logger;
  /** counts each request handled, by outcome */
  count?: (result: 'sent' | 'skipped' | 'failed') => void;
}

/** The attestation this validator owes a request, or why it owes none. */
export function attestationFor(
  c: CredentialRecord,
  set: EpochValidatorSet | undefined,
  self: { seed: Uint8Array; address: Uint8Array },
  chainId: string,
): { payload: PayloadOf<'CredentialAttest'> } | { skip: string } {
  if (c.status !== 'pending') return { skip: `request is ${c.status}` };
  if (c.attestations.some((a) => bytesEqual(a.validator, self.address))) return { skip: 'already attested' };
  const member = set?.validators.find((v) => bytesEqual(v.address, self.address));
  if (!set || !member) return { skip: 'not in the current validator set' };
  const vrfProof = ecvrfProve(self.seed, c.seed);
  const total = set.validators.reduce((n, v) => n + v.weight, 0n);
  if (!isSelected(ecvrfProofToHash(vrfProof), member.weight, total, set.validators.length)) return { skip: 'not selected for this committee' };
  return { payload: { kind: 'CredentialAttest', credentialId: c.id, vrfProof, signature: signAttestation(self.seed, chainId, c.id, c.hash) } };
}

export class Attester {
  private readonly address: Uint8Array;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly d: AttesterDeps) {
    this.address = addressBytesFromPublicKey(d.publicKey);
  }

  /** Attests the requests a committed block accepted; in order, one at a time, so nonces follow each other. */
  onCommitted(c: CommittedBlock): void {
    this.enqueue(c.receipts.flatMap((r) => r.events.flatMap((e) => (e.type === 'CredentialRequested' ? [e.id] : []))));
  }

  /**
   * Attests the requests still pending (`ids`: those whose deadline has not passed) that this
   * validator owes and has not attested on chain. Run at start: attestations queued before a
   * crash lived only in memory (the queue, the mempool), and the blocks that accepted those
   * requests will not be seen again.
   */
  resume(ids: readonly string[]): void {
    this.enqueue(ids);
  }

  private enqueue(ids: readonly string[]): void {
    for (const id of ids) {
      this.queue = this.queue
        .then(() => this.attest(id))
        .catch((err) => {
          this.d.count?.('failed');
          this.d.log.warn({ err, credential: id }, 'could not attest');
        });
    }
  }

  /** Resolves when every attestation queued so far has been handled. */
  idle(): Promise<void> {
    return this.queue;
  }

  private async attest(id: string): Promise<void> {
    const record = await this.d.credential(parseCredentialId(id));
    if (!record) return this.d.count?.('skipped');
    const decision = attestationFor(record, await this.d.validatorSet(), { seed: this.d.seed, address: this.address }, this.d.chainId);
    if ('skip' in decision) {
      this.d.log.debug({ credential: id, reason: decision.skip }, 'no attestation');
      return this.d.count?.('skipped');
    }
    const nonce = await this.d.nextNonce(this.address);
    await this.d.submit(signTransaction(this.d.chainId, { senderPubkey: this.d.publicKey, nonce, payload: decision.payload }, this.d.seed));
    this.d.count?.('sent');
    this.d.log.info({ credential: id, validator: formatAddress(this.address) }, 'attested credential request');
  }
}
