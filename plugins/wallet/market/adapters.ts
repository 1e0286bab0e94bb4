import { isLedgerError } from '../../../node/errors.js';
import { BtcAdapter, type BtcBalance } from './btc.js';
import { Memo } from './cache.js';
import { EthAdapter, type EthBalance } from './eth.js';

/**
 * The other chains' balances, through the adapters configured by URL under
 * `plugins.wallet.chains`. A chain without an adapter, or whose adapter fails, is answered as
 * unavailable with the reason: never as a zero or made-up balance.
 */

export type ExternalChain = 'eth' | 'btc';
export const EXTERNAL_CHAINS: readonly ExternalChain[] = ['eth', 'btc'];

export type ChainBalance = EthBalance | BtcBalance;

export type BalanceAnswer = ({ available: true } & ChainBalance) | { available: false; chain: string; address: string; reason: string };

export interface ChainAdaptersOptions {
  /** per upstream request, body included; default 5000 */
  timeoutMs?: number;
  /** the largest upstream answer read; default 64 KiB */
  maxBytes?: number;
  /** how long a balance is reused; default 15 s */
  cacheMs?: number;
  /** wall clock in ms, for the cache */
  now?: () => number;
}

export const DEFAULT_BALANCE_CACHE_MS = 15_000;

export function isExternalChain(chain: string): chain is ExternalChain {
  return (EXTERNAL_CHAINS as readonly string[]).includes(chain);
}

interface Adapter {
  balance(address: string): Promise<ChainBalance>;
}

export class ChainAdapters {
  private readonly adapters: Partial<Record<ExternalChain, Adapter>> = {};
  private readonly cache: Memo<ChainBalance>;

  constructor(chains: { eth?: string | undefined; btc?: string | undefined }, opts: ChainAdaptersOptions = {}) {
    const upstream = { ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }), ...(opts.maxBytes === undefined ? {} : { maxBytes: opts.maxBytes }) };
    if (chains.eth !== undefined) this.adapters.eth = new EthAdapter({ url: chains.eth, ...upstream });
    if (chains.btc !== undefined) this.adapters.btc = new BtcAdapter({ url: chains.btc, ...upstream });
    this.cache = new Memo({ ttlMs: opts.cacheMs ?? DEFAULT_BALANCE_CACHE_MS, ...(opts.now ? { now: opts.now } : {}) });
  }

  /** whether `chain` has an adapter configured */
  configured(chain: string): boolean {
    return isExternalChain(chain) && this.adapters[chain] !== undefined;
  }

  /**
   * The balance of `address` on `chain`, or why there is none: no adapter, an address the chain
   * does not accept, or the upstream failing (the typed error's message). Only a bug throws.
   */
  async balanceOf(chain: string, address: string): Promise<BalanceAnswer> {
    const unavailable = (reason: string): BalanceAnswer => ({ available: false, chain, address, reason });
    if (!isExternalChain(chain)) return unavailable(`no balances for chain ${JSON.stringify(chain.slice(0, 40))} (supported: ${EXTERNAL_CHAINS.join(', ')})`);
    const adapter = this.adapters[chain];
    if (!adapter) return unavailable(`no adapter configured for ${chain} (plugins.wallet.chains.${chain})`);
    try {
      const balance = await this.cache.get(`${chain}\u0000${address}`, () => adapter.balance(address));
      return { available: true, ...balance };
    } catch (err) {
      // a MarketError (upstream) or an invalid address: both are facts about this balance, not bugs
      if (isLedgerError(err)) return unavailable(err.message);
      throw err;
    }
  }
}
