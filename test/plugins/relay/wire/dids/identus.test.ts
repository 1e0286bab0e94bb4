import t from 'tap';
import { randomUUID } from 'node:crypto';
import { Message } from 'didcomm-node';
import * as sdk from '@hyperledger/identus-sdk';
import { DidResolver, didKeyFromSeed, okpJwk, staticSecretsResolver } from '../../../../../plugins/relay/wire/dids/index.js';

/**
 * Interop with a stock Hyperledger Identus agent (@hyperledger/identus-sdk): a did:peer:2 made
 * by its Castor with two services (the legacy `.S` JSON list) resolves to the keys and ids
 * Identus itself resolves, and a message it could send (authcrypt from its #key-1) unpacks at
 * the mediator.
 */

t.test('an Identus did:peer:2 with two services: same key ids and keys as Identus resolves, and authcrypt to the mediator', async (t) => {
  const apollo = new sdk.Apollo();
  const castor = new sdk.Castor(apollo);
  const x = apollo.createPrivateKey({ type: sdk.Domain.KeyTypes.Curve25519, curve: sdk.Domain.Curve.X25519 });
  const e = apollo.createPrivateKey({ type: sdk.Domain.KeyTypes.EC, curve: sdk.Domain.Curve.ED25519 });
  const D = sdk.Domain.DIDDocument;
  const service = (id: string, uri: string) => new D.Service(id, ['DIDCommMessaging'], new D.ServiceEndpoint(uri, ['didcomm/v2'], []));
  const mediatorSeed = new Uint8Array(32).fill(3);
  const mediator = didKeyFromSeed(mediatorSeed);
  const did = (await castor.createPeerDID([x.publicKey(), e.publicKey()], [service('#s1', 'https://agent.example/didcomm'), service('#s2', mediator.did)])).toString();
  const sEl = did.split('.').find((el) => el.startsWith('S'))!;
  t.ok(Array.isArray(JSON.parse(Buffer.from(sEl.slice(1), 'base64url').toString())), 'Identus encoded both services as one JSON list');

  const resolver = new DidResolver({ ledger: async () => null, network: 'testnet' });
  const ours = await resolver.resolveStrict(did);
  const theirs = await castor.resolveDID(did);
  const theirMethods = theirs.coreProperties.flatMap((p) => (p instanceof D.VerificationMethods ? p.values : []));
  t.same(
    ours.verificationMethod.map((m) => [m.id, m.publicKeyJwk.crv, m.publicKeyJwk.x]).sort(),
    theirMethods.map((m) => [m.id, m.publicKeyJwk?.crv, m.publicKeyJwk?.x]).sort(),
    'the same method ids (#key-1 for .E, #key-2 for .V) and keys',
  );
  t.same(ours.service.map((s) => s.serviceEndpoint.uri), ['https://agent.example/didcomm', mediator.did]);

  // What the agent's DIDComm layer sends: authcrypt from its key agreement key, #key-1.
  const secret = { id: `${did}#key-1`, type: 'JsonWebKey2020', privateKeyJwk: { ...okpJwk('X25519', x.publicKey().raw), d: Buffer.from(x.raw).toString('base64url') } };
  const msg = new Message({ id: randomUUID(), typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/coordinate-mediation/2.0/mediate-request', from: did, to: [mediator.did], body: {} });
  let packed: string;
  try {
    [packed] = await msg.pack_encrypted(mediator.did, did, null, resolver.didcommResolver(), staticSecretsResolver([secret]), { forward: false });
  } finally {
    msg.free();
  }
  const [got, meta] = await Message.unpack(packed, resolver.didcommResolver(), staticSecretsResolver(mediator.secrets), {});
  try {
    t.match(got.as_value(), { from: did, type: 'https://didcomm.org/coordinate-mediation/2.0/mediate-request' });
    t.match(meta, { authenticated: true, encrypted_from_kid: `${did}#key-1` });
  } finally {
    got.free();
  }
});
