import type { PendingTx, SenderQueue } from './sender-queue.js';

export interface SelectOptions {
  /** byte budget for the whole selection (encodeTransaction lengths); none by default */
  maxBytes?: number;
  /** transactions to pass over by hash: those the block's uncommitted ancestors already carry */
  skip?: (hash: string) => boolean;
}

interface Cursor {
  q: SenderQueue;
  /** index into q.entries of the sender's next transaction */
  i: number;
  /** arrival order of the sender's head; never decreases for one sender */
  key: number;
}

/**
 * Ready transactions for a block: per sender the contiguous nonce run from its committed next
 * nonce, and across senders the head that arrived first goes first (a merge of the senders' queues
 * by arrival, keeping each sender's nonce order). A sender whose next transaction does not fit in
 * the byte budget is skipped for the rest of this selection: its later nonces cannot run without it.
 * `skip` passes over transactions that the block's uncommitted ancestors already carry: they count
 * against neither limit, and the sender's later nonces still follow.
 */
export function selectReady(queues: Iterable<SenderQueue>, maxCount: number, maxBytes: number, skip?: (hash: string) => boolean): PendingTx[] {
  const heap: Cursor[] = [];
  for (const q of queues) if (q.ready > 0) heap.push({ q, i: 0, key: q.entries[0]!.arrival });
  for (let i = (heap.length >>> 1) - 1; i >= 0; i--) down(heap, i);
  const out: PendingTx[] = [];
  let bytes = 0;
  while (out.length < maxCount && heap.length > 0) {
    const c = heap[0]!;
    const e = c.q.entries[c.i]!;
    const skipped = skip?.(e.hash) === true;
    const fits = skipped || bytes + e.size <= maxBytes;
    if (fits) c.i++;
    if (fits && !skipped) {
      out.push(e);
      bytes += e.size;
    }
    if (fits && c.i < c.q.ready) {
      c.key = Math.max(c.key, c.q.entries[c.i]!.arrival);
      down(heap, 0);
    } else {
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        down(heap, 0);
      }
    }
  }
  return out;
}

function down(heap: Cursor[], i: number): void {
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < n && heap[l]!.key < heap[m]!.key) m = l;
    if (r < n && heap[r]!.key < heap[m]!.key) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}
