import { invalid, isLedgerError } from '../../../node/errors.js';
import { Memo } from './cache.js';
import { MARKET_ERRORS, MarketError, type MarketStatus } from './errors.js';
import { DEFAULT_TIMEOUT_MS, fetchJson, hostOf, joinUrl } from './upstream.js';
import type { PriceQuote } from './valuation.js';

/**
 * USD prices from a CoinGecko-style API (`plugins.wallet.prices`): a series per asset and range
 * from `/coins/<id>/market_chart`, and the spot price as the last point of the day's series (so
 * one upstream answer serves both). Answers are cached per (asset, range) and concurrent identical
 * requests share one upstream call. With no feed configured every call fails with
 * PRICE_FEED_NOT_CONFIGURED: no price is ever made up.
 */

export type PriceAsset = 'lgr' | 'eth' | 'btc';
export const PRICE_ASSETS: readonly PriceAsset[] = ['lgr', 'eth', 'btc'];
export type PriceRange = '1d' | '7d' | '30d';
export const PRICE_RANGES: readonly PriceRange[] = ['1d', '7d', '30d'];
const DAYS: Record<PriceRange, string> = { '1d': '1', '7d': '7', '30d': '30' };

/** CoinGecko's ids; the operator overrides them with `plugins.wallet.prices.coinIds` */
export const DEFAULT_COIN_IDS: Readonly<Record<PriceAsset, string>> = { lgr: 'ledger-lgr', eth: 'ethereum', btc: 'bitcoin' };
export const DEFAULT_PRICE_CACHE_SECONDS = 60;
/** a 30-day hourly chart with market caps and volumes is about 80 KB */
export const DEFAULT_PRICE_MAX_BYTES = 1024 * 1024;
export const DEFAULT_MAX_POINTS = 1_000;
/** the last millisecond a Date can hold */
const MAX_TIME_MS = 8.64e15;

export interface PricePoint {
  /** ISO 8601 */
  t: string;
  /** USD */
  price: number;
}

export interface PriceSeries {
  assetId: PriceAsset;
  range: PriceRange;
  currency: 'usd';
  /** oldest first */
  points: PricePoint[];
  /** the feed's host */
  source: string;
  /** when the feed was asked, ISO 8601 */
  cachedAt: string;
}

export interface SpotPrice {
  assetId: PriceAsset;
  currency: 'usd';
  price: number;
  /** the time of the price, ISO 8601 */
  at: string;
  source: string;
  cachedAt: string;
}

export interface PriceFeedOptions {
  /** the API base, e.g. https://api.coingecko.com/api/v3; undefined: no feed */
  url: string | undefined;
  /** how long an answer is reused; default 60 */
  cacheSeconds?: number;
  /** asset id -> the feed's coin id, over DEFAULT_COIN_IDS */
  coinIds?: Record<string, string>;
  /** per upstream request, body included; default 5000 */
  timeoutMs?: number;
  /** the largest answer read; default 1 MiB */
  maxBytes?: number;
  /** a longer series is thinned evenly to this many points (first and last kept); default 1000 */
  maxPoints?: number;
  /** wall clock in ms, for the cache and `cachedAt` */
  now?: () => number;
}

export function isPriceAsset(value: string): value is PriceAsset {
  return (PRICE_ASSETS as readonly string[]).includes(value);
}

export function isPriceRange(value: string): value is PriceRange {
  return (PRICE_RANGES as readonly string[]).includes(value);
}

export class PriceFeed {
  private readonly base: string | undefined;
  private readonly name: string;
  private readonly coinIds: Record<PriceAsset, string>;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxPoints: number;
  private readonly now: () => number;
  private readonly cache: Memo<PriceSeries>;

  constructor(opts: PriceFeedOptions) {
    this.base = opts.url;
    this.name = opts.url === undefined ? 'no price feed' : `the price feed at ${hostOf(opts.url)}`;
    this.coinIds = { ...DEFAULT_COIN_IDS };
    for (const asset of PRICE_ASSETS) {
      const id = opts.coinIds?.[asset];
      if (id !== undefined) this.coinIds[asset] = id;
    }
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = opts.maxBytes ?? DEFAULT_PRICE_MAX_BYTES;
    this.maxPoints = Math.max(2, opts.maxPoints ?? DEFAULT_MAX_POINTS);
    this.now = opts.now ?? Date.now;
    this.cache = new Memo({ ttlMs: (opts.cacheSeconds ?? DEFAULT_PRICE_CACHE_SECONDS) * 1000, now: this.now });
  }

