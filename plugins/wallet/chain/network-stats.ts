import { formatAddress } from '../../../node/protocol/address.js';
import { feeFor } from '../../../node/protocol/fees.js';
import type { WalletBase } from '../services.js';

/**
 * `GET /v1/staking/network-stats` (docs/wallet.md, "Staking"). The chain mints no staking reward:
 * what active validators earn is the transaction fees of the blocks they propose (docs/protocol.md,
 * "Where fees go"). So `apy.value` is the network's fee yield, computed from committed blocks:
 *
 *   the fees of the transactions in the last APY_WINDOW blocks, annualised over the time those
 *   blocks span (simple, no compounding), divided by the stake of the active validators; a percent.
 *
 * It is an average over the active set: a stake outside the set earns nothing, and credential
 * issuance fees (paid to attesting validators) are not counted. When it cannot be computed (no
 * active stake, or fewer than two blocks in the window) the value is a placeholder 0 with
 * `sample: true`.
 */

export const APY_WINDOW = 256;
const YEAR_MS = 365.25 * 24 * 3600 * 1000;
/** enough digits for a percent from a few units of fees over a large stake */
const SCALE = 10n ** 18n;

export interface NetworkStats {
  /** smallest units, decimal: every validator record's stake, active or not */
  totalStaked: string;
  activeValidators: number;
  apy: { value: number; sample: boolean; basis: 'fees'; windowBlocks: number };
  validators: Array<{ address: string; staked: string; reputation: number; active: boolean }>;
}

interface BlockSummary {
  timestampMs: number;
  fees: bigint;
}

export class NetworkStatsService {
  private cached: { at: number; value: NetworkStats } | undefined;
  private pending: Promise<NetworkStats> | undefined;
  /** committed blocks never change: each height is read once while it is in the window */
  private readonly blocks = new Map<number, BlockSummary>();

  constructor(
    private readonly base: Pick<WalletBase, 'chain' | 'now'>,
    private readonly ttlMs = 2_000,
  ) {}

  async get(): Promise<NetworkStats> {
    if (this.cached && this.base.now() - this.cached.at < this.ttlMs) return this.cached.value;
    // concurrent requests share one computation
    this.pending ??= this.compute().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async compute(): Promise<NetworkStats> {
    const records = await this.base.chain.validators();
    let total = 0n;
    let activeStake = 0n;
    let active = 0;
    const validators = records.map(({ address, validator: v }) => {
      total += v.staked;
      if (v.active) {
        active++;
        activeStake += v.staked;
      }
      return { address: formatAddress(address), staked: v.staked.toString(), reputation: v.reputation, active: v.active };
    });
    const value: NetworkStats = { totalStaked: total.toString(), activeValidators: active, apy: await this.feeYield(activeStake), validators };
    this.cached = { at: this.base.now(), value };
    return value;
  }

  private async feeYield(activeStake: bigint): Promise<NetworkStats['apy']> {
    const head = this.base.chain.head();
    const placeholder = { value: 0, sample: true, basis: 'fees' as const, windowBlocks: 0 };
    if (!head || activeStake === 0n) return placeholder;
    // genesis is left out: its time is when the chain was configured, not when blocks began
    const first = Math.max(1, head.height - APY_WINDOW + 1);
    for (const h of this.blocks.keys()) if (h < first) this.blocks.delete(h);
    const window: BlockSummary[] = [];
    for (let h = first; h <= head.height; h++) {
      const s = await this.summary(h);
      if (s) window.push(s);
    }
    if (window.length < 2) return placeholder;
    const span = window[window.length - 1]!.timestampMs - window[0]!.timestampMs;
    if (span <= 0) return placeholder;
    // the first block's fees were earned before the span began
    const fees = window.slice(1).reduce((n, s) => n + s.fees, 0n);
    const perStake = Number((fees * SCALE) / activeStake) / Number(SCALE);
    const percent = perStake * (YEAR_MS / span) * 100;
    return { value: Number(percent.toPrecision(6)), sample: false, basis: 'fees', windowBlocks: window.length };
  }

  private async summary(height: number): Promise<BlockSummary | undefined> {
    const hit = this.blocks.get(height);
    if (hit) return hit;
    const block = await this.base.chain.blockByHeight(height);
    if (!block) return undefined;
    const s = { timestampMs: block.header.timestampMs, fees: block.transactions.reduce((n, tx) => n + feeFor(tx.payload.kind), 0n) };
    this.blocks.set(height, s);
    return s;
  }
}
