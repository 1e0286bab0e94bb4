import { invalid } from '../../../node/errors.js';
import { parseAddress } from '../../../node/protocol/address.js';
import { parseDid } from '../../../node/protocol/did.js';
import type { Window } from '../store/types.js';

/**
 * Query and path parameters of the explorer's routes. Lists are `{data, total, page, limit}`;
 * `page` defaults to 1 and `limit` to 20 (at most 100). A bad value is a 400 Problem.
 */

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;
export const MAX_TIME = 9_999_999_999_999_999;

export interface Paging extends Window {
  page: number;
}

function positiveInt(text: string | null, name: string, max: number, fallback: number): number {
  if (text === null) return fallback;
  if (!/^\d{1,7}$/.test(text) || Number(text) < 1 || Number(text) > max) throw invalid('BAD_QUERY', `${name} must be an integer from 1 to ${max}, got ${JSON.stringify(text.slice(0, 32))}`);
  return Number(text);
}

export function paging(query: URLSearchParams): Paging {
  const page = positiveInt(query.get('page'), 'page', MAX_PAGE, 1);
  const limit = positiveInt(query.get('limit'), 'limit', MAX_LIMIT, DEFAULT_LIMIT);
  return { page, limit, offset: (page - 1) * limit };
}

/** Unix ms; undefined when absent. */
export function timeParam(text: string | null, name: string): number | undefined {
  if (text === null) return undefined;
  if (!/^\d{1,16}$/.test(text)) throw invalid('BAD_QUERY', `${name} must be Unix milliseconds (an integer), got ${JSON.stringify(text.slice(0, 32))}`);
  return Number(text);
}

export function addressParam(text: string): string {
  try {
    parseAddress(text);
    return text;
  } catch {
    throw invalid('BAD_ADDRESS', `not a base58 address of 20 bytes: ${JSON.stringify(text.slice(0, 64))}`);
  }
}

export function didParam(text: string, network: string): string {
  try {
    const parsed = parseDid(text);
    if (parsed.network !== network) throw new Error(`this chain's DIDs are did:ledger:${network}:…`);
    return parsed.did;
  } catch (err) {
    throw invalid('BAD_DID', (err as Error).message);
  }
}