  get configured(): boolean {
    return this.base !== undefined;
  }

  /** the feed's host, null without one */
  get source(): string | null {
    return this.base === undefined ? null : hostOf(this.base);
  }

  /** USD prices of `assetId` over `range`, oldest first. */
  series(assetId: string, range: string): Promise<PriceSeries> {
    if (!isPriceAsset(assetId)) return Promise.reject(invalid('PRICE_ASSET_UNSUPPORTED', `no prices for asset ${JSON.stringify(assetId.slice(0, 40))} (supported: ${PRICE_ASSETS.join(', ')})`, { field: 'assetId' }));
    if (!isPriceRange(range)) return Promise.reject(invalid('PRICE_RANGE_INVALID', `range must be one of ${PRICE_RANGES.join(', ')}`, { field: 'range' }));
    const base = this.base;
    if (base === undefined) return Promise.reject(notConfigured());
    return this.cache.get(`${assetId}:${range}`, () => this.fetchSeries(base, assetId, range));
  }

  /** The latest USD price of `assetId`: the last point of its 1d series. */
  async spot(assetId: string): Promise<SpotPrice> {
    const day = await this.series(assetId, '1d');
    const last = day.points.at(-1);
    if (!last) throw new MarketError(MARKET_ERRORS.PRICE_FEED_FAILED, `${this.name} has no price for ${day.assetId} in the last day`, 502, { upstream: day.source });
    return { assetId: day.assetId, currency: 'usd', price: last.price, at: last.t, source: day.source, cachedAt: day.cachedAt };
  }

  /**
   * A quote per asset for valuations: the spot price, or why there is none (no feed, an asset
   * without prices, the feed failing). Never throws for those; only a bug does.
   */
  async quotes(assetIds: readonly string[]): Promise<Record<string, PriceQuote>> {
    const out: Record<string, PriceQuote> = {};
    await Promise.all(
      [...new Set(assetIds)].map(async (assetId) => {
        try {
          const spot = await this.spot(assetId);
          out[assetId] = { available: true, price: spot.price, at: spot.at };
        } catch (err) {
          if (!isLedgerError(err)) throw err;
          out[assetId] = { available: false, reason: err.message };
        }
      }),
    );
    return out;
  }

  private async fetchSeries(base: string, assetId: PriceAsset, range: PriceRange): Promise<PriceSeries> {
    const coin = this.coinIds[assetId];
    const url = joinUrl(base, `/coins/${encodeURIComponent(coin)}/market_chart`, { vs_currency: 'usd', days: DAYS[range] });
    const name = `${this.name} (coin ${JSON.stringify(coin)})`;
    const fail = (message: string, status: MarketStatus, cause?: unknown) => new MarketError(MARKET_ERRORS.PRICE_FEED_FAILED, message, status, { upstream: url.host }, cause);
    const cachedAt = new Date(this.now()).toISOString();
    const answer = await fetchJson({ url, name, timeoutMs: this.timeoutMs, maxBytes: this.maxBytes, fail });
    const prices = (answer as { prices?: unknown } | null)?.prices;
    if (!Array.isArray(prices)) throw fail(`${name} answered without a prices array`, 502);
    const points: Array<{ ms: number; price: number }> = [];
    for (const [i, entry] of prices.entries()) {
      const ms: unknown = Array.isArray(entry) ? entry[0] : undefined;
      const price: unknown = Array.isArray(entry) ? entry[1] : undefined;
      const wellFormed =
        Array.isArray(entry) && entry.length === 2 && typeof ms === 'number' && Number.isInteger(ms) && ms >= 0 && ms <= MAX_TIME_MS && typeof price === 'number' && Number.isFinite(price) && price >= 0;
      if (!wellFormed) throw fail(`${name} answered prices[${i}] that is not [milliseconds, USD price]`, 502);
      points.push({ ms, price });
    }
    points.sort((a, b) => a.ms - b.ms);
    return { assetId, range, currency: 'usd', points: thin(points, this.maxPoints).map((p) => ({ t: new Date(p.ms).toISOString(), price: p.price })), source: url.host, cachedAt };
  }
}

export function notConfigured(): MarketError {
  return new MarketError(MARKET_ERRORS.PRICE_FEED_NOT_CONFIGURED, 'no price feed is configured (plugins.wallet.prices.url)', 503);
}

/** At most `max` (>= 2) points, evenly spread over the series, its first and last kept. */
function thin<T>(points: T[], max: number): T[] {
  if (points.length <= max) return points;
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(points[Math.round((i * (points.length - 1)) / (max - 1))]!);
  return out;
}
