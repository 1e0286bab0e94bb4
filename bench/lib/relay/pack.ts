import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PackedForward, PackJob, PackWorkerMessage } from './pack-worker.js';

/** Packs forwards [0, total) in worker threads; the recipient's document is all they need. */
export async function packForwards(job: Omit<PackJob, 'from' | 'count'>, total: number): Promise<PackedForward[]> {
  const workers = Math.max(1, Math.min(availableParallelism(), 4));
  const per = Math.ceil(total / workers);
  const out: PackedForward[] = [];
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const from = w * per;
      const count = Math.max(0, Math.min(per, total - from));
      if (count === 0) return Promise.resolve();
      return new Promise<void>((resolveJob, reject) => {
        const worker = new Worker(new URL('./pack-worker.js', import.meta.url), { workerData: { ...job, from, count } satisfies PackJob });
        worker.on('message', (m: PackWorkerMessage) => {
          if ('forwards' in m) {
            out.push(...m.forwards);
            done += m.forwards.length;
            if (m.forwards.length > 0 && done % 5000 < m.forwards.length) console.error(`  packed ${done}/${total} forwards`);
          } else void worker.terminate().then(() => resolveJob());
        });
        worker.once('error', reject);
      });
    }),
  );
  console.error(`packed ${total} forwards in ${Math.round(performance.now() - started)} ms (${workers} threads)`);
  return out.sort((a, b) => a.seq - b.seq);
}
