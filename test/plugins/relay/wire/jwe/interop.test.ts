import t from 'tap';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { DIDDoc, IMessage } from 'didcomm-node';
import { AgentResolver, DidcommAgent } from '../../../../../bench/lib/relay/didcomm-agent.js';
import { peerDid2Document } from '../../../../../plugins/relay/wire/dids/did-peer.js';
import { mediatorIdentity } from '../../../../../plugins/relay/wire/identity.js';
import { packEnvelope, packWithLibrary, unpackEnvelope, unpackWithLibrary } from '../../../../../plugins/relay/wire/didcomm.js';
import { ownKeys } from '../../../../../plugins/relay/wire/jwe/own-keys.js';
import { fastPack } from '../../../../../plugins/relay/wire/jwe/pack.js';
import { fastUnpack } from '../../../../../plugins/relay/wire/jwe/unpack.js';

/**
 * The fast path (jwe/) against the reference library (didcomm-node), both ways, with agents
 * written on the library alone (bench/lib/relay/didcomm-agent.ts): what an agent packs, the fast
 * path reads exactly as the library does (message and metadata); what the fast path packs, the
 * agent's library opens; and what the fast path does not handle, it leaves to the library
 * (null), so a refusal is always the library's.
 */

const didcomm = createRequire(import.meta.url)('didcomm-node') as typeof import('didcomm-node');
const endpoint = 'https://relay.example/didcomm';
const mediator = mediatorIdentity(randomBytes(32));
const own = ownKeys(mediator.secrets);
const agents = new AgentResolver();
const alice = new DidcommAgent(agents);
const bob = new DidcommAgent(agents, { serviceUri: 'https://bob.example/didcomm' });
agents.add(mediator.documentOf(mediator.peerDid(endpoint), endpoint) as DIDDoc);

/** documents as the relay's resolver writes them: ours, and did:peer:2 agents */
const lookup = (did: string): DIDDoc | null => (mediator.documentOf(did, endpoint) ?? (did.startsWith('did:peer:2') ? peerDid2Document(did) : null)) as DIDDoc | null;

