import t from 'tap';
import { randomUUID } from 'node:crypto';
import { generateSeed, keyPairFromSeed, signAndEncode, waitForReceipt } from '../../../../../node/client/index.js';
import { signVerificationRequest, type RequiredClaim, type VerificationRequest } from '../../../../../node/protocol/verification.js';
import { mountVerificationRequests } from '../../../../../plugins/wallet/http/routes/verification-requests.js';
import { VerificationRequests } from '../../../../../plugins/wallet/verification/requests.js';
import { ERRORS_BASE, startWallet } from '../../harness.js';

/**
 * GET /v1/verification-requests on a real node: a relying party's requests to two wallet users,
 * sent both ways a request reaches the chain (its own signed transaction, and
 * ledger_submitVerificationRequest), one left to expire. Each user sees only the requests about
 * its own DID, by status, in pages.
 */

const CLAIMS: RequiredClaim[] = [{ type: 'KYCCredential', constraints: { minimumLevel: 2, jurisdiction: ['DE', 'FR'] }, acceptZKProof: true }];

t.test('pending, expired and all; pages; only the caller’s own; the detail; bad queries', async (t) => {
  const w = await startWallet(t, (p) => mountVerificationRequests(p.router, { requests: new VerificationRequests({ chain: p.ctx.chain }) }));
  const alice = await w.signIn({ onChain: true });
  const bob = await w.signIn({ onChain: true });
  const requesterSeed = generateSeed();
  const requester = keyPairFromSeed(requesterSeed);
  const requesterDid = await w.createDid(requesterSeed);
  let nonce = 1;

  const unsigned = (subject: string, validForBlocks: number): Omit<VerificationRequest, 'signature'> => ({
    version: '1.0',
    requestId: `req-${randomUUID()}`,
    timestamp: Date.now(),
    requester: { did: requesterDid, purpose: 'opening a brokerage account' },
    subject: { did: subject },
    requiredClaims: CLAIMS,
    fee: '100000',
    chainId: w.node.chainId,
    nonce: nonce++,
    validForBlocks,
  });
  /** the request as its own transaction, without a signature of its own: the transaction's is the request's */
  const asTransaction = async (subject: string, validForBlocks: number) => {
    const request = unsigned(subject, validForBlocks) as Omit<VerificationRequest, 'signature'> & { chainId: string; nonce: number };
    const signed = signAndEncode(w.node.chainId, { senderPubkey: requester.publicKey, nonce: BigInt(request.nonce), payload: { kind: 'VerificationRequest', request } }, requesterSeed);
    await w.rpc.sendTransaction(signed.json);
    t.equal((await waitForReceipt(w.rpc, signed.hash, { timeoutMs: 20_000 })).status, 'success');
    return request.requestId;
  };
  /** the signed request through the RPC */
  const throughRpc = async (subject: string, validForBlocks: number) => {
    const request = signVerificationRequest(unsigned(subject, validForBlocks), requesterSeed);
    const { txHash } = await w.rpc.call<{ txHash: string }>('ledger_submitVerificationRequest', [request]);
    t.equal((await waitForReceipt(w.rpc, txHash, { timeoutMs: 20_000 })).status, 'success');
    return request.requestId;
  };
  const expiring = await asTransaction(alice.user.did, 5);
  const open = [await throughRpc(alice.user.did, 10_000), await asTransaction(alice.user.did, 10_000), await throughRpc(alice.user.did, 10_000)];
  const bobs = await throughRpc(bob.user.did, 10_000);
  for (let i = 0; i < 200 && (await w.rpc.call<{ status: string } | null>('ledger_getVerificationRequest', [expiring]))?.status !== 'expired'; i++) await new Promise((r) => setTimeout(r, 100));
  const get = (path: string, cookie = alice.cookie) => w.req('GET', path, { cookie });

  await t.test('a session is required', async (t) => {
    const res = await w.req('GET', '/v1/verification-requests');
    t.equal(res.status, 401);
    t.same(res.body, { error: 'Unauthorized' });
  });

  await t.test('pending by default, newest first, with what the requester asks', async (t) => {
    const res = await get('/v1/verification-requests');
    t.equal(res.status, 200, res.text);
    t.same(res.body.items.map((i: { requestId: string }) => i.requestId), [...open].reverse());
    t.equal(res.body.nextCursor, null);
    const head = await w.rpc.blockNumber();
    const item = res.body.items[2];
    t.match(item, {
      requestId: open[0],
      status: 'pending',
      requester: { did: requesterDid, purpose: 'opening a brokerage account' },
      requiredClaims: CLAIMS,
      fee: '100000',
      requestedAt: Number,
      requestHeight: Number,
      deadlineHeight: Number,
      answers: 0,
      threshold: 1,
      committeeSize: 1,
      txHash: /^[0-9a-f]{64}$/,
      outcome: null,
    });
    t.equal(item.deadlineHeight, item.requestHeight + 10_000);
    t.ok(Math.abs(item.blocksLeft - (item.deadlineHeight - head)) <= 5, `blocksLeft ${item.blocksLeft}: the deadline less the head`);
    t.notOk(JSON.stringify(res.body).includes(bobs), "another subject's request is not listed");
  });

  await t.test('expired, final, all', async (t) => {
    t.match((await get('/v1/verification-requests?status=expired')).body, { items: [{ requestId: expiring, status: 'expired', blocksLeft: null, outcome: null }], nextCursor: null });
    t.same((await get('/v1/verification-requests?status=final')).body, { items: [], nextCursor: null });
    t.equal((await get('/v1/verification-requests?status=all')).body.items.length, 4);
    t.same((await get('/v1/verification-requests?status=all', bob.cookie)).body.items.map((i: { requestId: string }) => i.requestId), [bobs], 'bob sees his own');
  });

  await t.test('pages: limit and nextCursor, no repeat and no gap', async (t) => {
    const first = await get('/v1/verification-requests?status=all&limit=3');
    t.equal(first.body.items.length, 3);
    t.type(first.body.nextCursor, 'string');
    const second = await get(`/v1/verification-requests?status=all&limit=3&cursor=${first.body.nextCursor}`);
    t.equal(second.body.nextCursor, null);
    const ids = [...first.body.items, ...second.body.items].map((i: { requestId: string }) => i.requestId);
    t.same(ids, [...open].reverse().concat(expiring));
  });

  await t.test('one request: the caller’s own, else not found', async (t) => {
    const mine = await get(`/v1/verification-requests/${encodeURIComponent(open[0]!)}`);
    t.equal(mine.status, 200);
    t.match(mine.body, { requestId: open[0], status: 'pending' });
    const other = await get(`/v1/verification-requests/${encodeURIComponent(bobs)}`);
    t.equal(other.status, 404, "another subject's request is not the caller's to see here");
    t.match(other.body, { type: `${ERRORS_BASE}/404`, code: 'REQUEST_NOT_FOUND' });
    t.equal((await get('/v1/verification-requests/nothing-like-it')).status, 404);
    const long = await get(`/v1/verification-requests/${'x'.repeat(257)}`);
    t.equal(long.status, 400);
    t.match(long.body, { type: `${ERRORS_BASE}/400`, field: 'requestId' });
  });

  await t.test('bad queries are 400 Problems naming the field', async (t) => {
    for (const [q, field] of [
      ['status=done', 'status'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      [`cursor=${Buffer.from('[1]').toString('base64url')}`, 'cursor'],
      ['page=2', 'page'],
      ['status=all&status=final', 'status'],
    ] as const) {
      const res = await get(`/v1/verification-requests?${q}`);
      t.equal(res.status, 400, q);
      t.match(res.body, { type: `${ERRORS_BASE}/400`, status: 400, field, instance: '/v1/verification-requests' }, q);
    }
    const secret = await get('/v1/verification-requests?seed=abandon');
    t.equal(secret.status, 400);
    t.match(secret.body, { code: 'PRIVATE_KEY_REFUSED' });
  });
});
