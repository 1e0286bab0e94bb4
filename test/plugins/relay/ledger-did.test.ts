import t from 'tap';
import { parseDid } from '../../../node/protocol/did.js';
import { didKey, encodeDid } from '../../../node/protocol/records.js';
import { nextBlock } from '../../fixtures/chain-blocks.js';
import { NETWORK, setup } from '../../rpc/ledger/harness.js';
import { MEDIATION, PICKUP, mediate, startRelay } from './harness.js';

/**
 * Chain-anchored routing: a did:ledger agent is resolved from its committed DID document (keys
 * derived from its Ed25519 key), mediated like any agent, and stops receiving once its DID is
 * deactivated on chain.
 */

t.test('a did:ledger agent: mediation, forward and pickup from its on-chain document; deactivation stops routing', async (t) => {
  const node = await setup(t, { blocks: true });
  const relay = await startRelay(t, { node, config: { resolverTtlMs: 0 } });
  const alice = relay.agent({ ledgerNetwork: NETWORK });
  const { identifier } = parseDid(alice.did);
  const record = (active: boolean) => ({
    key: didKey(identifier),
    value: encodeDid({ did: alice.did, publicKey: active ? alice.ed25519PublicKey : null, service: [], active, createdMs: 1, updatedMs: 1, versionId: active ? 1 : 2, txHash: new Uint8Array(32) }),
  });

  const early = await alice.send(relay.didcomm, relay.mediator, `${MEDIATION}/mediate-request`, {});
  t.equal(early.status, 400, 'not on chain yet: the relay cannot resolve the sender');
  t.match(early.problem, { code: 'SENDER_UNRESOLVABLE' });

  await node.store.commitBlock(await nextBlock(node.store, { puts: [record(true)] }));
  const { grant, update } = await mediate(relay, alice);
  t.equal(grant.message?.type, `${MEDIATION}/mediate-grant`, 'authcrypt with the X25519 key derived from the on-chain Ed25519 key');
  t.match(update.message?.body, { updated: [{ recipient_did: alice.did, result: 'success' }] });

  const res = await fetch(`${relay.url}/v1/health`);
  t.equal(res.status, 200);

  const bob = relay.agent();
  const inner = await bob.pack(bob.message('https://example.org/hi', { to: 'ledger' }), alice.did);
  t.equal((await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, inner))).status, 202);
  const delivery = await alice.send(relay.didcomm, relay.mediator, `${PICKUP}/delivery-request`, { limit: 5 });
  const att = (delivery.message?.attachments as Array<{ data: { json: unknown } }>)[0]!;
  t.same((await alice.unpack(JSON.stringify(att.data.json))).body, { to: 'ledger' });

  const second = await bob.pack(bob.message('https://example.org/hi', { n: 2 }), alice.did);
  t.equal((await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, second))).status, 202);
  await node.store.commitBlock(await nextBlock(node.store, { puts: [record(false)] }));
  const third = await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, await bob.pack(bob.message('https://example.org/hi', { n: 3 }), alice.did)));
  t.equal(third.status, 410, 'a deactivated DID stops routing');
  t.match(third.problem, { code: 'e.p.xfer.recipient-deactivated' });
});
