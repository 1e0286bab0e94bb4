import t from 'tap';
import { ed25519 } from '@noble/curves/ed25519.js';
import { DidResolver, didKeyFromEd25519, encodeMultikey, encodePeerDid2 } from '../../../../../plugins/relay/wire/dids/index.js';
import { didDocumentRpc, type DidDocumentRpc } from '../../../../../node/protocol/did-document.js';
import { didForPublicKey } from '../../../../../node/protocol/did.js';

function onChain(n: number, active = true): DidDocumentRpc {
  const publicKey = ed25519.getPublicKey(new Uint8Array(32).fill(n));
  const did = didForPublicKey('testnet', publicKey);
  return didDocumentRpc({ did, publicKey: active ? publicKey : null, service: [], active, createdMs: 1, updatedMs: 1, versionId: 1, txHash: new Uint8Array(32) });
}

/** A fake chain: documents by DID, a call log, and a clock the test moves. */
function setup(opts: { ttlMs?: number; maxEntries?: number } = {}) {
  const chain = new Map<string, DidDocumentRpc>();
  const calls: string[] = [];
  let clock = 1_000_000;
  const resolver = new DidResolver({
    ledger: async (did) => {
      calls.push(did);
      return chain.get(did) ?? null;
    },
    network: 'testnet',
    now: () => clock,
    ...opts,
  });
  return { chain, calls, resolver, advance: (ms: number) => (clock += ms) };
}

t.test('the second resolve does not call ledger; fresh does; TTL expiry with an injected clock', async (t) => {
  const { chain, calls, resolver, advance } = setup();
  const a = onChain(1);
  chain.set(a.id, a);
  const first = await resolver.resolve(a.id);
  t.ok(first);
  t.equal(await resolver.resolve(a.id), first, 'the same (frozen) object from the cache');
  t.same(calls, [a.id], 'one chain read');
  t.match(resolver.stats(), { entries: 1, hits: 1, misses: 1, ledgerReads: 1 });

  await resolver.resolve(a.id, { fresh: true });
  t.equal(calls.length, 2, 'fresh reads again');

  advance(59_999);
  await resolver.resolve(a.id);
  t.equal(calls.length, 2, 'still fresh 60 s after the last read, minus 1 ms');
  advance(1);
  await resolver.resolve(a.id);
  t.equal(calls.length, 3, 'expired at ttlMs (60 s default)');

  resolver.invalidate(a.id);
  await resolver.resolve(a.id);
  t.equal(calls.length, 4, 'invalidate drops the entry');
});

t.test('negative results are cached 5 s; a DID created meanwhile shows up after that', async (t) => {
  const { chain, calls, resolver, advance } = setup();
  const b = onChain(2);
  t.equal(await resolver.resolve(b.id), null);
  chain.set(b.id, b);
  t.equal(await resolver.resolve(b.id), null, 'not found, still cached');
  t.equal(calls.length, 1);
  t.equal(resolver.stats().negativeHits, 1);
  advance(5_000);
  t.ok(await resolver.resolve(b.id), 'after 5 s the chain is read again');
  t.equal(calls.length, 2);
  t.ok(await resolver.resolve(b.id, { fresh: true }), 'and fresh works on a positive entry');
  t.same(resolver.stats().failures, { DID_NOT_FOUND: 1 });
});

t.test('concurrent resolutions share one chain read; a fresh read replaces a slower one', async (t) => {
  const a = onChain(3);
  let release: () => void = () => {};
  let calls = 0;
  const resolver = new DidResolver({
    network: 'testnet',
    ledger: async () => {
      calls++;
      if (calls === 1) await new Promise<void>((r) => (release = r));
      return a;
    },
  });
  const p = [resolver.resolve(a.id), resolver.resolve(a.id), resolver.resolve(a.id)];
  await new Promise((r) => setImmediate(r));
  t.equal(calls, 1, 'three callers, one read');
  const fresh = await resolver.resolve(a.id, { fresh: true });
  t.equal(calls, 2);
  release();
  const docs = await Promise.all(p);
  t.ok(docs.every((d) => d !== null));
  t.equal(await resolver.resolve(a.id), fresh, 'the cache holds the fresh read, not the slow one that finished later');
});

t.test('LRU bound: the least recently used entry goes first', async (t) => {
  const { chain, calls, resolver } = setup({ maxEntries: 2 });
  const [a, b, c] = [onChain(4), onChain(5), onChain(6)];
  for (const d of [a, b, c]) chain.set(d.id, d);
  await resolver.resolve(a.id);
  await resolver.resolve(b.id);
  await resolver.resolve(a.id); // a is now more recent than b
  await resolver.resolve(c.id); // evicts b
  t.equal(resolver.stats().entries, 2);
  t.equal(resolver.stats().evictions, 1);
  calls.length = 0;
  await resolver.resolve(a.id);
  t.same(calls, [], 'a stayed');
  await resolver.resolve(b.id);
  t.same(calls, [b.id], 'b was evicted');
});

