import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { invalid } from '../../../node/errors.js';
import { MARKET_ERRORS, MarketError, type MarketStatus } from './errors.js';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, fetchJson, hostOf, joinUrl } from './upstream.js';

/**
 * A Bitcoin balance from an Esplora API (`GET <url>/address/<address>`), in satoshis as decimal
 * strings: `balance` is what the chain has confirmed (funded minus spent outputs), `pending` what
 * the mempool adds or takes away (negative while a spend waits).
 */

export interface BtcBalance {
  chain: 'btc';
  address: string;
  assetId: 'btc';
  /** confirmed satoshis, a decimal integer string */
  balance: string;
  /** the unconfirmed change in satoshis, a decimal integer string, may be negative */
  pending: string;
  decimals: 8;
}

export interface BtcAdapterOptions {
  /** the Esplora API base (`plugins.wallet.chains.btc`), e.g. https://blockstream.info/api */
  url: string;
  /** the whole request, body included; default 5000 */
  timeoutMs?: number;
  /** the largest answer read; default 64 KiB */
  maxBytes?: number;
}

const base58check = createBase58check(sha256);
/** P2PKH and P2SH version bytes: mainnet (1..., 3...), testnet and regtest (m/n..., 2...) */
const BASE58_VERSIONS = new Set([0x00, 0x05, 0x6f, 0xc4]);
const BECH32_PREFIXES = new Set(['bc', 'tb', 'bcrt']);

/**
 * Whether `address` is a Bitcoin address of mainnet, testnet or regtest: base58check P2PKH/P2SH
 * with its checksum, or a segwit address (BIP 173 bech32 for version 0, BIP 350 bech32m above).
 * Which network the Esplora API serves is its business: it refuses the others' addresses.
 */
export function isBtcAddress(address: string): boolean {
  if (typeof address !== 'string' || address.length < 14 || address.length > 90) return false;
  return /^[123mn]/.test(address) ? isBase58Address(address) : isSegwitAddress(address);
}

function isBase58Address(address: string): boolean {
  if (address.length > 35) return false;
  try {
    const bytes = base58check.decode(address);
    return bytes.length === 21 && BASE58_VERSIONS.has(bytes[0]!);
  } catch {
    return false;
  }
}

function isSegwitAddress(address: string): boolean {
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) return false;
  const prefix = lower.slice(0, lower.lastIndexOf('1'));
  if (!BECH32_PREFIXES.has(prefix)) return false;
  for (const coder of [bech32, bech32m]) {
    const decoded = coder.decodeUnsafe(lower);
    if (!decoded || decoded.words.length === 0) continue;
    const version = decoded.words[0]!;
    const program = coder.fromWordsUnsafe(decoded.words.slice(1));
    if (!program || version > 16) return false;
    // version 0 must use bech32 and a 20- or 32-byte program; later versions bech32m (BIP 350)
    if (version === 0) return coder === bech32 && (program.length === 20 || program.length === 32);
    return coder === bech32m && program.length >= 2 && program.length <= 40;
  }
  return false;
}

export class BtcAdapter {
  readonly chain = 'btc' as const;
  private readonly base: string;
  private readonly name: string;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(opts: BtcAdapterOptions) {
    this.base = opts.url;
    this.name = `the Esplora API at ${hostOf(opts.url)}`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  async balance(address: string): Promise<BtcBalance> {
    if (!isBtcAddress(address)) {
      throw invalid('BTC_ADDRESS_INVALID', 'a Bitcoin address is a base58check P2PKH/P2SH address or a bech32/bech32m segwit address with a valid checksum', { field: 'address' });
    }
    const url = joinUrl(this.base, `/address/${encodeURIComponent(address)}`);
    const fail = (message: string, status: MarketStatus, cause?: unknown) =>
      new MarketError(MARKET_ERRORS.CHAIN_ADAPTER_FAILED, message, status, { upstream: url.host }, cause);
    const answer = await fetchJson({ url, name: this.name, timeoutMs: this.timeoutMs, maxBytes: this.maxBytes, fail });
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw fail(`${this.name} answered something that is not an address object`, 502);
    const stats = answer as Record<string, unknown>;
    const confirmed = this.net(stats, 'chain_stats', fail);
    if (confirmed < 0n) throw fail(`${this.name} answered chain_stats that spend more than they fund`, 502);
    const pending = this.net(stats, 'mempool_stats', fail);
    return { chain: 'btc', address, assetId: 'btc', balance: confirmed.toString(), pending: pending.toString(), decimals: 8 };
  }

  /** funded_txo_sum - spent_txo_sum of one of the answer's stats objects, each a whole number of satoshis */
  private net(answer: Record<string, unknown>, key: 'chain_stats' | 'mempool_stats', fail: (message: string, status: MarketStatus) => MarketError): bigint {
    const stats = answer[key];
    if (typeof stats !== 'object' || stats === null || Array.isArray(stats)) throw fail(`${this.name} answered without ${key}`, 502);
    const sum = (field: 'funded_txo_sum' | 'spent_txo_sum'): bigint => {
      const value = (stats as Record<string, unknown>)[field];
      // parseJson keeps an integer beyond 2^53 as a bigint, so nothing is rounded
      if (typeof value === 'bigint' && value >= 0n) return value;
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
      throw fail(`${this.name} answered ${key}.${field} that is not a whole number of satoshis`, 502);
    };
    return sum('funded_txo_sum') - sum('spent_txo_sum');
  }
}
