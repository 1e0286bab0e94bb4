import { invalid } from '../../../node/errors.js';
import { MESSAGE_PROTOCOLS, MESSAGE_STATES, type MessageFilter, type NewMessage } from './types.js';

/**
 * What both relay store backends share: the checks of their input (so both refuse the same input
 * with the same codes), time-ordered ids, a mutex and the counters' bucketing. NUL is refused in every key part: it is the
 * LevelDB layout's separator, and Postgres text cannot hold it.
 */

export const SEP = '\x00';

/** Refuses a key part that is not a string or holds the separator. */
export function part(what: string, value: unknown): string {
  if (typeof value !== 'string') throw invalid('RELAY_BAD_KEY', `${what} must be a string`, { field: what });
  if (value.includes(SEP)) throw invalid('RELAY_BAD_KEY', `${what} must not contain a NUL character`, { field: what });
  return value;
}

/** Each of `values` checked by `part`, in their order, repeats kept. */
export function eachPart(what: string, values: readonly string[]): string[] {
  if (!Array.isArray(values)) throw invalid('RELAY_BAD_KEY', `${what} must be an array of strings`, { field: what });
  return values.map((v) => part(what, v));
}

/** `eachPart` without repeats. */
export function parts(what: string, values: readonly string[]): string[] {
  return [...new Set(eachPart(what, values))];
}

/** A non-negative integer below `max` (a count, a limit, a time in ms). */
export function int(what: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= max) {
    throw invalid('RELAY_BAD_NUMBER', `${what} must be an integer from 0 below ${max}`, { field: what });
  }
  return value;
}

/** times in ms fit 13 decimal digits until the year 2286; ids hold 12 hex digits (2^48 ms) */
export const MAX_TIME = 2 ** 48;

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const randomHex4 = (): string => hex(Math.floor(Math.random() * 0x10000), 4);

/**
 * Ids that sort by time: `<prefix><12 hex ms><6 hex counter><4 hex random>`. `monotonic` ids never
 * go backwards in this process (a clock step back reuses the last ms with the next counter), so
 * their key order is the order they were made in. Otherwise the ms is the one given (a log entry's
 * `at`) and the counter orders ids of the same ms. With `spread`, a monotonic counter runs on from
 * a random start instead of restarting at 0 each ms, so ids that two processes make in the same
 * ms differ in more than their 16 random bits.
 */
export class IdGen {
  private lastMs = -1;
  private seq = Math.floor(Math.random() * 0x1000000);

  constructor(
    private readonly prefix: string,
    private readonly monotonic: boolean,
    private readonly spread = false,
  ) {}

  next(ms: number): string {
    ms = Math.floor(int('the time of an id', ms, MAX_TIME));
    if (this.monotonic) {
      if (ms > this.lastMs) {
        this.lastMs = ms;
        this.seq = this.spread ? (this.seq + 1) & 0xffffff : 0;
      } else if (++this.seq > 0xffffff) {
        this.lastMs++;
        this.seq = 0;
      }
      ms = this.lastMs;
    } else {
      this.seq = (this.seq + 1) & 0xffffff;
    }
    return `${this.prefix}${hex(ms, 12)}${hex(this.seq, 6)}${randomHex4()}`;
  }
}

/** Runs functions one at a time, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export const MINUTE = 60_000;
/** the most buckets one counter `series` call may ask for */
const MAX_BUCKETS = 100_000;

/** Checks a counter's `add`; false when there is nothing to count. */
export function checkCount(tenantId: string, name: string, at: number, n: number): boolean {
  part('tenantId', tenantId);
  part('name', name);
  int('at', at, MAX_TIME);
  if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid('RELAY_BAD_NUMBER', 'a counter adds a finite number');
  return n !== 0;
}

/**
 * The buckets of a counter series from `from` to `to` and where a minute's count goes: a minute
 * counts in the bucket holding its start (or `from`, for the minute `from` falls in).
 */
export function seriesBuckets(tenantId: string, name: string, from: number, to: number, bucketMs: number): { out: number[]; firstMinute: number; lastMinute: number; place(minute: number, n: number): void } {
  part('tenantId', tenantId);
  part('name', name);
  int('from', from, MAX_TIME);
  int('to', to, MAX_TIME);
  if (int('bucketMs', bucketMs) === 0) throw invalid('RELAY_BAD_NUMBER', 'bucketMs must be positive');
  const buckets = to <= from ? 0 : Math.ceil((to - from) / bucketMs);
  if (buckets > MAX_BUCKETS) throw invalid('RELAY_TOO_MANY_BUCKETS', `a series has at most ${MAX_BUCKETS} buckets`);
  const out = new Array<number>(buckets).fill(0);
  const firstMinute = Math.floor(from / MINUTE);
  const lastMinute = Math.floor((to - 1) / MINUTE);
  const place = (minute: number, n: number): void => {
    if (minute < firstMinute || minute > lastMinute) return;
    out[Math.floor((Math.max(minute * MINUTE, from) - from) / bucketMs)]! += n;
  };
  return { out, firstMinute, lastMinute, place };
}

/** A message listing's filter, checked. */
export function checkMessageFilter(filter: MessageFilter): MessageFilter {
  const tenantId = part('tenantId', filter.tenantId);
  const { state, protocol, recipient } = filter;
  if (state !== undefined && !MESSAGE_STATES.includes(state)) throw invalid('RELAY_BAD_STATE', `state is one of ${MESSAGE_STATES.join(', ')}`);
  if (protocol !== undefined && !MESSAGE_PROTOCOLS.includes(protocol)) throw invalid('RELAY_BAD_PROTOCOL', `protocol is one of ${MESSAGE_PROTOCOLS.join(', ')}`);
  if (recipient !== undefined) part('recipient', recipient);
  return { tenantId, state, protocol, recipient, limit: int('limit', filter.limit), offset: int('offset', filter.offset) };
}

/** An `enqueue`'s input, checked; answers its key parts. */
export function checkNewMessage(msg: NewMessage, body: Uint8Array, at: number): { tenantId: string; mediationId: string; recipient: string } {
  const tenantId = part('tenantId', msg.tenantId);
  const mediationId = part('mediationId', msg.mediationId);
  const recipient = part('recipient', msg.recipient);
  if (msg.sender !== null && typeof msg.sender !== 'string') throw invalid('RELAY_BAD_MESSAGE', 'sender must be a string or null');
  if (!(body instanceof Uint8Array)) throw invalid('RELAY_BAD_MESSAGE', 'the body must be bytes');
  int('size', msg.size);
  int('expiresAt', msg.expiresAt, 1e13);
  int('at', at, MAX_TIME);
  return { tenantId, mediationId, recipient };
}
