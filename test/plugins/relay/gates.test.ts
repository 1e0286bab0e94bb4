import t from 'tap';
import { CIPHERSUITES, deriveProof, generateKeyPair, sign } from '@digitalbazaar/bbs-signatures';
import { toHex } from '../../../node/protocol/bytes.js';
import { formatCredentialId } from '../../../node/protocol/credential-id.js';
import type { CredentialRecord } from '../../../node/protocol/credential-records.js';
import { didForIdentifier } from '../../../node/protocol/did.js';
import { didKey, encodeDid } from '../../../node/protocol/records.js';
import { openDatabase } from '../../../node/state/db.js';
import type { Policy } from '../../../plugins/relay/core/gates.js';
import { createLevelRelayStore } from '../../../plugins/relay/store/level.js';
import { testSecrets } from './store/contract/backend.js';
import { nextBlock } from '../../fixtures/chain-blocks.js';
import { credentialPuts, credentialRecord } from '../../fixtures/credential-records.js';
import { NETWORK, setup } from '../../rpc/ledger/harness.js';
import { MEDIATION, mediate, startRelay } from './harness.js';

/**
 * Credential gates on the live path, against committed chain state (a real ChainStore): a gate on
 * mediation needs a registered credential of its type, not revoked, from an active issuer; a BBS
 * gate needs a proof bound to the holder's DID (the presentation header).
 */

const ISSUER = new Uint8Array(20).fill(0x71);
const SUBJECT = new Uint8Array(20).fill(0x72);
const HEADER = new TextEncoder().encode('ledger-kyc');
const MESSAGES = ['name', 'birthdate', 'country'].map((m) => new TextEncoder().encode(m));

const record = (n: number, o: Partial<CredentialRecord> = {}) => credentialRecord(n, { issuer: ISSUER, subject: SUBJECT, ...o });

async function gatedRelay(t: Parameters<typeof setup>[0], policy: Omit<Policy, 'tenantId' | 'createdAt'>) {
  const node = await setup(t, { blocks: true });
  const keys = await generateKeyPair({ ciphersuite: CIPHERSUITES.BLS12381_SHA256 });
  const signature = await sign({ secretKey: keys.secretKey, publicKey: keys.publicKey, header: HEADER, messages: MESSAGES, ciphersuite: CIPHERSUITES.BLS12381_SHA256 });
  const records = [
    record(1, { bbs: { publicKey: keys.publicKey, messageCount: MESSAGES.length } }),
    record(2, { revokedMs: 2_000 }),
    record(3, { credentialType: 'EmailVerificationCredential' }),
  ];
  await node.store.commitBlock(
    await nextBlock(node.store, {
      puts: [
        { key: didKey(ISSUER), value: encodeDid({ did: didForIdentifier(NETWORK, ISSUER), publicKey: new Uint8Array(32).fill(1), service: [], active: true, createdMs: 1, updatedMs: 1, versionId: 1, txHash: new Uint8Array(32) }) },
        ...credentialPuts(records),
      ],
    }),
  );
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const seeded = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets });
  await seeded.documents.put('default', 'policy', policy.id, { ...policy, tenantId: 'default', createdAt: new Date().toISOString() });
  await seeded.close();
  const relay = await startRelay(t, { node, db, config: { cryptoThreads: 1 } });
  const proofFor = async (holder: string) =>
    toHex(await deriveProof({ publicKey: keys.publicKey, signature, header: HEADER, messages: MESSAGES, presentationHeader: new TextEncoder().encode(holder), disclosedMessageIndexes: [2], ciphersuite: CIPHERSUITES.BLS12381_SHA256 }));
  return { relay, ids: records.map((r) => formatCredentialId(r.id)), proofFor };
}

t.test('a full-disclosure gate on mediation', async (t) => {
  const { relay, ids } = await gatedRelay(t, { id: 'pol_kyc', name: 'KYC only', credentialType: 'KYCCredential', disclosure: 'full', appliesTo: 'mediation' });
  const request = (agent: ReturnType<typeof relay.agent>, body: Record<string, unknown>) => agent.send(relay.didcomm, relay.mediator, `${MEDIATION}/mediate-request`, body);

  const none = await request(relay.agent(), {});
  t.equal(none.message?.type, `${MEDIATION}/mediate-deny`);
  t.match((none.message?.body as { reason: string }).reason, /^presented: /);
  t.match((await request(relay.agent(), { credential_ref: ids[1] })).message?.body, { reason: /^not-revoked/ }, 'a revoked credential is refused');
  t.match((await request(relay.agent(), { credential_ref: ids[2] })).message?.body, { reason: /^type: the credential is a EmailVerificationCredential/ });
  t.match((await request(relay.agent(), { credential_ref: 'urn:ledger:credential:00000000-0000-4000-8000-000000000000' })).message?.body, { reason: /^exists/ });
  const ok = await request(relay.agent(), { credential_ref: ids[0] });
  t.equal(ok.message?.type, `${MEDIATION}/mediate-grant`, 'a registered KYCCredential from an active issuer passes');

  const bob = relay.agent();
  const alice = relay.agent();
  await alice.send(relay.didcomm, relay.mediator, `${MEDIATION}/mediate-request`, { credential_ref: ids[0] });
  await alice.send(relay.didcomm, relay.mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: alice.did, action: 'add' }] });
  const inner = await bob.pack(bob.message('x', {}), alice.did);
  t.equal((await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, inner))).status, 202, 'a mediation-only gate does not gate delivery');
});

t.test('a selective (BBS+) gate on delivery binds the proof to the sender', async (t) => {
  const { relay, ids, proofFor } = await gatedRelay(t, { id: 'pol_bbs', name: 'KYC, selective', credentialType: 'KYCCredential', disclosure: 'selective (BBS+)', appliesTo: 'delivery' });
  const alice = relay.agent();
  const { grant } = await mediate(relay, alice);
  t.equal(grant.message?.type, `${MEDIATION}/mediate-grant`, 'a delivery-only gate does not gate mediation');
  const bob = relay.agent();
  const inner = await bob.pack(bob.message('x', {}), alice.did);
  const presentation = async (holder: string) => ({ proof: await proofFor(holder), header: toHex(HEADER), disclosed: [{ index: 2, message: toHex(MESSAGES[2]!) }], total_message_count: MESSAGES.length });

  const bare = await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, inner, { anon: false }));
  t.equal(bare.status, 403, 'no credential: blocked');
  t.match(bare.problem, { code: 'e.p.req.gate-blocked' });

  const stolen = await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, inner, { anon: false, headers: { credential_ref: ids[0], credential_presentation: await presentation(alice.did) } }));
  t.equal(stolen.status, 403, "a proof made for someone else's DID is refused");

  const anon = await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, inner, { anon: true, headers: { credential_ref: ids[0], credential_presentation: await presentation(bob.did) } }));
  t.equal(anon.status, 403, 'an anonymous sender cannot present a bound proof');

  const good = await bob.post(relay.didcomm, await bob.forward(relay.mediator, alice.did, inner, { anon: false, headers: { credential_ref: ids[0], credential_presentation: await presentation(bob.did) } }));
  t.equal(good.status, 202, 'a proof bound to the authenticated sender passes');
});