t.test('static DIDs are cached apart from chain entries, and never call ledger', async (t) => {
  const { calls, resolver } = setup({ maxEntries: 2 });
  const keyDid = didKeyFromEd25519(ed25519.getPublicKey(new Uint8Array(32).fill(7)));
  const d1 = await resolver.resolve(keyDid);
  t.equal(await resolver.resolve(keyDid), d1);
  for (let i = 10; i < 20; i++) await resolver.resolve(didKeyFromEd25519(ed25519.getPublicKey(new Uint8Array(32).fill(i))));
  t.match(resolver.stats(), { entries: 0, staticEntries: 2 });
  t.same(calls, []);
});

t.test('size caps, bad input and unknown methods: null, never a throw; resolveStrict throws the typed reason', async (t) => {
  const failures: Array<[string, string]> = [];
  const resolver = new DidResolver({ ledger: async () => null, network: 'testnet', onFailure: (did, r) => failures.push([did.slice(0, 20), r.code]) });
  const x = encodeMultikey('X25519', new Uint8Array(32).fill(3));
  const e = encodeMultikey('Ed25519', ed25519.getPublicKey(new Uint8Array(32).fill(3)));
  const big = `did:peer:2.E${x}${`.V${e}`.repeat(90)}`;
  t.ok(big.length > 4096);
  // one key and a service with long routing keys, grown to just under the cap
  let justUnder = '';
  for (let n = 1; ; n++) {
    const routingKeys = Array.from({ length: 12 }, (_, i) => `did:example:mediator-${i}#${'k'.repeat(n)}`);
    const next = encodePeerDid2([{ purpose: 'E', publicKeyMultibase: x }, { purpose: 'V', publicKeyMultibase: e }], [{ type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://a.example/didcomm', routingKeys } }]);
    if (next.length > 4096) break;
    justUnder = next;
  }
  t.ok(justUnder.length <= 4096 && justUnder.length > 4000, `${justUnder.length} characters`);
  t.ok(await resolver.resolve(justUnder), 'a did:peer:2 just under 4 KB resolves');
  t.equal(await resolver.resolve(big), null);
  await t.rejects(resolver.resolveStrict(big), { code: 'DID_TOO_LONG', kind: 'limit', data: { max: 4096 } });
  const longKey = `did:key:z${'a'.repeat(130)}`;
  await t.rejects(resolver.resolveStrict(longKey), { code: 'DID_TOO_LONG', data: { max: 128 } });
  await t.rejects(resolver.resolveStrict(`did:ledger:testnet:${'a'.repeat(120)}`), { code: 'DID_TOO_LONG', data: { max: 128 } });
  await t.rejects(resolver.resolveStrict(`did:peer:4zQmd8CpeFPci817KDsbSAKWcXAE2mjvCQSasRewvbSF54Bd${'a'.repeat(100)}`), { code: 'DID_TOO_LONG', data: { max: 128 } }, 'a short-form did:peer:4 is capped at 128');
  await t.rejects(resolver.resolveStrict('did:web:example.com'), { code: 'DID_UNSUPPORTED' });
  await t.rejects(resolver.resolveStrict('did:peer:1zQmZMygzYqNwU6Uhmewx5Xepf2VLp5S4HLSwwgf2aiKZuwa'), { code: 'DID_UNSUPPORTED' });
  await t.rejects(resolver.resolveStrict('not a did'), { code: 'DID_INVALID' });
  t.equal(await resolver.resolve(42 as unknown as string), null);
  t.equal(await resolver.resolve(null as unknown as string), null);
  const peer = encodePeerDid2([{ purpose: 'E', publicKeyMultibase: x }], [{ type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://a.example' } }]);
  t.ok(await resolver.resolve(peer));
  const throwing = new DidResolver({ ledger: async () => null, network: 'testnet', onFailure: () => { throw new Error('listener bug'); } });
  t.equal(await throwing.resolve('did:web:x'), null, 'a throwing onFailure does not escape');
  t.ok(failures.some(([, c]) => c === 'DID_TOO_LONG'));
  t.match(resolver.stats().failures, { DID_TOO_LONG: 5, DID_UNSUPPORTED: 2, DID_INVALID: 3 });
});

t.test('didcommResolver() and resolveMany()', async (t) => {
  const { chain, resolver } = setup();
  const a = onChain(8);
  chain.set(a.id, a);
  const keyDid = didKeyFromEd25519(ed25519.getPublicKey(new Uint8Array(32).fill(8)));
  const dr = resolver.didcommResolver();
  t.equal(typeof dr.resolve, 'function');
  t.same(await dr.resolve(a.id), await resolver.resolve(a.id));
  t.equal(await dr.resolve('did:ledger:testnet:nope'), null);
  const many = await resolver.resolveMany([a.id, keyDid, 'did:web:x', a.id]);
  t.same(Object.keys(many).sort(), [a.id, keyDid].sort());
});
