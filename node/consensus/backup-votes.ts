import type { Clock, TimerHandle } from './pacemaker.js';
import type { Vote } from './types.js';

export interface HeldVote {
  vote: Vote;
  trusted: boolean;
  from: Uint8Array | undefined;
}

/**
 * The votes the leader of a round holds as that round's backup collector. The leader of the next
 * round aggregates them as a rule; the backup only acts if no proposal for the next round shows
 * up within `delayMs` of the first vote it held (the next leader may be down): `onDue(round)`.
 */
export class BackupVotes {
  private readonly held = new Map<number, HeldVote[]>();
  private readonly timers = new Set<TimerHandle>();

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
    private readonly onDue: (round: number) => void,
  ) {}

  hold(v: HeldVote): void {
    const round = v.vote.round;
    const list = this.held.get(round);
    if (list) {
      list.push(v);
      return;
    }
    this.held.set(round, [v]);
    const timer = this.clock.setTimer(this.delayMs, () => {
      this.timers.delete(timer);
      this.onDue(round);
    });
    this.timers.add(timer);
  }

  /** The votes held for `round`, which are forgotten. */
  take(round: number): HeldVote[] {
    const list = this.held.get(round) ?? [];
    this.held.delete(round);
    return list;
  }

  /** Forget rounds whose next round is behind `round`. */
  prune(round: number): void {
    for (const r of this.held.keys()) if (r + 1 < round) this.held.delete(r);
  }

  clear(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.held.clear();
  }
}
