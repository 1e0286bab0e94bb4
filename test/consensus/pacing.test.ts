import t from 'tap';
import { proposalDelay, type PacingState } from '../../node/consensus/pacing.js';

const cfg = { minIntervalMs: 25, fullBlockTransactions: 100, idleIntervalMs: 1000 };
const state = (s: Partial<PacingState>): PacingState => ({
  sinceParentMs: 0,
  sinceScheduledMs: 0,
  readyTransactions: 0,
  uncommittedTransactions: false,
  pastBoundary: false,
  ...s,
});

t.test('a block with transactions waits out the interval since its parent', async (t) => {
  t.equal(proposalDelay(state({ readyTransactions: 1, sinceParentMs: 0 }), cfg), 25);
  t.equal(proposalDelay(state({ readyTransactions: 1, sinceParentMs: 10 }), cfg), 15);
  t.equal(proposalDelay(state({ readyTransactions: 99, sinceParentMs: 24 }), cfg), 1);
});

t.test('a round slower than the interval adds no wait', async (t) => {
  t.equal(proposalDelay(state({ readyTransactions: 1, sinceParentMs: 25 }), cfg), 0);
  t.equal(proposalDelay(state({ readyTransactions: 1, sinceParentMs: 400 }), cfg), 0);
  t.equal(proposalDelay(state({ readyTransactions: 1, sinceParentMs: Infinity }), cfg), 0, 'a parent not seen since a restart');
});

t.test('a full block goes at once: the interval never caps throughput', async (t) => {
  t.equal(proposalDelay(state({ readyTransactions: 100 }), cfg), 0);
  t.equal(proposalDelay(state({ readyTransactions: 5000 }), cfg), 0);
});

t.test('blocks that only finish a commit are paced as well', async (t) => {
  t.equal(proposalDelay(state({ uncommittedTransactions: true, sinceParentMs: 5 }), cfg), 20);
  t.equal(proposalDelay(state({ uncommittedTransactions: true, sinceParentMs: 30 }), cfg), 0);
});

t.test('with nothing to do the leader waits the idle interval from when its round began', async (t) => {
  t.equal(proposalDelay(state({ sinceParentMs: 5000, sinceScheduledMs: 0 }), cfg), 1000);
  t.equal(proposalDelay(state({ sinceScheduledMs: 400 }), cfg), 600);
  t.equal(proposalDelay(state({ sinceScheduledMs: 1000 }), cfg), 0);
});

t.test('a block above the epoch boundary goes at once: the epoch change waits for it', async (t) => {
  t.equal(proposalDelay(state({ pastBoundary: true }), cfg), 0);
  t.equal(proposalDelay(state({ pastBoundary: true, uncommittedTransactions: true, sinceParentMs: 0 }), cfg), 0);
});

t.test('an interval of 0 proposes as soon as there is work', async (t) => {
  t.equal(proposalDelay(state({ readyTransactions: 1 }), { ...cfg, minIntervalMs: 0 }), 0);
});