const message = (extra: Record<string, unknown> = {}): IMessage =>
  ({ id: randomUUID(), typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/routing/2.0/forward', body: { next: bob.did }, created_time: 1_700_000_000, ...extra }) as IMessage;

async function libraryPack(msg: IMessage, to: string, from: DidcommAgent | null, options: Record<string, unknown> = {}): Promise<string> {
  const sender = from ?? alice;
  const m = new didcomm.Message({ ...msg, to: [to.split('#')[0]!], ...(from ? { from: from.did } : {}) } as IMessage);
  try {
    const secrets = (sender as unknown as { secretsResolver(): import('didcomm-node').SecretsResolver }).secretsResolver();
    const [packed] = await m.pack_encrypted(to, from ? from.did : null, null, { resolve: async (did: string) => (await agents.resolve(did)) ?? (lookup(did) as DIDDoc) }, secrets, { forward: false, ...options });
    return packed;
  } finally {
    m.free();
  }
}

const attachment = (i: number) => ({ id: `a${i}`, media_type: 'application/didcomm-encrypted+json', data: { json: { protected: 'eyJ9', iv: 'x', ciphertext: `c${i}`, tag: 't', recipients: [] } } });
const shapes: Array<[string, Record<string, unknown>]> = [
  ['a json attachment', { attachments: [attachment(1)] }],
  ['three attachments, thread ids and times', { attachments: [attachment(1), attachment(2), attachment(3)], thid: 't-1', pthid: 'p-1', expires_time: 1_900_000_000 }],
  ['a base64 attachment', { attachments: [{ id: 'b', data: { base64: Buffer.from('hello').toString('base64') } }] }],
  ['extra headers and a unicode body', { body: { next: bob.did, note: 'héllo ✓ \u{1F600}' }, return_route: 'all', custom: { a: [1, 2, null] } }],
  ['an empty body object', { type: 'https://didcomm.org/trust-ping/2.0/ping', body: {} }],
];

for (const to of [mediator.did, mediator.peerDid(endpoint)]) {
  for (const [name, extra] of shapes) {
    for (const [mode, options] of [
      ['authcrypt', null],
      ['anoncrypt XC20P', {}],
      ['anoncrypt A256GCM', { enc_alg_anon: 'A256gcmEcdhEsA256kw' }],
      ['anoncrypt A256CBC-HS512', { enc_alg_anon: 'A256cbcHs512EcdhEsA256kw' }],
    ] as const) {
      t.test(`${mode} to our ${to.slice(0, 9)}, ${name}: the fast path reads what the library reads`, async (t) => {
        const packed = await libraryPack(message(extra), to, options === null ? alice : null, options ?? {});
        const fast = fastUnpack(packed, lookup, own);
        t.ok(fast, 'the fast path handles it');
        const library = await unpackWithLibrary(packed, lookup, mediator.secrets);
        t.same(fast!.message, library.message, 'the same message');
        t.same({ fromKid: fast!.fromKid, authenticated: fast!.authenticated, encrypted: fast!.encrypted, toKids: fast!.toKids }, { fromKid: library.fromKid, authenticated: library.authenticated, encrypted: library.encrypted, toKids: library.toKids }, 'the same metadata');
      });
    }
  }
}

for (const from of [mediator.did, mediator.peerDid(endpoint)]) {
  for (const authcrypt of [true, false]) {
    t.test(`the fast path packs ${authcrypt ? 'authcrypt' : 'anoncrypt'} from our ${from.slice(0, 9)}; the agent's library opens it`, async (t) => {
      const delivery = { id: randomUUID(), typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/messagepickup/3.0/delivery', body: { recipient_key: bob.did }, to: [bob.did], ...(authcrypt ? { from } : {}), attachments: [attachment(1), attachment(2)] };
      const packed = fastPack({ message: delivery, to: bob.did, from: authcrypt ? from : null }, lookup, own);
      t.ok(packed, 'the fast path handles it');
      const header = JSON.parse(Buffer.from(JSON.parse(packed!).protected, 'base64url').toString());
      t.equal(header.alg, authcrypt ? 'ECDH-1PU+A256KW' : 'ECDH-ES+A256KW');
      const opened = await bob.unpack(packed!);
      t.same(opened, delivery, 'the library reads the same message');
      // and the same request through the library gives an envelope of the same form
      const reference = JSON.parse(await packWithLibrary({ message: delivery as IMessage, to: bob.did, from: authcrypt ? from : null }, lookup, mediator.secrets));
      const ours = JSON.parse(packed!);
      t.same(Object.keys(ours).sort(), Object.keys(reference).sort(), 'the same members');
      const refHeader = JSON.parse(Buffer.from(reference.protected, 'base64url').toString());
      t.same(Object.keys(header).sort(), Object.keys(refHeader).sort(), 'the same header members');
      t.same({ ...header, epk: undefined }, { ...refHeader, epk: undefined }, 'the same header but for the ephemeral key');
      t.same(ours.recipients.map((r: { header: unknown }) => r.header), reference.recipients.map((r: { header: unknown }) => r.header), 'the same recipients');
    });
  }
}

t.test('packEnvelope and unpackEnvelope use the fast path and fall back to the library', async (t) => {
  const packed = await libraryPack(message(), mediator.did, alice);
  const unpacked = await unpackEnvelope(packed, lookup, mediator.secrets);
  t.same([unpacked.fromKid, unpacked.via], [`${alice.did}#key-1`, 'node']);
  const reply = await packEnvelope({ message: { ...message(), to: [bob.did], from: mediator.did } as IMessage, to: bob.did, from: mediator.did }, lookup, mediator.secrets);
  t.equal(reply.via, 'node');
  t.ok(await bob.unpack(reply.packed));
  const signed = await packEnvelope({ message: { ...message(), to: [bob.did], from_prior: 'x.y.z' } as IMessage, to: bob.did, from: null }, lookup, mediator.secrets).catch((err: unknown) => err);
  t.ok(signed instanceof Error || (signed as { via: string }).via === 'library', 'a from_prior goes to the library');
});

t.test('what the fast path leaves to the library', async (t) => {
  const refusedByBoth = async (name: string, packed: string) => {
    t.equal(fastUnpack(packed, lookup, own), null, `${name}: not the fast path's`);
    await t.rejects(unpackWithLibrary(packed, lookup, mediator.secrets), `${name}: the library refuses it`);
    await t.rejects(unpackEnvelope(packed, lookup, mediator.secrets), `${name}: and so does unpackEnvelope, with the library's words`);
  };
  const good = JSON.parse(await libraryPack(message(), mediator.did, alice));
  const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
  await refusedByBoth('a changed ciphertext', JSON.stringify({ ...good, ciphertext: flip(good.ciphertext) }));
  await refusedByBoth('a changed tag', JSON.stringify({ ...good, tag: flip(good.tag) }));
  await refusedByBoth('a changed encrypted key', JSON.stringify({ ...good, recipients: [{ ...good.recipients[0], encrypted_key: flip(good.recipients[0].encrypted_key) }] }));
  const header = JSON.parse(Buffer.from(good.protected, 'base64url').toString());
  const withHeader = (h: Record<string, unknown>) => JSON.stringify({ ...good, protected: Buffer.from(JSON.stringify(h)).toString('base64url') });
  await refusedByBoth('another apv', withHeader({ ...header, apv: Buffer.alloc(32).toString('base64url') }));
  await refusedByBoth('an apu naming another sender', withHeader({ ...header, apu: Buffer.from(`${bob.did}#key-1`).toString('base64url'), skid: `${bob.did}#key-1` }));
  await refusedByBoth('not for our keys', await libraryPack(message(), bob.did, alice));
  await refusedByBoth('a content algorithm DIDComm does not use', withHeader({ ...header, enc: 'A128GCM' }));
  // plaintexts the library refuses, anoncrypted to us (the fast path packs whatever it is given)
  const toUs = (plain: Record<string, unknown>) => fastPack({ message: plain, to: mediator.did, from: null }, lookup, own)!;
  await refusedByBoth('a message without an id', toUs({ typ: 'application/didcomm-plain+json', type: 'https://example.org/x', body: {} }));
  await refusedByBoth('a message without a body', toUs({ id: '1', type: 'https://example.org/x' }));
  await refusedByBoth('a message of another typ', toUs({ id: '1', typ: 'application/json', type: 'https://example.org/x', body: {} }));

  // valid, but for the library: the sender protected in an anoncrypt layer, and a signed message
  const protectedSender = await libraryPack(message(), mediator.did, alice, { protect_sender: true });
  t.equal(fastUnpack(protectedSender, lookup, own), null, 'a sender protected by anoncrypt: the library');
  const read = await unpackEnvelope(protectedSender, lookup, mediator.secrets);
  t.same([read.fromKid, read.via], [`${alice.did}#key-1`, 'library'], 'which reads it');
  const fromPrior = message({ from_prior: 'eyJ0.eyJ0.c2ln' });
  t.equal(fastPack({ message: fromPrior as unknown as Record<string, unknown>, to: bob.did, from: null }, lookup, own), null, 'a from_prior to sign: the library');
  t.equal(fastPack({ message: { ...message(), to: [alice.did] } as unknown as Record<string, unknown>, to: bob.did, from: null }, lookup, own), null, 'a message not addressed to `to`: the library, which refuses it');
});
