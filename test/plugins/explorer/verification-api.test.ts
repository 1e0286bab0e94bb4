import t from 'tap';
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { buildCredentialRequest, buildDidCreate, buildTransfer, didForPublicKey, generateSeed, keyPairFromSeed, RpcClient, signAndEncode, UNIT, waitForReceipt } from '../../../node/client/index.js';
import { addressFromPublicKey } from '../../../node/protocol/address.js';
import { buildCredential, credentialHash, signCredential, withExtensions } from '../../../node/protocol/credential-document.js';
import { signVerificationRequest, type RequiredClaim } from '../../../node/protocol/verification.js';
import { signPresentation, type PresentationEntry } from '../../../node/verification/presentation.js';
import { createExplorer } from '../../../plugins/explorer/index.js';
import { startTestNode } from '../../fixtures/real-node.js';
import { backends, stopPostgres } from './backends.js';

/**
 * Verification requests in the explorer, on a real one-validator node that answers as the
 * committee: a request met by a registered KYC credential (verified), one the subject answers with
 * nothing (final, not verified), one that expires, one left pending. The list, its filters, the
 * detail with the live response, the network stats, search, the transaction rows and the
 * `verifications` feed all agree, and nothing of the presentation shows.
 */

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

for (const backend of backends()) {
  t.test(`${backend.name}: requests, responses and counts, with no personal data`, { skip: backend.skip }, async (t) => {
    const node = await startTestNode(t, { plugins: [createExplorer({ store: await backend.index(t) })] });
    const explorerUrl = (node.plugins[0] as { url: string }).url;
    const rpc = new RpcClient(node.url);
    const get = async (path: string) => {
      const res = await fetch(`${explorerUrl}${path}`);
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    let devNonce = 0;
    const send = async (unsigned: Parameters<typeof signAndEncode>[1], seed: Uint8Array) => {
      const s = signAndEncode(node.chainId, unsigned, seed);
      await rpc.sendTransaction(s.json);
      const receipt = await waitForReceipt(rpc, s.hash, { timeoutMs: 20_000 });
      t.equal(receipt.status, 'success', `${unsigned.payload.kind} succeeds`);
      return s.hash;
    };
    const [issuer, subject, requester] = [generateSeed(), generateSeed(), generateSeed()].map((seed) => keyPairFromSeed(seed));
    const [issuerDid, subjectDid, requesterDid] = [issuer, subject, requester].map((k) => didForPublicKey('testnet', k!.publicKey));
    for (const k of [issuer, subject, requester]) {
      await send(buildTransfer({ senderPubkey: node.dev.publicKey, nonce: devNonce++, to: addressFromPublicKey(k!.publicKey), amount: 100n * UNIT }), node.dev.seed);
      await send(buildDidCreate({ senderPubkey: k!.publicKey, nonce: 0 }), k!.seed);
    }

    // the feed, subscribed before anything happens to a request
    const ws = new WebSocket(`${explorerUrl.replace('http', 'ws')}/ws`);
    const feed: Array<Record<string, any>> = [];
    ws.on('message', (d) => feed.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.once('open', r));
    t.teardown(() => ws.terminate());
    ws.send(JSON.stringify({ subscribe: ['verifications'] }));

    // a KYC credential of level 2 for the subject, registered on chain by the one validator
    const uuid = randomUUID();
    const body = buildCredential({
      uuid,
      type: 'KYCCredential',
      kycLevel: 2,
      issuer: { did: issuerDid!, name: 'Test KYC' },
      subject: { did: subjectDid!, verifiedAttributes: ['name', 'dateOfBirth'], jurisdiction: 'DE' },
      issuanceDate: iso(Date.now() - 60_000),
      expirationDate: iso(Date.now() + 365 * 86_400_000),
      status: { listUrl: 'https://issuer.example/revocation/0', index: 0 },
    });
    await send(buildCredentialRequest({ senderPubkey: issuer!.publicKey, nonce: 1, credentialId: uuid, credentialType: 'KYCCredential', kycLevel: 2, subjectDid: subjectDid!, issuerDid: issuerDid!, hash: await credentialHash(body), evidenceDigest: new Uint8Array(32), statusList: 0, statusIndex: 0 }), issuer!.seed);
    for (let i = 0; i < 100 && (await rpc.getCredentialRequest(uuid))?.status !== 'registered'; i++) await new Promise((r) => setTimeout(r, 100));
    const extended = await withExtensions(body, { validatorSignatures: [{ validator: addressFromPublicKey(node.dev.publicKey), signature: 'ab'.repeat(64) }], consensusRound: 1 });
    const credential = await signCredential(extended, issuer!.seed, iso(Date.now()));

    let requesterNonce = 1;
    const claims: RequiredClaim[] = [{ type: 'KYCCredential', constraints: { minimumLevel: 2 }, acceptZKProof: false }];
    const ask = async (validForBlocks: number) => {
      const request = signVerificationRequest(
        { version: '1.0', requestId: `req-${randomUUID()}`, timestamp: Date.now(), requester: { did: requesterDid!, purpose: 'account opening' }, subject: { did: subjectDid! }, requiredClaims: claims, fee: '100000', chainId: node.chainId, nonce: requesterNonce++, validForBlocks },
        requester!.seed,
      );
      const { txHash } = await rpc.call<{ txHash: string }>('ledger_submitVerificationRequest', [request]);
      t.equal((await waitForReceipt(rpc, txHash, { timeoutMs: 20_000 })).status, 'success', 'the request is on chain');
      return { id: request.requestId, txHash };
    };
    const present = async (id: string, credentials: PresentationEntry[]) => {
      const presentation = signPresentation({ version: '1.0', requestId: id, holder: subjectDid!, credentials }, subject!.seed);
      for (let i = 0; i < 600; i++) {
        // a member that could not check it in time drops it, and the subject presents again (by
        // then the request may have become final, and the node refuses it: only the first must pass)
        if (i % 100 === 0) {
          const sent = rpc.call('ledger_submitPresentation', [presentation]);
          await (i === 0 ? sent : sent.catch(() => undefined));
        }
        const r = await rpc.call<{ status: string } | null>('ledger_getVerificationResponse', [id]);
        if (r?.status === 'final') return;
        await new Promise((res) => setTimeout(res, 100));
      }
      t.fail(`no final response to ${id}`, { request: await rpc.getVerificationRequest(id) });
    };
    const met = await ask(300);
    const unmet = await ask(300);
    const expiring = await ask(5);
    const pending = await ask(10_000);
    await present(met.id, [{ claim: 0, proofType: 'direct', credential }]);
    await present(unmet.id, []);
    for (let i = 0; i < 150 && (await rpc.getVerificationRequest(expiring.id))?.status !== 'expired'; i++) await new Promise((r) => setTimeout(r, 100));
    const head = (await rpc.canonHead())!.seq;
    for (let i = 0; i < 100 && (await get('/api/v1/blocks')).body.total <= head; i++) await new Promise((r) => setTimeout(r, 50));

    await t.test('the list: newest first, each status, by subject and requester, combined', async (t) => {
      const all = await get('/api/v1/verifications');
      t.match(all.body, { total: 4, page: 1, limit: 20 });
      t.same(all.body.data.map((v: { request_id: string }) => v.request_id), [pending.id, expiring.id, unmet.id, met.id]);
      const status = async (q: string) => (await get(`/api/v1/verifications?${q}`)).body;
      t.match(await status('status=final'), { total: 2, data: [{ request_id: unmet.id, verified: false }, { request_id: met.id, verified: true }] });
      t.match(await status('status=expired'), { total: 1, data: [{ request_id: expiring.id, status: 'expired', verified: null, final_height: null }] });
      t.match(await status('status=pending'), { total: 1, data: [{ request_id: pending.id }] });
      t.equal((await status(`subject=${subjectDid}`)).total, 4);
      t.equal((await status(`requester=${requesterDid}`)).total, 4);
      t.equal((await status(`subject=${requesterDid}`)).total, 0);
      t.match(await status(`subject=${subjectDid}&status=final&limit=1&page=2`), { total: 2, page: 2, limit: 1, data: [{ request_id: met.id }] }, 'combined filters count their matches');
      t.match(await status(`requester=${requesterDid}&subject=${subjectDid}&status=pending`), { total: 1, data: [{ request_id: pending.id }] });
      for (const q of ['status=done', 'subject=nobody', `subject=${subjectDid!.replace('testnet', 'mainnet')}`, 'limit=101']) {
        const bad = await get(`/api/v1/verifications?${q}`);
        t.equal(bad.status, 400, q);
        t.match(bad.body, { title: 'Bad Request' });
      }
    });

    await t.test('the detail: the row, the required claims, the committee and the response as the chain holds them', async (t) => {
      const v = (await get(`/api/v1/verifications/${encodeURIComponent(met.id)}`)).body;
      t.match(v, {
        request_id: met.id,
        requester_did: requesterDid,
        subject_did: subjectDid,
        purpose: 'account opening',
        claim_types: ['KYCCredential'],
        fee: '100000',
        status: 'final',
        verified: true,
        answers: 1,
        request_height: Number,
        final_height: Number,
        tx_hash: met.txHash,
        required_claims: claims,
        live: { status: 'final', answers: 1, threshold: 1, committee_size: 1 },
        response: { requestId: met.id, status: 'final', verified: true, claims: [{ type: 'KYCCredential', satisfied: true, issuer: issuerDid, proofType: 'direct' }], presentationHash: /^[0-9a-f]{64}$/ },
      });
      t.notOk('pos' in v, 'the index position stays inside');
      const text = JSON.stringify(v);
      for (const personal of ['credentialSubject', 'verifiedAttributes', 'jurisdiction', 'proofValue']) t.notOk(text.includes(personal), `no ${personal}`);
      t.match((await get(`/api/v1/verifications/${unmet.id}`)).body, { status: 'final', verified: false, response: { verified: false, claims: [{ satisfied: false, reason: 'not_presented' }] } });
      t.match((await get(`/api/v1/verifications/${expiring.id}`)).body, { status: 'expired', live: { status: 'expired' }, response: { status: 'expired', verified: false } });
      t.match((await get(`/api/v1/verifications/${pending.id}`)).body, { status: 'pending', verified: null, response: null });
      const missing = await get('/api/v1/verifications/no-such-request');
      t.equal(missing.status, 404);
      t.match(missing.body, { title: 'Not Found' });
      t.equal((await get(`/api/v1/verifications/${'x'.repeat(257)}`)).status, 400, 'longer than a request id can be');
    });

    await t.test('stats, search, transaction rows and the feed', async (t) => {
      t.same((await get('/api/v1/stats/network')).body.verifications, { total_requests: 4, pending: 1, final_verified: 1, final_not_verified: 1, expired: 1 });
      t.match((await get(`/api/v1/search?q=${met.id}`)).body, { total: 1, data: [{ type: 'verification', data: { request_id: met.id, verified: true } }] });
      t.match((await get(`/api/v1/txs/${met.txHash}`)).body, { type: 'VerificationRequest', amount: '100000', sender: addressFromPublicKey(requester!.publicKey) });
      const answers = (await get('/api/v1/txs?type=VerificationAnswer')).body;
      t.equal(answers.total, 2, "the committee's two answers");
      const messages = feed.filter((m) => m.type === 'verification').map((m) => m.data);
      t.ok(messages.some((d) => d.request_id === met.id && d.status === 'final' && d.verified === true), 'the feed sent the final row');
      t.ok(messages.some((d) => d.request_id === expiring.id && d.status === 'expired'), 'and the expiry');
    });
  });
}
t.teardown(stopPostgres);
