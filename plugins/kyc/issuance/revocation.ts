import { buildCredentialRevoke } from '../../../node/client/builder.js';
import { LedgerError } from '../../../node/errors.js';
import type { Receipt } from '../../../node/protocol/receipt.js';
import { KeyedSerial } from '../../common/http/router.js';
import { conflict, notFound } from '../../common/http/problems.js';
import type { EventSink, KycBase } from '../services.js';
import type { ServiceKey } from '../../common/chain/service-key.js';
import type { JobStore } from './jobs.js';
import type { TxSender } from '../../common/chain/tx-sender.js';

/**
 * Revocation (issue item 4): the issuer signs a CredentialRevoke, waits for its receipt, marks its
 * stored credential revoked and emits `credential.revoked`. One revocation of a credential at a time.
 */

export interface RevocationResult {
  credentialId: string;
  revoked: true;
  txHash: string;
}

export class Revoker {
  private readonly serial = new KeyedSerial();

  constructor(
    private readonly base: KycBase,
    private readonly key: ServiceKey,
    private readonly tx: TxSender,
    private readonly store: JobStore,
    private readonly events: EventSink,
    private readonly o: { receiptTimeoutMs?: number; pollMs?: number } = {},
  ) {}

  revoke(organizationId: string, credentialId: string, reason: string): Promise<RevocationResult> {
    return this.serial.run(credentialId, async () => {
      const stored = await this.store.credentials.get(credentialId);
      if (!stored || stored.organizationId !== organizationId) throw notFound(`no credential ${credentialId}`);
      if (stored.revoked) throw conflict(`credential ${credentialId} is already revoked`, 'CREDENTIAL_REVOKED');
      const sent = await this.tx.send({ kind: 'CredentialRevoke', ref: credentialId, build: (nonce) => buildCredentialRevoke({ senderPubkey: this.key.publicKey, nonce, credentialId }) });
      const receipt = await this.waitForReceipt(sent.hash);
      if (receipt.status !== 'success') {
        if (/already revoked/.test(receipt.status)) throw conflict(`credential ${credentialId} is already revoked on chain`, 'CREDENTIAL_REVOKED');
        throw new LedgerError('REVOKE_FAILED', `the revocation of ${credentialId} failed on chain: ${receipt.status}`, 'internal', { txHash: sent.hash });
      }
      await this.store.credentials.put(credentialId, { ...stored, revoked: { at: this.base.now(), reason, txHash: sent.hash } });
      await this.events.emit(organizationId, 'credential.revoked', { credentialId, subjectDid: stored.subjectDid, revokedBy: this.key.did, reason, txHash: sent.hash });
      return { credentialId, revoked: true, txHash: sent.hash };
    });
  }

  private async waitForReceipt(hash: string): Promise<Receipt> {
    const deadline = this.base.now() + (this.o.receiptTimeoutMs ?? 60_000);
    for (;;) {
      const receipt = await this.base.chain.receipt(hash);
      if (receipt) return receipt;
      if (this.base.now() > deadline) throw new LedgerError('RECEIPT_TIMEOUT', `the revocation ${hash} was not included in time; it may still be`, 'internal', { txHash: hash });
      await new Promise((resolve) => setTimeout(resolve, this.o.pollMs ?? 100));
    }
  }
}
