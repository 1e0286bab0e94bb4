import t from 'tap';
import { randomUUID } from 'node:crypto';
import { generateSeed, keyPairFromSeed } from '../../../../node/crypto/ed25519.js';
import { ed25519PublicKeyFromMultibase } from '../../../../node/crypto/multibase.js';
import type { DidDocumentRpc } from '../../../../node/protocol/did-document.js';
import { parseDid } from '../../../../node/protocol/did.js';
import { didKey, encodeDid } from '../../../../node/protocol/records.js';
import { parseVerificationRequest, signVerificationRequest, verifyVerificationRequest, type VerificationRequest } from '../../../../node/protocol/verification.js';
import { requestOf, verificationRequestMessage, VERIFICATION_REQUEST } from '../../../../plugins/relay/protocols/verification.js';
import { nextBlock } from '../../../fixtures/chain-blocks.js';
import { CHAIN, NETWORK, result, setup } from '../../../rpc/ledger/harness.js';
import type { TestAgent } from '../didcomm-client.js';
import { mediate, PICKUP, startRelay } from '../harness.js';

/**
 * A verification request (seed 002) delivered over DIDComm: the requester authcrypts it to the
 * subject's agent with the reference library (didcomm-node), the relay routes it as any forward,
 * and the subject's agent picks it up, parses it and checks the requester's signature against
 * the requester's on-chain key. A request changed after signing arrives the same way and fails.
 */

/** with the ledger members (chainId, nonce): signed like the rest, they must arrive untouched */
type Unsigned = Omit<VerificationRequest, 'signature'> & { chainId: string; nonce: number };

function unsignedRequest(requester: string, subject: string): Unsigned {
  return {
    version: '1.0',
    requestId: randomUUID(),
    timestamp: 1_760_000_000_123,
    requester: { did: requester, purpose: 'age check before opening an account' },
    subject: { did: subject },
    requiredClaims: [{ type: 'AgeVerificationCredential', constraints: { minimumAge: 18 }, acceptZKProof: true }],
    fee: '50000',
    chainId: CHAIN,
    nonce: 7,
  };
}

t.test('the plaintext: a pure function of its arguments, the request carried as given', async (t) => {
  const request = { ...unsignedRequest('did:ledger:testnet:a', 'did:ledger:testnet:b'), signature: 'ab'.repeat(64), extension: { any: ['thing'] } };
  const args = { id: 'm-1', from: 'did:example:requester', to: 'did:example:subject', request };
  const m = verificationRequestMessage(args);
  t.same(m, {
    id: 'm-1',
    typ: 'application/didcomm-plain+json',
    type: 'https://ledger.dev/verification/1.0/request',
    from: 'did:example:requester',
    to: ['did:example:subject'],
    created_time: 1_760_000_000,
    thid: 'm-1',
    body: { request },
  });
  t.equal(m.body.request, request, 'the very object: unknown members (extension, chainId, nonce) are not dropped');
  t.same(verificationRequestMessage(args), m, 'same arguments, same message');
  t.notOk('expires_time' in m, 'no expires_time unless asked');
  t.match(verificationRequestMessage({ ...args, createdTime: 5, expiresTime: 65 }), { created_time: 5, expires_time: 65 });
  t.throws(() => verificationRequestMessage({ ...args, request: { fee: '1' } }), /createdTime is needed/);
  t.throws(() => verificationRequestMessage({ ...args, request: [] }), /must be a JSON object/);

  t.equal(requestOf(m), request);
  t.equal(requestOf({ type: 'https://didcomm.org/basicmessage/2.0/message', body: { request } }), null, 'another type');
  t.equal(requestOf({ type: VERIFICATION_REQUEST, body: { request: 'x' } }), null, 'a body without a request object');
});

