import type { Arrival } from './types.js';

/** This instance's live connections, by mediation: the local half of every ArrivalBus. */
export class LocalListeners {
  private byMediation = new Map<string, Set<(arrival: Arrival) => void>>();

  get size(): number {
    return this.byMediation.size;
  }

  has(mediationId: string): boolean {
    return this.byMediation.has(mediationId);
  }

  tell(arrival: Arrival): void {
    for (const listener of this.byMediation.get(arrival.mediationId) ?? []) listener(arrival);
  }

  /** adds a listener; `onFirst` and `onLast` run when the mediation gains its first or loses its last */
  add(mediationId: string, listener: (arrival: Arrival) => void, onFirst?: () => void, onLast?: () => void): () => void {
    let set = this.byMediation.get(mediationId);
    if (!set) {
      this.byMediation.set(mediationId, (set = new Set()));
      onFirst?.();
    }
    set.add(listener);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set.delete(listener);
      if (set.size === 0 && this.byMediation.get(mediationId) === set) {
        this.byMediation.delete(mediationId);
        onLast?.();
      }
    };
  }
}
