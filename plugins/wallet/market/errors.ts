import { LedgerError } from '../../../node/errors.js';

/**
 * The market data's typed errors: an upstream (Ethereum node, Esplora, price feed) that is not
 * configured, down, or answering nonsense.
 *
 * No LedgerError kind maps to 502, so every market error has kind `disabled` (503 through the
 * common problems map, never a 500 that hides the message) and carries the status it asks for in
 * `status` and `data.status`: 503 when the upstream is not configured, unreachable, slow or
 * overloaded (try again later), 502 when it answered something unusable. A route that wants the
 * exact status reads `marketFailure(err)`.
 */
export const MARKET_ERRORS = {
  /** no price feed URL (`plugins.wallet.prices.url`) */
  PRICE_FEED_NOT_CONFIGURED: 'PRICE_FEED_NOT_CONFIGURED',
  /** the price feed failed or answered something unusable; the message says which */
  PRICE_FEED_FAILED: 'PRICE_FEED_FAILED',
  /** an Ethereum node or Esplora API failed or answered something unusable; the message says which */
  CHAIN_ADAPTER_FAILED: 'CHAIN_ADAPTER_FAILED',
} as const;

export type MarketErrorCode = (typeof MARKET_ERRORS)[keyof typeof MARKET_ERRORS];

/** 502: the upstream answered, unusably; 503: no answer to be had now (or no upstream at all) */
export type MarketStatus = 502 | 503;

export interface MarketErrorData extends Record<string, unknown> {
  status: MarketStatus;
  /** the upstream's host, never its full URL (an API key may sit in the path or query) */
  upstream?: string;
}

export class MarketError extends LedgerError<MarketErrorData> {
  override readonly name: string = 'MarketError';
  constructor(
    code: MarketErrorCode,
    message: string,
    readonly status: MarketStatus,
    data: Omit<MarketErrorData, 'status'> = {},
    cause?: unknown,
  ) {
    super(code, message, 'disabled', { ...data, status });
    // the low-level cause (ECONNREFUSED, a parse error) is for the log, not for the caller
    if (cause !== undefined) this.cause = cause;
  }
}

export function isMarketError(err: unknown): err is MarketError {
  return err instanceof MarketError;
}

/**
 * What a route should answer when a market module threw: the Problem slug of
 * plugins/common/http/problems.ts, the status, the detail and the code; undefined for anything
 * else (rethrow it then).
 */
export function marketFailure(err: unknown): { slug: 'not-configured' | 'unavailable' | 'bad-gateway'; status: MarketStatus; detail: string; code: string } | undefined {
  if (!isMarketError(err)) return undefined;
  const slug = err.code === MARKET_ERRORS.PRICE_FEED_NOT_CONFIGURED ? 'not-configured' : err.status === 502 ? 'bad-gateway' : 'unavailable';
  return { slug, status: err.status, detail: err.message, code: err.code };
}
