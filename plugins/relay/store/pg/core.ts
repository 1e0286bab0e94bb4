import { LedgerError, invalid } from '../../../../node/errors.js';
import type { SqlDatabase } from '../../../common/sql/types.js';

/**
 * What the Postgres relay store's parts share. Every call runs through `run` (or `ordered`), so
 * that `close()` can wait for the calls under way and refuse later ones. Each write is one
 * statement or one transaction, committed before it resolves. The planner may lock rows in an
 * order that deadlocks with another statement; Postgres then aborts one of them, which has
 * changed nothing, and it is run again.
 */

/** deadlock_detected, serialization_failure */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

export const closedError = (): LedgerError => new LedgerError('RELAY_STORE_CLOSED', 'the relay store is closed', 'internal');

export class PgCore {
  closed = false;
  /** the database is closed too: nothing may reach it */
  ended = false;
  private running = 0;
  private drained: Array<() => void> = [];
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    readonly db: SqlDatabase,
    readonly now: () => number,
  ) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return this.track(retrying(fn));
  }

  /**
   * Runs `fn` after every earlier call with the same `key` has settled: writes of one record
   * (a document, a keylist) apply in call order, as they do under the LevelDB store's lock.
   */
  ordered<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(() => retrying(fn));
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return this.track(result);
  }

  /** Resolves once every call started before it has settled. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.running++;
    return p.finally(() => {
      if (--this.running === 0) for (const resolve of this.drained.splice(0)) resolve();
    });
  }
}

async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= ATTEMPTS || typeof code !== 'string' || !RETRYABLE.has(code)) throw err;
    }
  }
}

/**
 * Free text (a reason, a log message, a sender): a string, or null where `nullable`. Postgres
 * text cannot hold NUL, so it is refused here with a typed error rather than by the server.
 */
export function text(what: string, value: unknown, nullable = false): string | null {
  if (value === null && nullable) return null;
  if (typeof value !== 'string') throw invalid('RELAY_BAD_TEXT', `${what} must be a string${nullable ? ' or null' : ''}`, { field: what });
  if (value.includes('\x00')) throw invalid('RELAY_BAD_TEXT', `${what} must not contain a NUL character`, { field: what });
  return value;
}

/** bytes as a bytea parameter (pg sends Buffers as bytea) */
export const toBytea = (v: Uint8Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** a bytea column as a plain Uint8Array of its own (pg gives Buffers, often slices of a shared pool) */
export const fromBytea = (v: Uint8Array | null | undefined): Uint8Array | undefined => (v == null ? undefined : new Uint8Array(v));
