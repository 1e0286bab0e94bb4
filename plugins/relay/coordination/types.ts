import type { MessageRecord } from '../store/types.js';

/**
 * What the relay instances share that is not a record: per-DID rate limits, the replay window,
 * and the live-delivery fan-out. One instance keeps them in memory (memory.ts); several share
 * them through Redis (redis.ts). Nothing here is the only copy of a message: every message is in
 * the record store before anyone is told of it, so a lost notice delays a push, never loses it.
 */

/** how long a (sender, message id) pair is remembered */
export const REPLAY_WINDOW_MS = 10 * 60_000;

export interface RateVerdict {
  allowed: boolean;
  /** seconds until the window resets (for Retry-After), at least 1 */
  retryAfter: number;
  /** envelopes counted in the current window, this one included */
  count: number;
}

/** `rate_limit_per_did_per_min`: a fixed one-minute window per DID. */
export interface RateLimiter {
  /** counts one envelope unless the DID is at its limit */
  hit(did: string, limitPerMin: number): Promise<RateVerdict>;
  /** what the DID has used in the current window, without counting */
  peek(did: string): Promise<{ count: number; retryAfter: number }>;
}

/** Remembers (sender, message id) pairs for a window, so a replayed envelope is refused on any instance. */
export interface ReplayGuard {
  /** true the first time a pair is seen within the window */
  firstSeen(sender: string | null, id: string): Promise<boolean>;
}

/** a message accepted for a mediation, with its body, once it is stored */
export interface Arrival {
  mediationId: string;
  record: MessageRecord;
  body: Uint8Array;
}

/** Tells the live connections of every instance what arrived for their mediation. */
export interface ArrivalBus {
  /** tells this instance's listeners at once, and the other instances' through the backend */
  publish(arrival: Arrival): Promise<void>;
  /** `listener` hears every arrival for the mediation, on whichever instance it was accepted */
  subscribe(mediationId: string, listener: (arrival: Arrival) => void): () => void;
  /** mediations with a listener on this instance */
  readonly listening: number;
}

export interface Coordination {
  /** `in-process` or `redis`, as health reports it */
  readonly backend: string;
  readonly limiter: RateLimiter;
  readonly replay: ReplayGuard;
  readonly arrivals: ArrivalBus;
  /** a round trip to the backend (health); rejects when it is down */
  ping(): Promise<void>;
  close(): Promise<void>;
}
