import { randomUUID } from 'node:crypto';
import t from 'tap';
import {
  addressFromPublicKey,
  buildDidDeactivate,
  buildDidRecover,
  buildSetRecoveryPolicy,
  buildTransfer,
  generateSeed,
  guardianSignature,
  keyPairFromSeed,
  signAndEncode,
  toHex,
  waitForReceipt,
} from '../../../../node/client/index.js';
import { ed25519PublicKeyMultibase } from '../../../../node/crypto/multibase.js';
import { recoveryMessage } from '../../../../node/protocol/recovery.js';
import { UUID_V4 } from '../../../../plugins/wallet/guardians/recovery.js';
import type { SignedIn } from '../harness.js';
import { initiate as initiateWith, startGuardians, type GuardianHarness } from './fixture.js';

const raw = (h: GuardianHarness, path: string, text: string, cookie?: string) =>
  h.req('POST', path, { raw: text, headers: { 'content-type': 'application/json' }, ...(cookie ? { cookie } : {}) });

/** the signed transaction's JSON with one signature byte flipped */
function tampered(json: string): string {
  const o = JSON.parse(json);
  o.signature[0] ^= 1;
  return JSON.stringify(o);
}

async function committed(h: GuardianHarness, hash: string): Promise<{ status: string; events: Array<Record<string, unknown>> }> {
  return (await waitForReceipt(h.rpc, hash, { timeoutMs: 20_000 })) as never;
}

