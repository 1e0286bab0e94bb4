import t, { type Test } from 'tap';
import {
  buildVerificationRequest,
  feeFor,
  generateSeed,
  presentForVerification,
  RpcClient,
  RpcError,
  verifyVerificationResponse,
  waitForReceipt,
  waitForVerificationResponse,
  type KycBbsForm,
  type LedgerVerificationResponse,
  type VerificationRequest,
} from '../../node/client/index.js';
import type { AccountKey } from '../../node/config/keyfile.js';
import { startTestNode } from '../fixtures/real-node.js';
import { bornYearsAgo, chainOf, fundedDid, issueKycBbs, retryBusy } from './fixtures/kyc-bbs.js';

/**
 * Verification requests end to end on a real single-validator node, through the client only: a
 * dApp requests (minimumLevel 2, minimumAge 18), the subject presents a BBS proof of its KYC
 * credential, the validator (the whole committee) answers on chain, and the dApp checks the
 * response offline; an under-age subject gets verified: false; a forged presentation is refused;
 * a request nobody answers expires and its fee comes back.
 */

const KYC_ADULT = [{ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 } }];

t.test('request, present with BBS, final response checked offline; under age; forged; expired', async (t) => {
  const node = await startTestNode(t);
  const rpc = new RpcClient(node.url);
  const chain = await chainOf(node, rpc);
  const requester = await fundedDid(chain);
  const adult = await fundedDid(chain);
  const minor = await fundedDid(chain);
  const adultCredential = await issueKycBbs(chain, adult.did, '1990-05-17');
  const minorCredential = await issueKycBbs(chain, minor.did, bornYearsAgo(16));
  t.equal(minorCredential.form.messages[10], 'ageOver18=false', 'the minor was under 18 at issuance');

  const request = async (t: Test, subject: AccountKey, over: { validForBlocks?: number } = {}): Promise<VerificationRequest> => {
    const signed = buildVerificationRequest({
      requesterSeed: requester.seed,
      subjectDid: subject.did,
      claims: KYC_ADULT,
      purpose: 'account opening',
      chainId: node.chainId,
      nonce: await rpc.getNonce(requester.address, { pending: true }),
      ...over,
    });
    const submitted = await retryBusy(() => rpc.submitVerificationRequest(signed));
    t.equal(submitted.requestId, signed.requestId);
    const receipt = await waitForReceipt(rpc, submitted.txHash, { timeoutMs: 30_000 });
    t.equal(receipt.status, 'success', `the request transaction executed: ${JSON.stringify(receipt.events)}`);
    return signed;
  };
  const present = async (t: Test, req: VerificationRequest, holder: AccountKey, form: KycBbsForm, seed = holder.seed) => {
    const view = await rpc.getVerificationRequest(req.requestId);
    t.equal(view?.status, 'pending');
    const presentation = await presentForVerification({ request: view!.request, holderSeed: seed, holderDid: holder.did, chainId: node.chainId, credentials: [{ claim: 0, bbs: form }] });
    return { presentation, submitted: retryBusy(() => rpc.submitPresentation(presentation)) };
  };
  const checkOffline = async (response: LedgerVerificationResponse, req: VerificationRequest) => {
    const epoch = await rpc.getEpoch();
    return verifyVerificationResponse({ response, request: req, validators: epoch!.validators.map((v) => v.address), chainId: node.chainId });
  };

  await t.test('an adult subject: verified, and the response checks offline', async (t) => {
    const req = await request(t, adult);
    const listed = await rpc.getVerificationRequests(adult.did);
    t.same(listed.map((v) => v.request.requestId), [req.requestId], 'the subject sees the pending request');
    const { presentation, submitted } = await present(t, req, adult, adultCredential.form);
    const entry = presentation.credentials[0]!;
    t.equal(entry.proofType, 'bbs');
    if (entry.proofType === 'bbs') {
      t.same(entry.disclosed.map((d) => d.message.split('=')[0]), ['id', 'type', 'issuer', 'subject', 'issuanceDate', 'expirationDate', 'kycLevel', 'ageOver18'], 'the structure, the level and ageOver18: no birth date, no jurisdiction');
    }
    t.match(await submitted, { requestId: req.requestId, presentationHash: /^[0-9a-f]{64}$/, answeringHere: true });
    const response = await waitForVerificationResponse(rpc, req.requestId, { timeoutMs: 60_000 });
    t.match(response, { status: 'final', verified: true, requestId: req.requestId, chainId: node.chainId, consensusProof: { totalValidators: 1, agreedValidators: 1, threshold: 1 } });
    t.match(response.claims, [{ type: 'KYCCredential', satisfied: true, proofType: 'zk-snark', issuer: node.dev.did, zkProofReference: /^bbs-bls12381-sha256:[0-9a-f]{64}$/ }]);
    t.same(await checkOffline(response, req), { valid: true, verified: true, signers: 1, threshold: 1, problems: [] });
    const tampered = await checkOffline({ ...response, claims: [{ ...response.claims[0]!, issuer: 'did:ledger:testnet:someone-else' }] }, req);
    t.match(tampered, { valid: false, verified: false, signers: 0 }, 'a response whose claims were changed does not check');
    t.match(await rpc.getVerificationRequest(req.requestId), { status: 'final', answers: 1 });
  });

  await t.test('an under-age subject: final, verified false', async (t) => {
    const req = await request(t, minor);
    const { presentation, submitted } = await present(t, req, minor, minorCredential.form);
    const entry = presentation.credentials[0]!;
    if (entry.proofType === 'bbs') t.ok(entry.disclosed.some((d) => d.message.startsWith('birthDate=')), 'ageOver18 is false, so the birth date is disclosed');
    await submitted;
    const response = await waitForVerificationResponse(rpc, req.requestId, { timeoutMs: 60_000 });
    t.match(response, { status: 'final', verified: false });
    t.match(response.claims, [{ satisfied: false, reason: 'constraint_not_met:minimumAge' }]);
    t.same(await checkOffline(response, req), { valid: true, verified: false, signers: 1, threshold: 1, problems: [] }, 'a valid response that does not verify the subject');
  });

  await t.test('a presentation signed by another key is refused', async (t) => {
    const req = await request(t, adult);
    const { submitted } = await present(t, req, adult, adultCredential.form, generateSeed());
    const err = await submitted.then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof RpcError, String(err));
    t.match(err, { code: -32602, data: { code: 'BAD_PRESENTATION_SIGNATURE' } });
    t.equal((await rpc.getVerificationRequest(req.requestId))?.status, 'pending', 'the request stays open for the real subject');
    await t.rejects(waitForVerificationResponse(rpc, req.requestId, { timeoutMs: 300, intervalMs: 100 }), { code: 'RESPONSE_TIMEOUT', data: { requestId: req.requestId } }, 'no response while it is pending');
  });

  await t.test('a request nobody answers expires and its fee comes back', async (t) => {
    const before = await rpc.getBalance(requester.address);
    const req = await request(t, adult, { validForBlocks: 5 });
    t.equal(await rpc.getBalance(requester.address), before - feeFor('VerificationRequest') - BigInt(req.fee), 'the fee is held while it is open');
    const response = await waitForVerificationResponse(rpc, req.requestId, { timeoutMs: 60_000 });
    t.match(response, { status: 'expired', verified: false, claims: [], validatorSignatures: [], presentationHash: null });
    t.equal(await rpc.getBalance(requester.address), before - feeFor('VerificationRequest'), 'only the transaction fee is spent');
    t.match(await checkOffline(response, req), { valid: false, verified: false });
    const expired = await rpc.getVerificationRequests(adult.did, 'expired');
    t.ok(expired.some((v) => v.request.requestId === req.requestId));
  });
});
