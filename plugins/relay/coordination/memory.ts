import { LocalListeners } from './local-listeners.js';
import { RateWindows } from './rate-windows.js';
import { ReplayWindow } from './replay-window.js';
import type { Coordination } from './types.js';

/** The embedded default: one instance, everything in this process's memory. */
export function createMemoryCoordination(opts: { now: () => number; replayWindowMs: number }): Coordination {
  const windows = new RateWindows({ now: opts.now });
  const replay = new ReplayWindow({ windowMs: opts.replayWindowMs, max: 200_000, now: opts.now });
  const listeners = new LocalListeners();
  return {
    backend: 'in-process',
    limiter: {
      hit: async (did, limit) => windows.hit(did, limit),
      peek: async (did) => ({ count: windows.current(did), retryAfter: windows.retryAfter(did) }),
    },
    replay: { firstSeen: async (sender, id) => replay.firstSeen(sender, id) },
    arrivals: {
      publish: async (arrival) => listeners.tell(arrival),
      subscribe: (mediationId, listener) => listeners.add(mediationId, listener),
      get listening() {
        return listeners.size;
      },
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
}
