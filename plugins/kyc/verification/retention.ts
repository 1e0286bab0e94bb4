import { HttpProblem } from '../../common/http/problems.js';
import { TERMINAL, type StoredSession } from './states.js';
import type { SessionStore } from './store.js';

/**
 * The evidence retention (docs/kyc.md, "Retention"): `plugins.kyc.evidenceRetentionDays` after a
 * session reached a final state (completed, failed, expired), the sweeper deletes its images —
 * document bytes and liveness frames. The record stays: documents' metadata with the checks and
 * each image's SHA-256, the data read, the liveness result, the timeline, the credential.
 *
 * The index `ver-purge` is keyed by the time the session became final, written in the batch
 * that made it final; the due ones are those final at or before now − retention, so a changed
 * retention applies to every session at the next pass. Sessions already final before the index
 * existed are indexed once, on the first pass, by a scan of the sessions ended by a mark.
 * A session in review is not final, so it is never due.
 */

const DAY_MS = 86_400_000;

/** The answer for an image the retention deleted: 410, with when. */
export const evidenceDeleted = (at: string): HttpProblem =>
  new HttpProblem('gone', `the images of this session were deleted at ${at}, after the retention period; the record and the checks are kept`, {
    code: 'EVIDENCE_DELETED',
    headers: { 'x-evidence-deleted-at': at },
  });

export class EvidenceRetention {
  private indexed = false;

  constructor(
    private readonly store: SessionStore,
    private readonly opts: { retentionDays: number | null; batch?: number },
  ) {}

  private get batch(): number {
    return this.opts.batch ?? 100;
  }

  /** Deletes the images of every session due at `now`, a bounded batch at a time; returns how many sessions. */
  async purgeDue(now: number): Promise<number> {
    await this.indexExisting(now);
    if (this.opts.retentionDays === null) return 0;
    let count = 0;
    for (;;) {
      const n = await this.purgeBatch(now);
      count += n;
      if (n < this.batch) return count;
    }
  }

  /** One batch: at most `batch` due sessions. */
  async purgeBatch(now: number): Promise<number> {
    if (this.opts.retentionDays === null) return 0;
    const due = await this.store.purgeDue(now - this.opts.retentionDays * DAY_MS, this.batch);
    const at = new Date(now).toISOString();
    for (const entry of due) {
      await this.store.deleteEvidence(await this.store.get(entry.id), entry, at);
    }
    return due.length;
  }

  /** Once per store: indexes the final sessions written before `ver-purge`, then sets the mark. */
  async indexExisting(now: number): Promise<number> {
    if (this.indexed) return 0;
    if ((await this.store.purgeMark()) !== undefined) {
      this.indexed = true;
      return 0;
    }
    let pending: Array<{ at: string; id: string }> = [];
    let count = 0;
    for await (const [, s] of this.store.sessions.entries()) {
      if (!TERMINAL.has(s.status) || s.evidenceDeletedAt !== undefined) continue;
      pending.push({ at: await this.finalTime(s), id: s.id });
      if (pending.length >= this.batch) {
        await this.store.indexForPurge(pending);
        count += pending.length;
        pending = [];
      }
    }
    await this.store.indexForPurge(pending);
    count += pending.length;
    await this.store.setPurgeMark(new Date(now).toISOString());
    this.indexed = true;
    return count;
  }

  /** When an older session became final: its timeline's final step, else the latest time its record holds. */
  private async finalTime(s: StoredSession): Promise<string> {
    const step = (await this.store.timelineOf(s.id)).find((e) => e.type === s.status);
    return step?.at ?? s.completedAt ?? s.review?.decidedAt ?? s.processingAt ?? s.createdAt;
  }
}
