import t from 'tap';
import { decodeMessage, encodeMessage, encodeSafety, decodeSafety } from '../../node/consensus/codec.js';
import type { ConsensusMessage, TimeoutCertificate } from '../../node/consensus/types.js';
import { isLedgerError } from '../../node/errors.js';
import { genesisBlock, transfer } from './harness.js';

const g = genesisBlock();
const qc = { round: 3, height: 2, blockHash: new Uint8Array(32).fill(4), signers: Uint8Array.of(7), signature: new Uint8Array(96).fill(1) };
const tc: TimeoutCertificate = { round: 5, highQc: qc, signers: Uint8Array.of(7), highQcRounds: [3, 2, 1], signature: new Uint8Array(96).fill(2) };
const voter = new Uint8Array(20).fill(3);
const block = { ...g, transactions: [transfer(0)] };

const messages: ConsensusMessage[] = [
  { type: 'proposal', epoch: 2, proposal: { block: g, tc: undefined, signature: new Uint8Array(96).fill(5) } },
  { type: 'proposal', epoch: 2, proposal: { block, tc, signature: new Uint8Array(96).fill(5) } },
  { type: 'vote', epoch: 2, vote: { round: 3, height: 2, blockHash: new Uint8Array(32).fill(4), voter, signature: new Uint8Array(96).fill(6) } },
  { type: 'timeout', epoch: 2, timeout: { round: 4, highQc: qc, voter, signature: new Uint8Array(96).fill(8) } },
  { type: 'tc', epoch: 2, tc },
  { type: 'qc', epoch: 2, qc },
  { type: 'sync-request', epoch: 2, request: { hash: new Uint8Array(32).fill(1), stopAtHeight: 9, max: 64 } },
  { type: 'sync-response', epoch: 2, blocks: [g, block] },
  { type: 'range-request', epoch: 1, request: { fromHeight: 70, max: 64 } },
  { type: 'range-response', epoch: 1, blocks: [g, block] },
  { type: 'epoch-request', epoch: 3 },
  { type: 'epoch-proof', epoch: 3, proof: { blocks: [g, block], qc } },
];

t.test('every message round-trips', async (t) => {
  for (const m of messages) {
    const bytes = encodeMessage(m);
    const back = decodeMessage(bytes);
    t.same(encodeMessage(back), bytes, m.type);
    t.equal(back.type, m.type);
    t.equal(back.epoch, m.epoch, 'the epoch travels with every message');
  }
});

function rejects(t: { ok(v: unknown, m: string): unknown; fail(m: string): unknown }, bytes: Uint8Array, code: string, what: string): void {
  try {
    decodeMessage(bytes);
    t.fail(`${what}: decoded`);
  } catch (err) {
    t.ok(isLedgerError(err) && err.code === code, `${what}: ${(err as Error).message}`);
  }
}

t.test('strict decoding', async (t) => {
  const vote = encodeMessage(messages[2]!);
  rejects(t, Uint8Array.of(...vote, 0), 'TRAILING_BYTES', 'trailing byte');
  rejects(t, vote.slice(0, vote.length - 1), 'TRUNCATED', 'truncated');
  rejects(t, Uint8Array.of(2, ...vote.slice(1)), 'BAD_VERSION', 'unknown version');
  rejects(t, Uint8Array.of(1, 99, 0, 0, 0, 0, 0, 0, 0, 0), 'BAD_MESSAGE_TYPE', 'unknown type');
  rejects(t, encodeMessage({ type: 'epoch-proof', epoch: 1, proof: { blocks: [], qc } }), 'BAD_EPOCH_PROOF', 'an epoch proof without blocks');
  const withTc = encodeMessage(messages[1]!);
  const flagAt = withTc.length - 96 - (8 + 8 + 8 + 32 + 2 + 1 + 2 + 96 + 2 + 1 + 2 + 3 * 8 + 96) - 1;
  const badFlag = Uint8Array.from(withTc);
  badFlag[flagAt] = 2;
  rejects(t, badFlag, 'BAD_FLAG', 'TC flag other than 0/1');
  const oversized = new Uint8Array(70 * 1024).fill(1);
  oversized[1] = 2;
  rejects(t, oversized, 'MESSAGE_TOO_LARGE', 'oversized vote-type message');
  const req = encodeMessage({ type: 'sync-request', epoch: 0, request: { hash: new Uint8Array(32), stopAtHeight: 0, max: 65 } });
  rejects(t, req, 'BAD_SYNC_REQUEST', 'sync request over the cap');
  const shortSigQc = encodeMessage({ type: 'qc', epoch: 0, qc: { ...qc, signature: new Uint8Array(95) } });
  rejects(t, shortSigQc, 'BAD_QC', 'QC signature of the wrong length');
});

t.test('safety state round-trips', async (t) => {
  const s = { epoch: 4, lastVotedRound: 9, lockedQc: qc, highQc: { ...qc, round: 8 }, highTc: tc };
  t.same(decodeSafety(encodeSafety(s)), s);
  const none = { ...s, highTc: undefined };
  t.same(decodeSafety(encodeSafety(none)), none);
});
