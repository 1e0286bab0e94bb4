import { buildDidCreate } from '../../../node/client/builder.js';
import { formatTokens } from '../../../node/protocol/amount.js';
import { FEES } from '../../../node/protocol/fees.js';
import type { KycBase } from '../services.js';
import type { ServiceKey } from '../../common/chain/service-key.js';
import type { TxSender } from '../../common/chain/tx-sender.js';

/**
 * The issuer DID on chain: on start, and every few seconds until it is there, the plugin creates
 * `did:ledger:<network>:<address>` with a DidCreate from its own account. Without funds it cannot,
 * so it says so once in the log, plainly, and health reports `funded: false` until someone pays.
 */

export interface IssuerStatus {
  did: string;
  address: string;
  /** the account balance in tokens */
  balance: string;
  didActive: boolean;
  funded: boolean;
  pendingJobs: number;
  lastError?: string;
}

export class IssuerDid {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private active = false;
  private pendingHash: string | undefined;
  private warnedNoFunds = false;
  private lastError: string | undefined;
  private busy: Promise<void> | undefined;

  constructor(
    private readonly base: KycBase,
    private readonly key: ServiceKey,
    private readonly tx: TxSender,
    private readonly pendingJobs: () => Promise<number>,
    private readonly retryMs = 3000,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.tick();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.busy;
  }

  isActive(): boolean {
    return this.active;
  }

  private tick(): void {
    this.busy = this.ensure()
      .then(() => undefined)
      .catch((err: unknown) => {
        this.lastError = err instanceof Error ? err.message : String(err);
        this.base.log.warn({ err, did: this.key.did }, 'the KYC issuer DID could not be created yet; retrying');
      })
      .finally(() => {
        if (this.running && !this.active) this.timer = setTimeout(() => this.tick(), this.retryMs);
      });
  }

  /** One step towards an active DID; true once it is active. */
  async ensure(): Promise<boolean> {
    const record = await this.base.chain.did(this.key.identifier);
    if (record?.active) {
      if (!this.active) this.base.log.info({ did: this.key.did }, 'the KYC issuer DID is active');
      this.active = true;
      this.lastError = undefined;
      return true;
    }
    if (record) {
      this.lastError = `the issuer DID ${this.key.did} is deactivated; this key can no longer issue credentials`;
      this.base.log.error({ did: this.key.did }, this.lastError);
      this.running = false;
      return false;
    }
    if (this.pendingHash) {
      const receipt = await this.base.chain.receipt(this.pendingHash);
      if (!receipt) return false;
      this.pendingHash = undefined;
      if (receipt.status !== 'success') this.lastError = `DidCreate ${receipt.tx_hash} failed: ${receipt.status}`;
      return false;
    }
    const account = await this.base.chain.account(this.key.identifier);
    if (account.balance < (FEES.DidCreate ?? 0n)) {
      this.lastError = 'no funds';
      if (!this.warnedNoFunds) {
        this.warnedNoFunds = true;
        this.base.log.warn(
          { did: this.key.did, address: this.key.address },
          `the KYC issuer ${this.key.address} has no funds; send it tokens (ledger tx transfer --to ${this.key.address} --amount <tokens>) so it can create its DID and pay credential fees`,
        );
      }
      return false;
    }
    const sent = await this.tx.send({ kind: 'DidCreate', ref: this.key.did, build: (nonce) => buildDidCreate({ senderPubkey: this.key.publicKey, nonce }) });
    this.pendingHash = sent.hash;
    this.base.log.info({ did: this.key.did, txHash: sent.hash }, 'the KYC issuer DID is being created');
    return false;
  }

  async status(): Promise<IssuerStatus> {
    const [account, record, pendingJobs] = await Promise.all([this.base.chain.account(this.key.identifier), this.base.chain.did(this.key.identifier), this.pendingJobs()]);
    const status: IssuerStatus = {
      did: this.key.did,
      address: this.key.address,
      balance: formatTokens(account.balance),
      didActive: record?.active ?? false,
      funded: account.balance > 0n,
      pendingJobs,
    };
    if (this.lastError) status.lastError = this.lastError;
    return status;
  }
}
