/**
 * USD values of balances, given spot prices: pure arithmetic, no I/O. A balance without a price
 * (no feed, the feed failing, an asset the feed does not know) or a price without a balance is
 * valued `usd: null` with the reason in `usdUnavailable`; a value is never guessed. Values are
 * rounded to the cent.
 */

/** A spot price for valuation, or why there is none (PriceFeed.quotes answers these). */
export type PriceQuote = { available: true; price: number; at?: string } | { available: false; reason: string };

export interface UsdValue {
  usd: number | null;
  /** why `usd` is null */
  usdUnavailable?: string;
}

/** Anything with an asset and a balance in smallest units: a ledger balance, a BalanceAnswer. */
export interface Valuable {
  assetId?: string;
  /** smallest units, a decimal integer string (or a bigint); absent when the balance is unavailable */
  balance?: string | bigint;
  decimals?: number;
  /** a BalanceAnswer's flag: false means there is no balance to value */
  available?: boolean;
}

const INTEGER = /^-?\d{1,100}$/;
const MAX_DECIMALS = 36;

/** The USD value of `balance` smallest units at `decimals`, at `quote`. */
export function usdValue(balance: string | bigint, decimals: number, quote: PriceQuote | undefined, assetId = 'this asset'): UsdValue {
  if (!quote) return { usd: null, usdUnavailable: `no price for ${assetId}` };
  if (!quote.available) return { usd: null, usdUnavailable: quote.reason };
  if (!Number.isFinite(quote.price) || quote.price < 0) return { usd: null, usdUnavailable: `the price of ${assetId} is not a usable number` };
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) return { usd: null, usdUnavailable: `the decimals of ${assetId} are not a whole number from 0 to ${MAX_DECIMALS}` };
  if (typeof balance === 'string' && !INTEGER.test(balance)) return { usd: null, usdUnavailable: `the balance of ${assetId} is not a whole number of smallest units` };
  const units = BigInt(balance);
  const scale = 10n ** BigInt(decimals);
  // whole units and the fraction apart: a bigint balance converted whole would lose its low digits
  const usd = Number(units / scale) * quote.price + (Number(units % scale) / Number(scale)) * quote.price;
  if (!Number.isFinite(usd)) return { usd: null, usdUnavailable: `the value of ${assetId} is too large to express` };
  return { usd: cents(usd) };
}

/** Each holding with its USD value, from `quotes` by asset id. */
export function valueHoldings<T extends Valuable>(holdings: readonly T[], quotes: Readonly<Record<string, PriceQuote>>): Array<T & UsdValue> {
  return holdings.map((h) => {
    if (h.available === false || h.balance === undefined || h.decimals === undefined) {
      return { ...h, usd: null, usdUnavailable: h.assetId === undefined ? 'the balance is unavailable' : `the ${h.assetId} balance is unavailable` };
    }
    const quote = h.assetId !== undefined && Object.hasOwn(quotes, h.assetId) ? quotes[h.assetId] : undefined;
    return { ...h, ...usdValue(h.balance, h.decimals, quote, h.assetId) };
  });
}

/**
 * The sum of the values there are. `complete` is false when some value is missing: the sum is then
 * a lower bound, and null when nothing at all could be valued.
 */
export function totalUsd(values: readonly UsdValue[]): { usd: number | null; complete: boolean; unvalued: number } {
  const known = values.filter((v) => v.usd !== null).map((v) => v.usd as number);
  const unvalued = values.length - known.length;
  if (values.length > 0 && known.length === 0) return { usd: null, complete: false, unvalued };
  return { usd: cents(known.reduce((a, b) => a + b, 0)), complete: unvalued === 0, unvalued };
}

function cents(usd: number): number {
  return Math.round(usd * 100) / 100;
}
