import t from 'tap';
import { randomUUID } from 'node:crypto';
import {
  buildCredential,
  buildCredentialRequest,
  buildCredentialRevoke,
  buildDidCreate,
  buildTransfer,
  credentialHash,
  didForPublicKey,
  generateSeed,
  keyPairFromSeed,
  signAndEncode,
  UNIT,
  waitForReceipt,
  type RpcClient,
} from '../../node/client/index.js';
import { bbsDeriveProof, bbsKeyPair, bbsSign } from '../../node/crypto/bbs.js';
import { toHex, utf8 } from '../../node/protocol/bytes.js';
import { KYC_BBS_FIELDS, KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, kycBbsIndex, kycBbsMessages, type KycBbsField } from '../../node/protocol/kyc-bbs.js';
import { verifyVerificationResponse, type LedgerVerificationResponse } from '../../node/protocol/verification-response.js';
import { signVerificationRequest, type VerificationRequest } from '../../node/protocol/verification.js';
import { presentationHeader, signPresentation, type Presentation } from '../../node/verification/presentation.js';
import { Cluster } from './cluster.js';

/**
 * Verification requests on a 4-validator devnet of real processes: KYC credentials with a BBS
 * form are registered by the committee; a dApp asks "KYC level ≥ 2 and at least 18"; the subject
 * presents with BBS selective disclosure; the validators check it and answer on chain; the final
 * response verifies offline against the validator set. Then the refusals and the other outcomes,
 * each charged once: an under-age subject, a revoked credential, a forged presentation, another
 * DID's presentation, an over-disclosing one, a duplicate request, an expired deadline.
 */

const STRUCTURAL: KycBbsField[] = ['id', 'type', 'issuer', 'subject', 'issuanceDate', 'expirationDate'];

/** The LedgerError code a refused call carries in its JSON-RPC error data, or "accepted". */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'accepted';
  } catch (err) {
    return String((err as { data?: { code?: string } }).data?.code ?? (err as Error).message);
  }
}

