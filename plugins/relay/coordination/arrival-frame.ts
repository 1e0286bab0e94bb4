import type { MessageRecord } from '../store/types.js';
import type { Arrival } from './types.js';

/**
 * An arrival as one pub/sub message: a 4-byte big-endian length, a JSON header (the instance that
 * accepted it, the mediation and the record), then the body's bytes as they are. The body rides
 * along so the receiving instance pushes without a read from the record store.
 */

export function encodeArrival(origin: string, arrival: Arrival): Buffer {
  const header = Buffer.from(JSON.stringify({ o: origin, m: arrival.mediationId, r: arrival.record }), 'utf8');
  const out = Buffer.allocUnsafe(4 + header.length + arrival.body.length);
  out.writeUInt32BE(header.length, 0);
  header.copy(out, 4);
  out.set(arrival.body, 4 + header.length);
  return out;
}

/** the arrival and who sent it, or undefined for a frame that is not one (it is dropped) */
export function decodeArrival(frame: Buffer): { origin: string; arrival: Arrival } | undefined {
  if (frame.length < 4) return undefined;
  const n = frame.readUInt32BE(0);
  if (4 + n > frame.length) return undefined;
  try {
    const h = JSON.parse(frame.subarray(4, 4 + n).toString('utf8')) as { o?: unknown; m?: unknown; r?: unknown };
    if (typeof h.o !== 'string' || typeof h.m !== 'string' || typeof h.r !== 'object' || h.r === null) return undefined;
    const body = new Uint8Array(frame.length - 4 - n);
    body.set(frame.subarray(4 + n));
    return { origin: h.o, arrival: { mediationId: h.m, record: h.r as MessageRecord, body } };
  } catch {
    return undefined;
  }
}
