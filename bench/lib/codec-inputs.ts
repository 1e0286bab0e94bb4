/**
 * The large inputs of bench/codec, shared with the tests that check the same inputs decode
 * correctly (test/protocol/json, test/rpc/server, test/network/framing).
 */
import { encodeFrame } from '../../node/network/framing.js';

export interface JsonRecord {
  id: number;
  amount: bigint;
  hash: string;
  note: string;
  ok: boolean;
}

/** Records of about 100 bytes each, bigint amounts above 2^53 and escaped strings, `bytes` of JSON or a little more. */
export function jsonRecords(bytes: number): JsonRecord[] {
  const items: JsonRecord[] = [];
  for (let i = 0; items.length * 100 < bytes; i++) {
    items.push({ id: i, amount: 2n ** 60n + BigInt(i), hash: i.toString(16).padStart(64, '0'), note: 'esc\\aped "text"', ok: i % 2 === 0 });
  }
  return items;
}

/** `count` integer literals above 2^64, as a JSON-RPC request to `method` would carry them. */
export function bigIntegerRequest(method: string, count: number): string {
  const nums = Array.from({ length: count }, (_, i) => `${2n ** 64n + BigInt(i)}`);
  return `{"jsonrpc":"2.0","method":"${method}","params":[${nums.join(',')}],"id":1}`;
}

/** One frame of `bytes` bytes of 3s, encoded. */
export function bigFrame(bytes: number): Uint8Array {
  return encodeFrame(new Uint8Array(bytes).fill(3));
}

/** The frame split as a stream delivers it, in chunks of `size`. */
export function chunked(stream: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < stream.length; i += size) out.push(stream.subarray(i, i + size));
  return out;
}
