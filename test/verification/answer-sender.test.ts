import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { MAX_BATCH_ANSWERS } from '../../node/protocol/payload-codecs/verification.js';
import type { VerificationAnswerItem } from '../../node/protocol/payloads.js';
import { decodeTransaction, encodeTransaction, MAX_TX_BYTES, verifyTransactionSignature, type Transaction } from '../../node/protocol/transaction.js';
import { AnswerSender, answersIn, packAnswers } from '../../node/verification/answer-sender.js';

const CHAIN_ID = 'ledger-test-1';
const me = keyPairFromSeed(new Uint8Array(32).fill(41));

function answer(requestId: string, issuer = 'did:ledger:testnet:issuer'): VerificationAnswerItem {
  return {
    requestId,
    presentationHash: new Uint8Array(32).fill(requestId.length),
    claims: [{ type: 'KYCCredential', satisfied: true, issuer, issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z', proofType: 'zk-snark' }],
    signature: new Uint8Array(64).fill(7),
  };
}

function sender(o: { windowMs: number; closed?: Set<string>; refuse?: boolean; stillOpen?: (id: string) => Promise<boolean> }) {
  const sent: Array<{ tx: Transaction; atMs: number }> = [];
  const counted: number[] = [];
  let nonce = 3n;
  const s = new AnswerSender({
    chainId: CHAIN_ID,
    seed: me.seed,
    publicKey: me.publicKey,
    nextNonce: async () => nonce++,
    submit: async (tx) => {
      if (o.refuse) throw new Error('mempool full');
      sent.push({ tx, atMs: performance.now() });
    },
    stillOpen: o.stillOpen ?? (async (id) => !o.closed?.has(id)),
    windowMs: o.windowMs,
    sent: (n) => counted.push(n),
  });
  return { s, sent, counted };
}

const requestIds = (tx: Transaction) => answersIn(tx.payload).map((a) => a.requestId);

t.test('the first answer leaves at once and alone; answers ready within the window leave together, one transaction', async (t) => {
  const { s, sent, counted } = sender({ windowMs: 150 });
  const start = performance.now();
  const first = s.send(answer('r-1'));
  t.equal(await first, true);
  t.ok(performance.now() - start < 100, 'no wait on a quiet chain');
  const rest = ['r-2', 'r-3', 'r-4'].map((id) => s.send(answer(id)));
  t.same(await Promise.all(rest), [true, true, true]);
  t.equal(sent.length, 2);
  t.equal(sent[0]!.tx.payload.kind, 'VerificationAnswer', 'one answer goes as a VerificationAnswer');
  t.equal(sent[1]!.tx.payload.kind, 'VerificationAnswerBatch');
  t.same(requestIds(sent[1]!.tx), ['r-2', 'r-3', 'r-4'], 'in the order they were ready');
  t.ok(sent[1]!.atMs - sent[0]!.atMs >= 140, 'the second transaction waited for the window');
  t.same(sent.map((x) => x.tx.nonce), [3n, 4n], 'nonces in order');
  t.same(counted, [1, 3], 'each transaction counted with its answers');
  for (const { tx } of sent) {
    t.ok(verifyTransactionSignature(CHAIN_ID, tx));
    t.same(decodeTransaction(encodeTransaction(tx)), tx, 'round-trips its encoding');
  }
});

t.test("an answer whose request closed while it waited is left out; the others' still go", async (t) => {
  const closed = new Set<string>();
  const { s, sent } = sender({ windowMs: 60, closed });
  await s.send(answer('r-0'));
  const a = s.send(answer('r-open'));
  const b = s.send(answer('r-closed'));
  closed.add('r-closed');
  t.same(await Promise.all([a, b]), [true, false]);
  t.same(sent.map((x) => requestIds(x.tx)), [['r-0'], ['r-open']]);
});

t.test('a batch stays within the transaction size limit and the answer count: more answers, more transactions', async (t) => {
  const { s, sent } = sender({ windowMs: 50 });
  await s.send(answer('r-0'));
  const issuer = `did:ledger:testnet:${'x'.repeat(200)}`;
  const many = Array.from({ length: 40 }, (_, i) => s.send(answer(`request-${i}`, issuer)));
  t.ok((await Promise.all(many)).every(Boolean));
  const batches = sent.slice(1);
  t.ok(batches.length > 1, `${batches.length} transactions`);
  t.same(batches.flatMap((x) => requestIds(x.tx)), Array.from({ length: 40 }, (_, i) => `request-${i}`), 'every answer once, in order');
  for (const { tx } of batches) {
    t.ok(encodeTransaction(tx).length <= MAX_TX_BYTES, `${encodeTransaction(tx).length} bytes`);
    t.ok(requestIds(tx).length <= MAX_BATCH_ANSWERS);
  }
});

t.test('a transaction the mempool refuses fails the answers in it; a failed lookup fails its answer; later answers still go', async (t) => {
  const { s } = sender({ windowMs: 10, refuse: true });
  await t.rejects(s.send(answer('r-1')), /mempool full/);

  const { s: lookups, sent } = sender({
    windowMs: 10,
    stillOpen: async (id) => {
      if (id === 'r-broken') throw new Error('store closed');
      return true;
    },
  });
  await t.rejects(lookups.send(answer('r-broken')), /store closed/);
  t.equal(await lookups.send(answer('r-2')), true);
  t.same(sent.map((x) => requestIds(x.tx)), [['r-2']]);
});

t.test('packAnswers: in order, a new group where the next item would not fit', async (t) => {
  const fits = (g: number[]) => g.reduce((a, b) => a + b, 0) <= 10;
  t.same(packAnswers([4, 4, 4, 9, 1, 12, 3], fits), [[4, 4], [4], [9, 1], [12], [3]]);
  t.same(packAnswers([], fits), []);
});