t.test('the verification flow on a 4-validator devnet', async (t) => {
  const c = await Cluster.create(t, 4);
  await c.startAll();
  await c.waitForSeq([0, 1, 2, 3], 2, 60_000);
  const rpc: RpcClient = c.nodes[0]!.client;
  const other: RpcClient = c.nodes[2]!.client;
  const nonces = new Map<string, number>();
  const send = async (unsigned: Parameters<typeof signAndEncode>[1], seed: Uint8Array) => {
    const s = signAndEncode(c.chainId, unsigned, seed);
    await rpc.sendTransaction(s.json);
    return waitForReceipt(rpc, s.hash, { timeoutMs: 30_000 });
  };
  const party = async () => {
    const keys = keyPairFromSeed(generateSeed());
    const did = didForPublicKey('testnet', keys.publicKey);
    const address = did.split(':')[3]!;
    t.equal((await send(buildTransfer({ senderPubkey: c.dev.publicKey, nonce: nonces.get('dev') ?? 0, to: address, amount: 100n * UNIT }), c.dev.seed)).status, 'success');
    nonces.set('dev', (nonces.get('dev') ?? 0) + 1);
    t.equal((await send(buildDidCreate({ senderPubkey: keys.publicKey, nonce: 0 }), keys.seed)).status, 'success');
    nonces.set(address, 1);
    return { keys, did, address, nonce: () => nonces.get(address)!, used: () => nonces.set(address, nonces.get(address)! + 1) };
  };
  const [issuer, dapp, adult, minor, stranger] = [await party(), await party(), await party(), await party(), await party()];
  const bbs = await bbsKeyPair();

  /** a registered KYC level-2 credential for `holder`, and its BBS form */
  const issue = async (holder: typeof adult, birthDate: string) => {
    const position = await rpc.nextRevocationIndex(issuer.did);
    const uuid = randomUUID();
    const attrs = { issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2030-01-01T00:00:00Z' };
    const body = buildCredential({
      uuid,
      type: 'KYCCredential',
      kycLevel: 2,
      issuer: { did: issuer.did, name: 'Example KYC' },
      subject: { did: holder.did, verifiedAttributes: ['governmentId', 'liveness'], jurisdiction: 'DE' },
      ...attrs,
      status: { listUrl: `${c.nodes[0]!.rpcUrl}/revocation-lists/${issuer.did}/0`, index: position.status_index },
    });
    const requested = await send(
      buildCredentialRequest({
        senderPubkey: issuer.keys.publicKey,
        nonce: issuer.nonce(),
        credentialId: uuid,
        credentialType: 'KYCCredential',
        kycLevel: 2,
        subjectDid: holder.did,
        issuerDid: issuer.did,
        hash: await credentialHash(body),
        evidenceDigest: new Uint8Array(32).fill(1),
        statusList: position.status_list,
        statusIndex: position.status_index,
        bbs: { publicKey: bbs.publicKey, messageCount: KYC_BBS_MESSAGE_COUNT },
      }),
      issuer.keys.seed,
    );
    issuer.used();
    t.equal(requested.status, 'success');
    const id = `urn:ledger:credential:${uuid}`;
    await c.waitFor(async () => (await rpc.getCredentialRequest(id))?.status === 'registered', 60_000, `registration of ${id}`);
    const messages = kycBbsMessages({ id, issuer: issuer.did, subject: holder.did, ...attrs, kycLevel: 2, jurisdiction: 'DE', birthDate, verifiedAttributes: ['governmentId', 'liveness'] });
    const signature = await bbsSign({ secretKey: bbs.secretKey, publicKey: bbs.publicKey, header: KYC_BBS_HEADER, messages });
    return { id, messages, signature };
  };
  const adultCredential = await issue(adult, '1990-05-17');
  const minorCredential = await issue(minor, '2015-05-17');
  const revokedCredential = await issue(adult, '1990-05-17');
  t.equal((await send(buildCredentialRevoke({ senderPubkey: issuer.keys.publicKey, nonce: issuer.nonce(), credentialId: revokedCredential.id }), issuer.keys.seed)).status, 'success');
  issuer.used();

  const request = (o: Partial<VerificationRequest> = {}): VerificationRequest => {
    const r = signVerificationRequest(
      {
        version: '1.0',
        requestId: randomUUID(),
        timestamp: Date.now(),
        requester: { did: dapp.did, purpose: 'age and identity check at signup' },
        subject: { did: adult.did },
        requiredClaims: [{ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 }, acceptZKProof: true }],
        fee: '1000000',
        chainId: c.chainId,
        nonce: dapp.nonce(),
        ...o,
      },
      dapp.keys.seed,
    );
    return r;
  };
  const submit = async (r: VerificationRequest) => {
    const out = await rpc.call<{ requestId: string; txHash: string }>('ledger_submitVerificationRequest', [r]);
    dapp.used();
    t.equal((await waitForReceipt(rpc, out.txHash, { timeoutMs: 30_000 })).status, 'success', `request ${r.requestId} executes`);
    return out;
  };
  const present = async (r: VerificationRequest, holder: typeof adult, cred: typeof adultCredential, extra: KycBbsField[], o: { signer?: Uint8Array; holderDid?: string } = {}): Promise<Presentation> => {
    const holderDid = o.holderDid ?? holder.did;
    const indexes = [...STRUCTURAL, ...extra].map(kycBbsIndex).sort((a, b) => a - b);
    const proof = await bbsDeriveProof({
      publicKey: bbs.publicKey,
      signature: cred.signature,
      header: KYC_BBS_HEADER,
      messages: cred.messages,
      presentationHeader: presentationHeader(c.chainId, r.requestId, holderDid),
      disclosedIndexes: indexes,
    });
    return signPresentation(
      {
        version: '1.0',
        requestId: r.requestId,
        holder: holderDid,
        credentials: [{ claim: 0, proofType: 'bbs', credentialId: cred.id, disclosed: indexes.map((i) => ({ index: i, message: new TextDecoder().decode(cred.messages[i]) })), proof: toHex(proof) }],
      },
      o.signer ?? holder.keys.seed,
    );
  };
  const response = (id: string) => rpc.call<LedgerVerificationResponse | null>('ledger_getVerificationResponse', [id]);
  const final = async (id: string) => {
    await c.waitFor(async () => (await response(id))?.status === 'final', 60_000, `the response to ${id}`);
    return (await response(id))!;
  };
  const epoch = await rpc.call<{ validators: Array<{ address: string }> }>('ledger_getEpoch');
  const validators = epoch.validators.map((v) => v.address);
  const balance = async (who: { address: string }) => BigInt(await rpc.getBalance(who.address));

  await t.test('a subject of age with a level-2 credential: verified, signed by the threshold, checkable offline', async (t) => {
    const before = await balance(dapp);
    const r = request();
    const { requestId } = await submit(r);
    t.match(await rpc.call('ledger_getVerificationRequests', [adult.did]), [{ request: { requestId }, status: 'pending', threshold: 3, committee_size: 4 }], 'the wallet sees what is asked');
    t.equal(await response(requestId), null, 'no response while pending');
    // the presentation enters at another node: it reaches the committee over the peer network
    const sent = await other.call<{ peers: number; answeringHere: boolean }>('ledger_submitPresentation', [await present(r, adult, adultCredential, ['kycLevel', 'ageOver18'])]);
    t.equal(sent.peers, 3);
    const res = await final(requestId);
    t.equal(res.verified, true);
    t.match(res.claims, [{ type: 'KYCCredential', satisfied: true, issuer: issuer.did, proofType: 'zk-snark', zkProofReference: /^bbs-bls12381-sha256:[0-9a-f]{64}$/ }]);
    t.ok(res.validatorSignatures.length >= 3, `${res.validatorSignatures.length} validators signed`);
    t.match(res.consensusProof, { totalValidators: 4, threshold: 3 });
    const check = verifyVerificationResponse({ response: res, request: r, validators, chainId: c.chainId });
    t.same({ valid: check.valid, verified: check.verified, problems: check.problems }, { valid: true, verified: true, problems: [] }, 'it verifies offline from the validator set alone');
    const forged = { ...res, claims: [{ ...res.claims[0]!, satisfied: false }] };
    t.notOk(verifyVerificationResponse({ response: forged, request: r, validators, chainId: c.chainId }).valid, 'a changed result does not');
    t.notOk(verifyVerificationResponse({ response: res, request: r, validators: validators.slice(0, 1), chainId: c.chainId }).valid, 'nor against another set');
    t.same((await rpc.getEpoch(res.finalHeight!))?.validators.map((v) => v.address), validators, 'the set of the epoch it became final in');
    const metric = async (name: string) => {
      const texts = await Promise.all(c.nodes.map(async (n) => (await fetch(`${n.rpcUrl}/metrics`)).text()));
      return texts.map((text) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]));
    };
    const sum = (values: number[]) => values.reduce((x, y) => x + y, 0);
    t.ok(sum(await metric('ledger_bbs_batched_proofs_total')) >= 3, 'the committee checked the BBS proof in the verification pools');
    t.ok(sum(await metric('ledger_verification_answer_transactions_total')) >= res.validatorSignatures.length, 'the answers left in transactions, counted');
    // a standby member whose turn came before the response was final (a loaded machine) may still be checking
    await c.waitFor(async () => (await metric('ledger_verification_checks_pending')).every((v) => v === 0), 30_000, 'no check left waiting');
    t.pass('no check left waiting once the response is final');
    const paid = before - (await balance(dapp));
    const receipt = await rpc.getReceipt((await rpc.call<{ tx_hash: string }>('ledger_getVerificationRequest', [requestId])).tx_hash);
    t.equal(paid, 1_000_000n + BigInt(receipt!.fee_paid), 'the dApp paid its fee and one transaction fee, once');
    t.match(await rpc.call('ledger_getVerificationRequests', [adult.did, 'final']), [{ request: { requestId }, status: 'final' }]);
  });

  await t.test('a wallet that presents as the dApp submits, before the request is in a block: the node waits for it', async (t) => {
    const r = request();
    const out = await rpc.call<{ requestId: string; txHash: string }>('ledger_submitVerificationRequest', [r]);
    dapp.used();
    // the request is in this node's mempool, not yet in a block: the presentation waits here for it
    const sent = await rpc.call<{ peers: number; answeringHere: boolean }>('ledger_submitPresentation', [await present(r, adult, adultCredential, ['kycLevel', 'ageOver18'])]);
    t.equal(sent.peers, 3);
    t.equal((await final(out.requestId)).verified, true);
    const never = request();
    t.equal(await codeOf(rpc.call('ledger_submitPresentation', [await present(never, adult, adultCredential, ['kycLevel', 'ageOver18'])])), 'UNKNOWN_VERIFICATION_REQUEST', 'a request this node never saw is refused after a short grace');
  });

  await t.test('an under-age subject: final, not verified, with the reason', async (t) => {
    const r = request({ subject: { did: minor.did } });
    await submit(r);
    await rpc.call('ledger_submitPresentation', [await present(r, minor, minorCredential, ['kycLevel', 'birthDate'])]);
    const res = await final(r.requestId);
    t.equal(res.verified, false);
    t.match(res.claims, [{ satisfied: false, reason: 'constraint_not_met:minimumAge' }]);
    t.ok(verifyVerificationResponse({ response: res, request: r, validators, chainId: c.chainId }).valid, 'a negative answer is as checkable');
  });

  await t.test('a revoked credential: final, not verified', async (t) => {
    const r = request();
    await submit(r);
    await rpc.call('ledger_submitPresentation', [await present(r, adult, revokedCredential, ['kycLevel', 'ageOver18'])]);
    const res = await final(r.requestId);
    t.equal(res.verified, false);
    t.match(res.claims, [{ satisfied: false, reason: 'revoked' }]);
  });

  await t.test('forged, misdirected and over-disclosing presentations are refused, and the request expires unanswered with its fee back', async (t) => {
    const r = request({ validForBlocks: 20 });
    const before = await balance(dapp);
    const { txHash } = await submit(r);
    const refused = async (p: Presentation, code: string) => t.equal(await codeOf(rpc.call('ledger_submitPresentation', [p])), code);
    await refused(await present(r, adult, adultCredential, ['kycLevel', 'ageOver18'], { signer: stranger.keys.seed }), 'BAD_PRESENTATION_SIGNATURE');
    await refused(await present(r, stranger, adultCredential, ['kycLevel', 'ageOver18']), 'WRONG_HOLDER');
    await refused(await present(r, adult, adultCredential, ['kycLevel', 'ageOver18', 'jurisdiction']), 'OVER_DISCLOSURE');
    await c.waitFor(async () => (await response(r.requestId))?.status === 'expired', 90_000, 'expiry');
    const res = (await response(r.requestId))!;
    t.match(res, { status: 'expired', verified: false, claims: [], validatorSignatures: [] });
    const fee = BigInt((await rpc.getReceipt(txHash))!.fee_paid);
    t.equal(before - (await balance(dapp)), fee, 'only the transaction fee is kept: the request fee came back');
    await refused(await present(r, adult, adultCredential, ['kycLevel', 'ageOver18']), 'REQUEST_CLOSED');
  });

  await t.test('bad requests are refused before the mempool, and nothing is charged twice', async (t) => {
    const before = await balance(dapp);
    const refused = async (r: unknown, code: string) => t.equal(await codeOf(rpc.call('ledger_submitVerificationRequest', [r])), code);
    await refused(request({ fee: '99999' }), 'FEE_TOO_LOW');
    await refused({ ...request(), purpose: 'x' }, 'BAD_VERIFICATION_REQUEST');
    await refused({ ...request(), fee: '2000000' }, 'BAD_SIGNATURE');
    await refused(request({ chainId: 'another-chain' }), 'WRONG_CHAIN');
    await refused(request({ subject: { did: didForPublicKey('testnet', keyPairFromSeed(generateSeed()).publicKey) } }), 'UNKNOWN_DID');
    await refused(request({ requiredClaims: [{ type: 'KYCCredential', constraints: { favouriteColour: 'red' }, acceptZKProof: true }] }), 'BAD_VERIFICATION_REQUEST');
    t.equal(await balance(dapp), before, 'nothing charged for refused requests');
    const r = request();
    await submit(r);
    const after = await balance(dapp);
    t.equal(await codeOf(rpc.call('ledger_submitVerificationRequest', [r])), 'DUPLICATE_REQUEST_ID', 'the same request again');
    await refused(request({ requestId: r.requestId }), 'DUPLICATE_REQUEST_ID');
    t.equal(await balance(dapp), after, 'and nothing charged twice');
  });
});
