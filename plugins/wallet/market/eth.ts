import { keccak_256 } from '@noble/hashes/sha3.js';
import { invalid } from '../../../node/errors.js';
import { stringifyJson } from '../../../node/protocol/json.js';
import { MARKET_ERRORS, MarketError, type MarketStatus } from './errors.js';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, fetchJson, hostOf, quote } from './upstream.js';

/**
 * An Ether balance from an Ethereum JSON-RPC node (`eth_getBalance` at `latest`), in wei as a
 * decimal string: wei overflow a JS number long before they overflow a wallet.
 */

export interface EthBalance {
  chain: 'eth';
  address: string;
  assetId: 'eth';
  /** wei, a decimal integer string */
  balance: string;
  decimals: 18;
}

export interface EthAdapterOptions {
  /** the node's JSON-RPC URL (`plugins.wallet.chains.eth`) */
  url: string;
  /** the whole request, body included; default 5000 */
  timeoutMs?: number;
  /** the largest answer read; default 64 KiB */
  maxBytes?: number;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** a JSON-RPC QUANTITY of at most 256 bits */
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;

/**
 * Whether `address` is an Ethereum address: `0x` and 40 hex digits. A mixed-case address carries
 * an EIP-55 checksum, which must then hold (a mistyped letter is caught before anything is asked).
 */
export function isEthAddress(address: string): boolean {
  if (!ADDRESS.test(address)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  const hash = keccak_256(new TextEncoder().encode(hex.toLowerCase()));
  for (let i = 0; i < 40; i++) {
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    const c = hex[i]!;
    if (c >= 'a' && c <= 'f' && nibble >= 8) return false;
    if (c >= 'A' && c <= 'F' && nibble < 8) return false;
  }
  return true;
}

export class EthAdapter {
  readonly chain = 'eth' as const;
  private readonly url: URL;
  private readonly name: string;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(opts: EthAdapterOptions) {
    this.url = new URL(opts.url);
    this.name = `the Ethereum node at ${hostOf(opts.url)}`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  async balance(address: string): Promise<EthBalance> {
    if (typeof address !== 'string' || !isEthAddress(address)) {
      throw invalid('ETH_ADDRESS_INVALID', 'an Ethereum address is 0x and 40 hex digits (a mixed-case one with a valid EIP-55 checksum)', { field: 'address' });
    }
    const fail = (message: string, status: MarketStatus, cause?: unknown) =>
      new MarketError(MARKET_ERRORS.CHAIN_ADAPTER_FAILED, message, status, { upstream: this.url.host }, cause);
    const answer = await fetchJson({
      url: this.url,
      name: this.name,
      timeoutMs: this.timeoutMs,
      maxBytes: this.maxBytes,
      body: stringifyJson({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] }),
      fail,
    });
    return { chain: 'eth', address, assetId: 'eth', balance: this.wei(answer, fail).toString(), decimals: 18 };
  }

  /** The balance in a JSON-RPC 2.0 answer to request id 1, or the error that says why there is none. */
  private wei(answer: unknown, fail: (message: string, status: MarketStatus) => MarketError): bigint {
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw fail(`${this.name} answered something that is not a JSON-RPC response`, 502);
    const res = answer as Record<string, unknown>;
    if (res['error'] !== undefined) {
      const error = res['error'] as { code?: unknown; message?: unknown } | null;
      const code = typeof error?.code === 'number' ? ` ${error.code}` : '';
      const message = typeof error?.message === 'string' ? `: ${quote(error.message)}` : '';
      throw fail(`${this.name} answered eth_getBalance with JSON-RPC error${code}${message}`, 502);
    }
    if (res['jsonrpc'] !== '2.0' || res['id'] !== 1) throw fail(`${this.name} answered something that is not a JSON-RPC 2.0 response to the request`, 502);
    const result = res['result'];
    if (typeof result !== 'string' || !QUANTITY.test(result)) {
      throw fail(`${this.name} answered eth_getBalance with ${typeof result === 'string' ? `"${quote(result).slice(0, 80)}"` : typeof result}, not a hex quantity`, 502);
    }
    return BigInt(result);
  }
}