t.test('requester → relay (forward) → subject: parsed and verified with the reference library; a tampered copy fails', async (t) => {
  const node = await setup(t, { blocks: true });
  const relay = await startRelay(t, { node });
  // the requester's DIDComm DID is its chain DID, and its Ed25519 key signs the request too
  const requesterSeed = generateSeed();
  const requester = relay.agent({ ledgerNetwork: NETWORK, seed: requesterSeed });
  t.same(requester.ed25519PublicKey, keyPairFromSeed(requesterSeed).publicKey);
  const subject = relay.agent({ ledgerNetwork: NETWORK });
  const onChain = (a: TestAgent) => ({
    key: didKey(parseDid(a.did).identifier),
    value: encodeDid({ did: a.did, publicKey: a.ed25519PublicKey, service: [], active: true, createdMs: 1, updatedMs: 1, versionId: 1, txHash: new Uint8Array(32) }),
  });
  await node.store.commitBlock(await nextBlock(node.store, { puts: [onChain(requester), onChain(subject)] }));
  await mediate(relay, subject);

  const signed = signVerificationRequest(unsignedRequest(requester.did, subject.did), requesterSeed);
  const tampered = { ...signed, requiredClaims: [{ ...signed.requiredClaims[0]!, constraints: { minimumAge: 16 } }] };
  const expires = Math.floor(Date.now() / 1000) + 600;
  const sent = new Map<string, object>();
  for (const request of [signed, tampered]) {
    const message = verificationRequestMessage({ id: randomUUID(), from: requester.did, to: subject.did, request, expiresTime: expires });
    sent.set(message.id, request);
    const inner = await requester.pack(message, subject.did);
    const fwd = await requester.post(relay.didcomm, await requester.forward(relay.mediator, subject.did, inner));
    t.equal(fwd.status, 202, 'routed like any forward');
  }

  const direct = await requester.send(relay.didcomm, relay.mediator, VERIFICATION_REQUEST, { request: signed });
  t.equal(direct.status, 400, 'sent to the mediator itself it is refused: the relay does not speak this protocol, it only carries it');
  t.match(direct.message?.body, { code: 'e.p.msg.unsupported-type' });

  const delivery = await subject.send(relay.didcomm, relay.mediator, `${PICKUP}/delivery-request`, { limit: 10 });
  t.equal(delivery.message?.type, `${PICKUP}/delivery`);
  const attachments = delivery.message?.attachments as Array<{ id: string; data: { json: unknown } }>;
  t.equal(attachments.length, 2);

  const key = async (did: string) => {
    // what a wallet does: the requester DID's authentication key, from the chain
    const doc = result(await node.call('ledger_didResolve', [did])) as DidDocumentRpc;
    const method = doc.verificationMethod.find((m) => doc.authentication.includes(m.id))!;
    return ed25519PublicKeyFromMultibase(method.publicKeyMultibase);
  };
  const verdicts = new Map<string, boolean>();
  for (const att of attachments) {
    const envelope = JSON.stringify(att.data.json);
    t.notOk(envelope.includes(signed.requestId), 'the relay held ciphertext only');
    const opened = await subject.unpack(envelope);
    t.equal(opened.type, VERIFICATION_REQUEST);
    t.equal(opened.from, requester.did, 'authcrypt: the sender is authenticated');
    t.equal(opened.expires_time, expires);
    const request = requestOf(opened)!;
    t.same(request, sent.get(opened.id), 'arrived as sent, chainId and nonce included');
    const parsed = parseVerificationRequest(request);
    t.equal(parsed.requester.did, opened.from, 'the DIDComm sender is the requester it names');
    t.equal(parsed.subject.did, subject.did);
    // the signature covers the JSON as received, so that is what is checked, not an object rebuilt from it
    verdicts.set(opened.id, verifyVerificationRequest(request as unknown as VerificationRequest, await key(parsed.requester.did)));
  }
  t.same(
    [...sent.keys()].map((id) => verdicts.get(id)),
    [true, false],
    'the signed request verifies; the one changed after signing does not',
  );

  const ack = await subject.send(relay.didcomm, relay.mediator, `${PICKUP}/messages-received`, { message_id_list: attachments.map((a) => a.id) });
  t.match(ack.message, { type: `${PICKUP}/status`, body: { message_count: 0 } });
});
