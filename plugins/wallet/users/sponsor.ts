import { buildTransfer } from '../../../node/client/builder.js';
import { parseAddress } from '../../../node/protocol/address.js';
import { feeFor } from '../../../node/protocol/fees.js';
import { loadServiceKey, serviceKeyRow, type ServiceKey, type ServiceKeySource } from '../../common/chain/service-key.js';
import { TxSender } from '../../common/chain/tx-sender.js';
import { KeyedSerial } from '../../common/http/router.js';
import { key, timeKey, type Table } from '../../common/store/tables.js';
import type { WalletBase } from '../services.js';

/**
 * The sponsor: the plugin's own service key (table `sponsor-key`; on first start the account
 * `ledger init` funded for the wallet, else a new key), which pays a fresh wallet's account
 * `sponsor.fundAmount` units with a Transfer so it can pay its DidCreate fee. It is value-only:
 * it signs Transfers and nothing else, and it has no DID. Its allowance:
 *   - one funding per address, ever (table `sponsor-fundings`, by address);
 *   - at most `sponsor.perHour` fundings in any rolling hour, counted across restarts
 *     (table `sponsor-fundings-by-time`); 0 turns sponsoring off;
 *   - never more than its committed balance can pay.
 * A refusal is an answer (`{ok: false, reason}`), not an error: the onboarding shows it.
 */

export const SPONSOR_KEY_TABLE = 'sponsor-key';
/** the sponsor's seed, sealed under the node's service-key secret (plugins/common/secrets) */
export const SPONSOR_SEED_ROW = serviceKeyRow(SPONSOR_KEY_TABLE, "the wallet sponsor's Ed25519 seed");
export const SPONSOR_TX_TABLE = 'sponsor-txs';
export const SPONSOR_SIGNER = 'the wallet sponsor';
const HOUR_MS = 3_600_000;

export interface Funding {
  address: string;
  amount: string;
  hash: string;
  at: number;
}

export type FundResult = { ok: true; funding: Funding } | { ok: false; reason: string; code: 'ALREADY_FUNDED' | 'HOURLY_LIMIT' | 'SPONSOR_OFF' | 'SPONSOR_NO_FUNDS' | 'SPONSOR_REFUSED' };

export interface SponsorStatus {
  address: string;
  balance: string;
  fundAmount: string;
  perHour: number;
  fundedLastHour: number;
}

export class Sponsor {
  private readonly fundings: Table<Funding>;
  private readonly byTime: Table<string>;
  private readonly serial = new KeyedSerial();

  constructor(
    private readonly base: WalletBase,
    readonly key: ServiceKey,
    private readonly tx: TxSender,
  ) {
    this.fundings = base.db.json<Funding>('sponsor-fundings');
    this.byTime = base.db.json<string>('sponsor-fundings-by-time');
  }

  /** Loads (or on first start adopts or makes) the sponsor key; `keys` is the plugin's context. */
  static async create(base: WalletBase, keys: ServiceKeySource): Promise<Sponsor> {
    const k = await loadServiceKey(base.db, SPONSOR_SEED_ROW, base.network, keys, base.now);
    return new Sponsor(base, k, new TxSender({ ...base, table: SPONSOR_TX_TABLE, signer: SPONSOR_SIGNER }, k));
  }

  get address(): string {
    return this.key.address;
  }

  /** On start: the funding Transfers signed before a restart that the chain has not seen, again. */
  resubmitPending(): Promise<number> {
    return this.tx.resubmitPending();
  }

  /** The funding of `address`, if the sponsor ever sent it one. */
  fundingOf(address: string): Promise<Funding | undefined> {
    return this.fundings.get(address);
  }

  /** Sends `address` the funding amount, within the allowance; `ref` names what it is for in the log. */
  fund(address: string, ref: string): Promise<FundResult> {
    return this.serial.run('fund', async () => {
      const { fundAmount, perHour } = this.base.config.sponsor;
      const before = await this.fundings.get(address);
      if (before) return { ok: false, code: 'ALREADY_FUNDED', reason: `the sponsor already funded ${address} once (transaction ${before.hash}); it funds an account once only` };
      if (perHour === 0) return { ok: false, code: 'SPONSOR_OFF', reason: 'sponsoring is turned off (plugins.wallet.sponsor.perHour is 0)' };
      const now = this.base.now();
      if ((await this.countSince(now - HOUR_MS)) >= perHour) return { ok: false, code: 'HOURLY_LIMIT', reason: `the sponsor's allowance of ${perHour} fundings an hour is used up; it tries again later` };
      const cost = fundAmount + feeFor('Transfer');
      const { balance } = await this.base.chain.account(this.key.identifier);
      if (balance < cost) return { ok: false, code: 'SPONSOR_NO_FUNDS', reason: `the sponsor ${this.key.address} cannot pay ${cost} units (its balance is ${balance})` };
      const to = parseAddress(address);
      let funding: Funding | undefined;
      try {
        await this.tx.send({
          kind: 'Transfer',
          ref,
          build: (nonce) => buildTransfer({ senderPubkey: this.key.publicKey, nonce, to, amount: fundAmount }),
          record: (batch, sent) => {
            funding = { address, amount: fundAmount.toString(), hash: sent.hash, at: now };
            batch.put(this.fundings, address, funding).put(this.byTime, key(timeKey(now), address), address);
          },
        });
      } catch (err) {
        // the transaction was refused: forget the funding written with it, so the address may be funded later
        if (funding) await this.base.db.batch().del(this.fundings, address).del(this.byTime, key(timeKey(now), address)).write();
        this.base.log.warn({ err, address, ref }, `${SPONSOR_SIGNER} could not send its funding Transfer`);
        return { ok: false, code: 'SPONSOR_REFUSED', reason: `the funding transfer was refused: ${(err as Error).message}` };
      }
      this.base.log.info({ address, ref, hash: funding!.hash, amount: fundAmount.toString() }, `${SPONSOR_SIGNER} funded a new account`);
      return { ok: true, funding: funding! };
    });
  }

  async status(): Promise<SponsorStatus> {
    const { balance } = await this.base.chain.account(this.key.identifier);
    return {
      address: this.key.address,
      balance: balance.toString(),
      fundAmount: this.base.config.sponsor.fundAmount.toString(),
      perHour: this.base.config.sponsor.perHour,
      fundedLastHour: await this.countSince(this.base.now() - HOUR_MS),
    };
  }

  private async countSince(since: number): Promise<number> {
    let n = 0;
    for await (const _ of this.byTime.keys({ gt: timeKey(since) })) n++;
    return n;
  }
}