t.test('a DID recovered by its guardians through the wallet: policy, initiate, approve, finalize; the old key is done', async (t) => {
  const h = await startGuardians(t);
  const chainId = h.node.chainId;
  const [owner, g1, g2, stranger] = await Promise.all([h.signIn({ onChain: true }), h.signIn({ onChain: true }), h.signIn({ onChain: true }), h.signIn({ onChain: true })]);
  await h.makeGuardian(owner, g1);
  await h.makeGuardian(owner, g2);
  const did = owner.user.did;

  // the owner prepares and signs its policy on the device; the wallet relays it unchanged
  const prep = await h.req('GET', '/v1/guardian/recovery-prep', { cookie: owner.cookie });
  t.same(prep.body, { did, nonce: 1, address: owner.user.address, versionId: 1, policy: null, guardians: [g1.user.did, g2.user.did] });
  t.same((await h.req('GET', '/v1/guardian/recovery-prep')).body, { error: 'Unauthorized' });
  const policyTx = (seed: Uint8Array, o: { did?: string; nonce?: number } = {}) =>
    signAndEncode(chainId, buildSetRecoveryPolicy({ senderPubkey: keyPairFromSeed(seed).publicKey, nonce: o.nonce ?? prep.body.nonce, did: o.did ?? did, guardians: prep.body.guardians, threshold: 2, delayBlocks: 0 }), seed);
  const transfer = signAndEncode(chainId, buildTransfer({ senderPubkey: owner.publicKey, nonce: 1, to: g1.user.address, amount: 1n }), owner.seed);
  const refused: Array<[string, string | undefined, number, Record<string, unknown>]> = [
    [policyTx(owner.seed).json, undefined, 401, { error: 'Unauthorized' }],
    ['{"nonce":', owner.cookie, 400, { detail: /not valid JSON/ }],
    ['[]', owner.cookie, 400, {}],
    ['{"sender_pubkey":[1]}', owner.cookie, 400, {}],
    [transfer.json, owner.cookie, 400, { detail: /SetRecoveryPolicy, not a Transfer/ }],
    [signAndEncode(chainId, buildSetRecoveryPolicy({ senderPubkey: owner.publicKey, nonce: 1, did: g1.user.did, guardians: [g2.user.did], threshold: 1 }), owner.seed).json, owner.cookie, 403, { code: 'NOT_YOUR_DID' }],
    [policyTx(g1.seed, { nonce: 1 }).json, owner.cookie, 403, { code: 'NOT_YOUR_KEY' }],
    [tampered(policyTx(owner.seed).json), owner.cookie, 403, { code: 'BAD_SIGNATURE' }],
    [JSON.stringify({ ...JSON.parse(policyTx(owner.seed).json), seed: toHex(owner.seed) }), owner.cookie, 400, { code: 'PRIVATE_KEY_REFUSED' }],
  ];
  for (const [text, cookie, status, body] of refused) t.match(await raw(h, '/v1/guardian/policy', text, cookie), { status, body }, `policy: ${status} ${text.slice(0, 40)}`);
  const policy = policyTx(owner.seed);
  const relayed = await raw(h, '/v1/guardian/policy', policy.json, owner.cookie);
  t.same([relayed.status, relayed.body], [200, { hash: policy.hash }], 'relayed byte for byte: the same hash');
  t.match(await committed(h, policy.hash), { status: 'success', events: [{ type: 'RecoveryPolicySet', did, threshold: 2, delay_blocks: 0 }] });
  t.match((await h.req('GET', '/v1/guardian/recovery-prep', { cookie: owner.cookie })).body, { nonce: 2, versionId: 2, policy: { guardians: [g1.user.did, g2.user.did], threshold: 2, delay_blocks: 0, pending: null } });

  // the phone is lost: a new key on a new device asks for recovery, with no session
  const newSeed = generateSeed();
  const newKey = keyPairFromSeed(newSeed).publicKey;
  const initiate = (body: Record<string, unknown>) => initiateWith(h, body);
  const notOnChain = `did:ledger:${h.parts.base.network}:${addressFromPublicKey(keyPairFromSeed(generateSeed()).publicKey)}`;
  const badInitiates: Array<[Record<string, unknown>, number, RegExp | Record<string, unknown>]> = [
    [{ subjectDid: notOnChain, newPublicKey: toHex(newKey) }, 404, /does not exist on chain/],
    [{ subjectDid: g1.user.did, newPublicKey: toHex(newKey) }, 409, /no recovery policy/],
    [{ subjectDid: did, newPublicKey: 'xyz' }, 400, /64 hex/],
    [{ subjectDid: did, newPublicKey: owner.user.publicKey }, 400, /current key/],
    [{ subjectDid: did }, 400, /newPublicKey is required/],
    [{ subjectDid: did, newPublicKey: toHex(newKey), reason: 'x' }, 400, /unknown field reason/],
    [{ subjectDid: did, newPublicKey: toHex(newKey), mnemonic: 'abandon abandon' }, 400, /never accepts private keys/],
  ];
  for (const [body, status, detail] of badInitiates) t.match(await initiate(body), { status, body: { status, detail } }, `initiate: ${status} ${JSON.stringify(body).slice(0, 60)}`);

  const started = await initiate({ subjectDid: did, newPublicKey: toHex(newKey).toUpperCase() });
  t.equal(started.status, 201);
  const requestId: string = started.body.requestId;
  t.match(requestId, UUID_V4, 'an unguessable v4 UUID');
  const message = toHex(recoveryMessage({ chainId, did, newPublicKey: newKey, versionId: 2 }));
  t.same(started.body, { requestId, subjectDid: did, newPublicKey: toHex(newKey), versionId: 2, threshold: 2, guardians: [g1.user.did, g2.user.did], recoveryMessage: message, proofBits: started.body.proofBits, approvals: 0, expiresAt: started.body.expiresAt });
  t.ok(started.body.proofBits >= 6, 'the proof of work is worth at least the bits asked');
  // a second request for another key, to be made stale by the first one's success
  const otherKey = keyPairFromSeed(generateSeed()).publicKey;
  const other = await initiate({ subjectDid: did, newPublicKey: toHex(otherKey) });
  t.equal(other.status, 201);

  const status = (id: string) => h.req('GET', `/v1/guardian/recovery/${id}`);
  const fresh = await status(requestId);
  t.match(fresh, { status: 200, body: { requestId, status: 'collecting', threshold: 2, versionId: 2, txHash: null } });
  t.same(fresh.body.approvals, []);
  t.match(await status('not-a-uuid'), { status: 400, body: { field: 'requestId' } });
  const v4 = randomUUID();
  t.match(await status(`${v4.slice(0, 14)}1${v4.slice(15)}`), { status: 400 }, 'a UUID of another version');
  const unknown = randomUUID();
  t.match(await status(unknown), { status: 404 });
  t.match(await h.req('POST', `/v1/guardian/recovery/${unknown}/approve`, { cookie: g1.cookie, body: { signature: '00'.repeat(64) } }), { status: 404 });
  t.match(await h.req('POST', '/v1/guardian/recovery/nope/approve', { cookie: g1.cookie, body: { signature: '00'.repeat(64) } }), { status: 400 });
  t.match(await raw(h, `/v1/guardian/recovery/${unknown}/finalize`, policy.json), { status: 404 });

  // the guardians see the request and approve it with their own keys
  const pendingOf = async (who: SignedIn) => (await h.req('GET', '/v1/guardian/pending-requests', { cookie: who.cookie })).body.map((r: { requestId: string }) => r.requestId).sort();
  t.same(await pendingOf(g1), [requestId, other.body.requestId].sort());
  t.match((await h.req('GET', '/v1/guardian/pending-requests', { cookie: g2.cookie })).body.find((r: { requestId: string }) => r.requestId === requestId), { subjectDid: did, recoveryMessage: message, approvals: 0, threshold: 2 });
  t.same(await pendingOf(stranger), []);
  const sign = (who: SignedIn, versionId = 2, key = newKey) => guardianSignature({ chainId, did, newPublicKey: key, versionId, guardianSeed: who.seed });
  const approve = (who: SignedIn | null, signature: unknown, id = requestId) =>
    h.req('POST', `/v1/guardian/recovery/${id}/approve`, { body: { signature }, ...(who ? { cookie: who.cookie } : {}) });
  t.same((await approve(null, sign(g1))).body, { error: 'Unauthorized' });
  t.match(await approve(stranger, sign(stranger)), { status: 403, body: { code: 'NOT_A_GUARDIAN' } }, 'a non-guardian is refused');
  t.match(await approve(owner, sign(owner)), { status: 403 });
  t.match(await approve(g1, sign(g1, 1)), { status: 400, body: { code: 'BAD_RECOVERY_SIGNATURE' } }, 'a signature over another version is rejected');
  t.match(await approve(g1, sign(g2)), { status: 400, body: { code: 'BAD_RECOVERY_SIGNATURE' } }, 'another key\'s signature is rejected');
  t.match(await approve(g1, 'zz'.repeat(64)), { status: 400, body: { field: 'signature' } });
  const first = await approve(g1, sign(g1));
  t.match(first, { status: 200, body: { status: 'collecting', approvals: [{ guardianDid: g1.user.did, signature: sign(g1) }] } });
  t.equal(first.body.approvals.length, 1);
  t.match(await approve(g1, sign(g1)), { status: 409, body: { code: 'ALREADY_APPROVED' } }, 'a second approval by one guardian');
  t.same(await pendingOf(g1), [other.body.requestId], 'approved requests leave the guardian\'s list');
  t.match(await approve(g1, sign(g1, 2, otherKey), other.body.requestId), { status: 200 });
  const second = await approve(g2, sign(g2));
  t.match(second, { status: 200, body: { status: 'ready', approvals: [{ guardianDid: g1.user.did }, { guardianDid: g2.user.did }] } });

  // finalize: the new key (funded) sends the DidRecover it signed with the collected signatures
  await h.fund(addressFromPublicKey(newKey), 10_000_000n);
  const signatures = second.body.approvals.map((a: { guardianDid: string; signature: string }) => ({ guardian: a.guardianDid, signature: a.signature }));
  const recoverTx = (o: { signatures?: typeof signatures; key?: Uint8Array } = {}) =>
    signAndEncode(chainId, buildDidRecover({ senderPubkey: newKey, nonce: 0, did, newPublicKey: o.key ?? newKey, signatures: o.signatures ?? signatures }), newSeed);
  const finalize = (text: string, id = requestId) => raw(h, `/v1/guardian/recovery/${id}/finalize`, text);
  t.match(await finalize(policy.json), { status: 400, body: { detail: /DidRecover, not a SetRecoveryPolicy/ } });
  t.match(await finalize(recoverTx({ signatures: signatures.slice(0, 1) }).json), { status: 400, body: { detail: /carries 1 guardian signatures; the policy needs 2/ } });
  t.match(await finalize(recoverTx({ key: otherKey }).json), { status: 400, body: { detail: /new_public_key/ } });
  t.match(await finalize(recoverTx({ signatures: [signatures[0], { guardian: g2.user.did, signature: sign(stranger) }] }).json), { status: 400, body: { detail: /does not verify/ } });
  t.match(await finalize(recoverTx({ signatures: [signatures[0], { guardian: stranger.user.did, signature: sign(stranger) }] }).json), { status: 400, body: { detail: /not a guardian/ } });
  t.match(await finalize(tampered(recoverTx().json)), { status: 400, body: { detail: /transaction signature/ } });
  const recover = recoverTx();
  const finalized = await finalize(recover.json);
  t.same([finalized.status, finalized.body], [200, { requestId, hash: recover.hash, status: 'submitted' }]);
  t.match(await committed(h, recover.hash), { status: 'success', events: [{ type: 'DidRecovered', did, new_public_key: toHex(newKey) }] });
  t.match(await finalize(recover.json), { status: 200, body: { hash: recover.hash } }, 'the same transaction again: the same answer');

  const done = await status(requestId);
  t.match(done.body, { status: 'completed', txHash: recover.hash, approvals: [{ guardianDid: g1.user.did }, { guardianDid: g2.user.did }] });
  t.equal(done.body.approvals.length, 2);
  const doc = await h.rpc.didResolve(did);
  t.equal(doc!.verificationMethod[0]!.publicKeyMultibase, ed25519PublicKeyMultibase(newKey), 'the DID document now carries the new key');
  t.equal((doc as unknown as { version_id: string }).version_id, '3');

  // the old key can no longer act for the DID: not over RPC, not through the wallet
  const oldPolicy = policyTx(owner.seed, { nonce: 2 });
  // a protocol version 2 chain: the recovery moved the old key's account to the new key, so the old key cannot even pay a fee
  const empty = /balance 0 of \S+ cannot cover this transaction/;
  await t.rejects(h.rpc.sendTransaction(oldPolicy.json), { message: empty }, 'SetRecoveryPolicy by the old key');
  await t.rejects(h.rpc.sendTransaction(signAndEncode(chainId, buildDidDeactivate({ senderPubkey: owner.publicKey, nonce: 2, did }), owner.seed).json), { message: empty }, 'DidDeactivate by the old key');
  t.match(await raw(h, '/v1/guardian/policy', oldPolicy.json, owner.cookie), { status: 409, body: { code: 'INSUFFICIENT_BALANCE' } });

  // the other request was signed at version 2: stale now
  t.match(await approve(g2, sign(g2, 2, otherKey), other.body.requestId), { status: 409, body: { detail: /versionId 2, now 3/ } });
  t.match((await status(other.body.requestId)).body, { status: 'failed', reason: /changed since the request/ });
  t.same(await pendingOf(g2), [], 'a stale request is no longer pending');

  // a delayed policy, set by the new key: the recovery is pending until its height, then completed
  const newPolicy = signAndEncode(chainId, buildSetRecoveryPolicy({ senderPubkey: newKey, nonce: 1, did, guardians: [g1.user.did, g2.user.did], threshold: 2, delayBlocks: 3 }), newSeed);
  await h.rpc.sendTransaction(newPolicy.json);
  t.match(await committed(h, newPolicy.hash), { status: 'success' });
  const thirdKey = keyPairFromSeed(generateSeed()).publicKey;
  const third = await initiate({ subjectDid: did, newPublicKey: toHex(thirdKey) });
  t.match(third.body, { versionId: 4, threshold: 2 });
  for (const g of [g1, g2]) t.match(await approve(g, sign(g, 4, thirdKey), third.body.requestId), { status: 200 });
  const delayed = signAndEncode(chainId, buildDidRecover({ senderPubkey: newKey, nonce: 2, did, newPublicKey: thirdKey, signatures: [g1, g2].map((g) => ({ guardian: g.user.did, signature: sign(g, 4, thirdKey) })) }), newSeed);
  t.match(await finalize(delayed.json, third.body.requestId), { status: 200 });
  const receipt = await committed(h, delayed.hash);
  t.match(receipt, { status: 'success', events: [{ type: 'RecoveryStarted' }] });
  t.match((await status(third.body.requestId)).body, { status: 'pending', dueHeight: receipt.events[0]!.due_height });
  const deadline = Date.now() + 20_000;
  let last = '';
  while (Date.now() < deadline && last !== 'completed') {
    await new Promise((r) => setTimeout(r, 250));
    last = (await status(third.body.requestId)).body.status;
  }
  t.equal(last, 'completed', 'the chain completed the delayed recovery');
});
