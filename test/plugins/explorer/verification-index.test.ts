import t from 'tap';
import type { CommittedBlock } from '../../../node/chain/app.js';
import { ECVRF_PROOF_LENGTH } from '../../../node/crypto/sizes.js';
import { keyPairFromSeed, type Ed25519KeyPair } from '../../../node/crypto/ed25519.js';
import { addressBytesFromPublicKey, addressFromPublicKey } from '../../../node/protocol/address.js';
import { didForPublicKey } from '../../../node/protocol/did.js';
import type { Payload } from '../../../node/protocol/payloads.js';
import { SUCCESS, type ReceiptEvent } from '../../../node/protocol/receipt.js';
import { openDatabase } from '../../../node/state/db.js';
import type { Indexed } from '../../../plugins/explorer/rows.js';
import { Indexer } from '../../../plugins/explorer/store/level/indexer.js';
import { scan } from '../../../plugins/explorer/store/level/layout.js';
import { committedChain, type TxSpec } from './committed-chain.js';

/**
 * Verification requests in the explorer's index, from blocks whose receipts carry the events
 * execution writes: a request answered twice and finalized, one finalized in its deadline block
 * (answers there still count), one that expires with no event at its deadline, and a failed
 * request that leaves nothing; an answer in a batch counts as one alone, and a batch's refused
 * answer changes nothing. Grouped, block by block, or across a restart, the index is the same.
 */

const CHAIN = 'verification-index-test';
const NETWORK = 'testnet';
const [requester, subject, validator] = [1, 2, 3].map((n) => keyPairFromSeed(new Uint8Array(32).fill(n))) as [Ed25519KeyPair, Ed25519KeyPair, Ed25519KeyPair];
const requesterDid = didForPublicKey(NETWORK, requester!.publicKey);
const subjectDid = didForPublicKey(NETWORK, subject!.publicKey);
const VALIDATOR = addressFromPublicKey(validator!.publicKey);

type Spec = TxSpec;

let nonce = 0;
function request(id: string, deadline: number, status = SUCCESS): Spec {
  const payload: Payload = {
    kind: 'VerificationRequest',
    request: {
      version: '1.0',
      requestId: id,
      timestamp: 1_000_000,
      requester: { did: requesterDid, purpose: 'account opening' },
      subject: { did: subjectDid },
      requiredClaims: [{ type: 'KYCCredential', constraints: { minimumLevel: 2 }, acceptZKProof: true }],
      fee: '100000',
      chainId: CHAIN,
      nonce: nonce++,
    },
  };
  const events: ReceiptEvent[] = status === SUCCESS ? [{ type: 'VerificationRequested', request_id: id, requester: requesterDid, subject: subjectDid, deadline_height: deadline }] : [];
  return { from: requester, payload, status, events };
}

