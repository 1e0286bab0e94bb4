import t from 'tap';
import { randomUUID } from 'node:crypto';
import { generateSeed, RpcClient, waitForReceipt } from '../../../../node/client/index.js';
import { presentForVerification, type KycBbsForm } from '../../../../node/client/presentation.js';
import { sign } from '../../../../node/crypto/ed25519.js';
import type { Credential } from '../../../../node/protocol/credential-document.js';
import { signVerificationRequest, type RequiredClaim } from '../../../../node/protocol/verification.js';
import { chainHelpers } from '../harness.js';
import { startKycWallet, type Holder, type KycWallet } from '../credentials/kyc-wallet.js';

/**
 * The whole way of a verification request through the wallet, all of it real: the KYC plugin
 * issues a credential, the wallet redeems it and keeps its BBS form; a relying party asks the
 * holder twice; the device reads the requests from the wallet, derives its presentations from
 * what the wallet serves (a BBS proof from the kept form, the W3C credential) and submits them to
 * the node, whose one validator answers as the committee. The wallet then shows each outcome.
 */

async function redeemed(k: KycWallet, h: Holder) {
  const { offer } = await k.verified(h.user.did);
  const first = await k.req('POST', '/v1/oid4vci/redeem', { cookie: h.cookie, body: { credentialOffer: offer } });
  if (first.status !== 200) throw new Error(`redeem: HTTP ${first.status} ${first.text}`);
  const proofSignature = Buffer.from(sign(h.seed, Buffer.from(first.body.signingInput, 'ascii'))).toString('base64url');
  const done = await k.req('POST', '/v1/oid4vci/redeem', { cookie: h.cookie, body: { redeemId: first.body.redeemId, proofSignature } });
  if (done.status !== 201) throw new Error(`redeem: HTTP ${done.status} ${done.text}`);
}

t.test('requests to the holder, presented from what the wallet keeps, and their outcomes', async (t) => {
  const k = await startKycWallet(t);
  const rpc = new RpcClient(k.node.url);
  const holder = await k.holder();
  await redeemed(k, holder);

  const requesterSeed = generateSeed();
  const requesterDid = await chainHelpers(k.node, rpc).createDid(requesterSeed);
  let nonce = 1;
  const ask = async (claims: RequiredClaim[]) => {
    const request = signVerificationRequest(
      { version: '1.0', requestId: `req-${randomUUID()}`, timestamp: Date.now(), requester: { did: requesterDid, purpose: 'age check at checkout' }, subject: { did: holder.user.did }, requiredClaims: claims, fee: '100000', chainId: k.node.chainId, nonce: nonce++ },
      requesterSeed,
    );
    const { txHash } = await rpc.call<{ txHash: string }>('ledger_submitVerificationRequest', [request]);
    t.equal((await waitForReceipt(rpc, txHash, { timeoutMs: 20_000 })).status, 'success');
    return request.requestId;
  };
  const byBbs = await ask([{ type: 'KYCCredential', constraints: { minimumLevel: 2 }, acceptZKProof: true }]);
  const tooHigh = await ask([{ type: 'KYCCredential', constraints: { minimumLevel: 3 }, acceptZKProof: false }]);

  // the device: its pending requests and its credentials, both from the wallet
  const pending = await k.req('GET', '/v1/verification-requests', { cookie: holder.cookie });
  t.equal(pending.status, 200, pending.text);
  t.same(pending.body.items.map((i: { requestId: string }) => i.requestId), [tooHigh, byBbs]);
  const [cached] = (await k.req('GET', '/v1/credentials', { cookie: holder.cookie })).body as Array<{ credential: Credential; bbs: KycBbsForm }>;
  t.ok(cached?.bbs, 'the BBS form is served with the credential');
  const presentations = await Promise.all(
    (pending.body.items as Array<{ requestId: string; requiredClaims: RequiredClaim[] }>).map((item) =>
      presentForVerification({
        request: { requestId: item.requestId, requiredClaims: item.requiredClaims, subject: { did: holder.user.did } },
        holderSeed: holder.seed,
        holderDid: holder.user.did,
        chainId: k.node.chainId,
        credentials: [item.requestId === byBbs ? { claim: 0, bbs: cached!.bbs } : { claim: 0, direct: cached!.credential }],
      }),
    ),
  );
  for (let i = 0; i < 600; i++) {
    // a member that could not check one in time drops it, and the device presents again
    if (i % 100 === 0) for (const p of presentations) await rpc.call('ledger_submitPresentation', [p]).catch(() => undefined);
    const final = await k.req('GET', '/v1/verification-requests?status=final', { cookie: holder.cookie });
    if (final.body.items?.length === 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }

  const final = await k.req('GET', '/v1/verification-requests?status=final', { cookie: holder.cookie });
  const [high, bbs] = final.body.items;
  t.match(bbs, {
    requestId: byBbs,
    status: 'final',
    requester: { did: requesterDid, purpose: 'age check at checkout' },
    blocksLeft: null,
    answers: 1,
    outcome: { verified: true, claims: [{ type: 'KYCCredential', satisfied: true, reason: null, proofType: 'zk-snark' }], finalHeight: Number, finalizedAt: Number, presentationHash: /^[0-9a-f]{64}$/, agreedValidators: 1 },
  }, 'met by a BBS proof derived from the form the wallet kept');
  t.match(high, { requestId: tooHigh, outcome: { verified: false, claims: [{ satisfied: false, reason: 'constraint_not_met:minimumLevel', proofType: 'direct' }] } }, 'a level-2 credential does not meet level 3, and the reason says so');
  t.same((await k.req('GET', '/v1/verification-requests', { cookie: holder.cookie })).body, { items: [], nextCursor: null }, 'nothing pending any more');
  const text = JSON.stringify(final.body);
  for (const personal of ['birthDate', 'verifiedAttributes', 'credentialSubject']) t.notOk(text.includes(personal), `no ${personal} in what the chain answered`);
});