function answer(id: string, answers: number, finalized?: boolean): Spec {
  const claims = [{ type: 'KYCCredential', satisfied: finalized !== false, issuer: requesterDid, issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z', proofType: 'direct' as const }];
  const payload: Payload = { kind: 'VerificationAnswer', requestId: id, vrfProof: new Uint8Array(ECVRF_PROOF_LENGTH), presentationHash: new Uint8Array(32).fill(7), claims, signature: new Uint8Array(64) };
  const events: ReceiptEvent[] = [{ type: 'VerificationAnswered', request_id: id, validator: VALIDATOR, answers }];
  if (finalized !== undefined) events.push({ type: 'VerificationFinalized', request_id: id, verified: finalized, consensus_round: 40 + answers });
  return { from: validator, payload, events };
}

/** one validator's answers in one VerificationAnswerBatch, with `refused` answers that execution refused (an event each, nothing else) */
function batch(answers: Spec[], refused: string[]): Spec {
  const items = answers.map((a) => {
    const { kind: _, ...item } = a.payload as Extract<Payload, { kind: 'VerificationAnswer' }>;
    return item;
  });
  const more = refused.map((id) => ({ ...items[0]!, requestId: id }));
  const events: ReceiptEvent[] = [...answers.flatMap((a) => a.events ?? []), ...refused.map((id) => ({ type: 'VerificationAnswerRefused' as const, request_id: id, validator: VALIDATOR, reason: `verification request ${id} is already final` }))];
  return { from: validator, payload: { kind: 'VerificationAnswerBatch', answers: [...items, ...more] }, events };
}

/** Blocks from seq 0, height = seq, with these transactions and receipts (the events are what execution would write). */
function chain(blocks: Spec[][]): CommittedBlock[] {
  return committedChain(CHAIN, blocks, { proposer: addressBytesFromPublicKey(validator!.publicKey), height: (seq) => seq, timestampMs: (seq) => 2_000_000 + seq * 1_000, nonce: (seq, i) => BigInt(seq * 10 + i) });
}

const BLOCKS = chain([
  [],
  [request('req-a', 4), request('req-b', 8)],
  [answer('req-a', 1)],
  [answer('req-a', 2, true)],
  [],
  [request('req-c', 6), request('req-d', 9, 'failed: insufficient balance for the verification fee 100000')],
  [],
  [batch([answer('req-b', 1)], ['req-c'])],
  [answer('req-b', 2, false)],
  [],
]);

async function indexed(groups: number[][], restartAfter?: number): Promise<{ rows: Indexed[]; stored: Map<string, string>; keys: string[] }> {
  const db = await openDatabase('memory');
  try {
    const store = db.pluginStore('explorer');
    const open = () => new Indexer({ store, network: NETWORK, credential: () => Promise.resolve(undefined), now: () => new Date(1_700_000_000_000) });
    let indexer = open();
    const rows: Indexed[] = [];
    for (const [i, g] of groups.entries()) {
      rows.push(...(await indexer.applyAll(g.map((seq) => BLOCKS[seq]!))));
      // a restarted indexer reads the pending deadlines back from the store
      if (i === restartAfter) indexer = open();
    }
    const stored = new Map<string, string>();
    for await (const [k, v] of scan(store, '', '\xff')) stored.set(k, v);
    return { rows, stored, keys: [...stored.keys()] };
  } finally {
    await db.close();
  }
}

const seqs = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

t.test('rows, status entries, counts; the same grouped, block by block and across a restart', async (t) => {
  const one = await indexed(seqs(0, 9).map((s) => [s]));
  const all = await indexed([seqs(0, 9)]);
  const restarted = await indexed([seqs(0, 5), seqs(6, 9)], 0);
  t.same([...all.stored], [...one.stored], 'one group');
  t.same(all.rows, one.rows, 'the rows the feed gets');
  t.same([...restarted.stored], [...one.stored], 'across a restart');

  const { stored, keys } = one;
  const row = (id: string) => JSON.parse(stored.get(`ver:${id}`)!) as Record<string, unknown>;
  t.match(row('req-a'), {
    request_id: 'req-a',
    requester_did: requesterDid,
    subject_did: subjectDid,
    purpose: 'account opening',
    claim_types: ['KYCCredential'],
    fee: '100000',
    status: 'final',
    verified: true,
    answers: 2,
    request_height: 1,
    deadline_height: 4,
    final_height: 3,
    consensus_round: 42,
    request_ms: '2001000',
    final_ms: '2003000',
    tx_hash: BLOCKS[1]!.receipts[0]!.tx_hash,
  });
  t.match(row('req-b'), { status: 'final', verified: false, answers: 2, final_height: 8 }, 'final in its deadline block: answers there count');
  t.match(row('req-c'), { status: 'expired', verified: null, answers: 0, final_height: null, final_ms: null }, 'expired at its deadline, with no event');
  t.notOk(stored.has('ver:req-d'), 'a failed request is no verification');
  t.equal(stored.get('count:verifications'), '3');
  t.same(
    ['pending', 'final', 'expired'].map((s) => stored.get(`count:verstatus:${s}`)),
    ['0', '2', '1'],
  );
  t.equal(stored.get('count:verified'), '1');
  t.equal(keys.filter((k) => k.startsWith('verstatus:final:')).length, 2);
  t.equal(keys.filter((k) => k.startsWith('verstatus:pending:')).length, 0, 'moved out of pending');
  t.equal(keys.filter((k) => k.startsWith('verdue:')).length, 0, 'no deadline left once settled');
  t.equal(stored.get(`count:versubject:${subjectDid}`), '3');
  t.equal(stored.get(`count:verrequester:${requesterDid}`), '3');
  t.match(JSON.parse(stored.get(`tx:${BLOCKS[1]!.receipts[0]!.tx_hash}`)!), { type: 'VerificationRequest', amount: '100000' }, 'the request holds its fee: the row amount');

  const feed = one.rows.map((r) => r.verifications.map((v) => `${v.request_id}:${v.status}:${v.answers}`));
  t.same(feed, [[], ['req-a:pending:0', 'req-b:pending:0'], ['req-a:pending:1'], ['req-a:final:2'], [], ['req-c:pending:0'], ['req-c:expired:0'], ['req-b:pending:1'], ['req-b:final:2'], []], 'each block sends the rows it changed');
});

t.test('a request still pending past its deadline is expired even when no block had that height', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = db.pluginStore('explorer');
  const indexer = new Indexer({ store, network: NETWORK, credential: () => Promise.resolve(undefined) });
  // heights jump from 5 to 7 at seq 6: the deadline 6 is passed without a block at it
  const blocks = BLOCKS.slice(0, 7).map((c) => (c.seq === 6 ? { ...c, block: { ...c.block, header: { ...c.block.header, height: 7 } } } : c));
  const rows = await indexer.applyAll(blocks);
  t.same(rows.at(-1)!.verifications.map((v) => [v.request_id, v.status]), [['req-c', 'expired']]);
});
