import t from 'tap';
import { buildDidRecover, buildSetRecoveryPolicy, generateSeed, guardianSignature, keyPairFromSeed, signAndEncode, toHex, waitForReceipt } from '../../../../node/client/index.js';
import { addressFromPublicKey } from '../../../../node/protocol/address.js';
import { didForPublicKey } from '../../../../node/protocol/did.js';
import { ERRORS_BASE } from '../harness.js';
import { cookieOf, signChallenge, startUsers, type UsersHarness } from './setup.js';

const challengeFor = async (h: UsersHarness, did: string): Promise<string> => {
  const res = await h.req('GET', `/v1/users/challenge?did=${encodeURIComponent(did)}`);
  if (res.status !== 200) throw new Error(`challenge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.challenge;
};

t.test('importing an on-chain DID takes a single-use challenge signed by its authentication key', async (t) => {
  const h = await startUsers(t);
  const seed = generateSeed();
  const { publicKey } = keyPairFromSeed(seed);
  const did = await h.createDid(seed);
  const reg = (body: unknown, cookie?: string) => h.req('POST', '/v1/users/register', { body, ...(cookie ? { cookie } : {}) });

  const before = Date.now();
  const issued = await h.req('GET', `/v1/users/challenge?did=${encodeURIComponent(did)}`);
  const after = Date.now();
  t.equal(issued.status, 200);
  t.match(issued.body.challenge, new RegExp(`^ledger-wallet-login:${did}:[0-9a-f]{64}$`));
  // 5 minutes from when it was issued, which is between the two readings of the clock
  const expires = Date.parse(issued.body.expiresAt);
  t.ok(expires >= before + 5 * 60_000 && expires <= after + 5 * 60_000, `the challenge lives 5 minutes (until ${issued.body.expiresAt})`);

  const missing = await reg({ did });
  t.same([missing.status, missing.body.code, missing.body.field], [400, 'PROOF_REQUIRED', 'proof'], 'no proof: 400');
  const malformed = await reg({ did, proof: { challenge: issued.body.challenge, signature: 'ab'.repeat(32) } });
  t.same([malformed.status, malformed.body.field], [400, 'proof'], 'a signature that is not 128 hex: 400');
  t.match(malformed.body.detail, /128 hex characters/);

  const wrongKey = await reg({ did, proof: { challenge: issued.body.challenge, signature: signChallenge(generateSeed(), issued.body.challenge) } });
  t.equal(wrongKey.status, 403, 'signed by a key that is not the DID\'s: 403');
  t.match(wrongKey.body, { type: `${ERRORS_BASE}/403`, code: 'PROOF_INVALID', detail: /does not verify against any authentication key/ });
  const spent = await reg({ did, proof: { challenge: issued.body.challenge, signature: signChallenge(seed, issued.body.challenge) } });
  t.same([spent.status, spent.body.code], [400, 'CHALLENGE_UNKNOWN'], 'a challenge is spent by the attempt that presented it, even a failed one');

  const other = generateSeed();
  const otherDid = await h.createDid(other);
  const forOther = await challengeFor(h, otherDid);
  const crossed = await reg({ did, proof: { challenge: forOther, signature: signChallenge(seed, forOther) } });
  t.same([crossed.status, crossed.body.code], [400, 'CHALLENGE_OTHER_DID'], 'a challenge issued for another DID: 400');
  const invented = `ledger-wallet-login:${did}:${'0'.repeat(64)}`;
  const unknown = await reg({ did, proof: { challenge: invented, signature: signChallenge(seed, invented) } });
  t.same([unknown.status, unknown.body.code], [400, 'CHALLENGE_UNKNOWN'], 'a challenge never issued: 400');

  const challenge = await challengeFor(h, did);
  const eth = { chain: 'eth', address: '0x52908400098527886e0f7030069857d2e4169ee7', derivation: "m/44'/60'/0'/0/0" };
  const ok = await reg({ did, proof: { challenge, signature: signChallenge(seed, challenge).toUpperCase() }, displayName: 'Imported', addresses: [eth] });
  t.equal(ok.status, 201, JSON.stringify(ok.body));
  t.match(ok.body, { id: /^usr_/, did, didStatus: 'active', didTx: null });
  const me = await h.req('GET', '/v1/users/me', { cookie: cookieOf(ok) });
  t.match(me.body, { id: ok.body.id, did, origin: 'imported', publicKey: toHex(publicKey), displayName: 'Imported', didStatus: 'active', addresses: [{ chain: 'ledger', address: addressFromPublicKey(publicKey) }, eth] });

  const replay = await reg({ did, proof: { challenge, signature: signChallenge(seed, challenge) } });
  t.same([replay.status, replay.body.code], [400, 'CHALLENGE_UNKNOWN'], 'the used challenge replayed: 400');

  const next = await challengeFor(h, did);
  const signIn = await reg({ did, proof: { challenge: next, signature: signChallenge(seed, next) } });
  t.equal(signIn.status, 200, 'an already registered DID: a valid proof signs it in');
  t.equal(signIn.body.id, ok.body.id);
  const again = await h.req('GET', '/v1/users/me', { cookie: cookieOf(signIn) });
  t.same([again.body.id, again.body.displayName, again.body.addresses.length], [ok.body.id, 'Imported', 2], 'the profile is kept');

  const notOnChain = didForPublicKey(h.parts.base.network, keyPairFromSeed(generateSeed()).publicKey);
  t.same((await h.req('GET', `/v1/users/challenge?did=${notOnChain}`)).status, 404, 'no challenge for a DID not on chain');
  const notFound = await reg({ did: notOnChain, proof: { challenge: invented, signature: signChallenge(seed, invented) } });
  t.same([notFound.status, notFound.body.code], [404, 'DID_NOT_FOUND']);
  const foreign = `did:ledger:othernet:${addressFromPublicKey(publicKey)}`;
  const wrongNet = await h.req('GET', `/v1/users/challenge?did=${foreign}`);
  t.same([wrongNet.status, wrongNet.body.code], [400, 'WRONG_NETWORK']);
  t.same((await h.req('GET', '/v1/users/challenge')).status, 400, 'no did');
  t.same((await h.req('GET', '/v1/users/challenge?did=nope')).status, 400, 'not a DID');
  t.same((await h.req('GET', `/v1/users/challenge?did=${did}&x=1`)).status, 400, 'an unknown parameter');
});

t.test('after a guardian recovery moved the DID to a new key, a proof by the new key signs the user back in', async (t) => {
  const h = await startUsers(t);
  const owner = generateSeed();
  const guardian = generateSeed();
  const did = await h.createDid(owner);
  const guardianDid = await h.createDid(guardian);
  const ownerKey = keyPairFromSeed(owner).publicKey;
  const challenge = await challengeFor(h, did);
  const first = await h.req('POST', '/v1/users/register', { body: { did, proof: { challenge, signature: signChallenge(owner, challenge) } } });
  t.equal(first.status, 201);

  const send = async (json: string, hash: string) => {
    await h.rpc.sendTransaction(json);
    const receipt = await waitForReceipt(h.rpc, hash, { timeoutMs: 20_000 });
    t.equal((receipt as { status: string }).status, 'success', 'the transaction succeeded');
  };
  const policy = signAndEncode(h.node.chainId, buildSetRecoveryPolicy({ senderPubkey: ownerKey, nonce: 1n, did, guardians: [guardianDid], threshold: 1 }), owner);
  await send(policy.json, policy.hash);
  const newSeed = generateSeed();
  const newKey = keyPairFromSeed(newSeed).publicKey;
  const doc = (await h.rpc.didResolve(did)) as unknown as { version_id: string };
  const signature = guardianSignature({ chainId: h.node.chainId, did, newPublicKey: newKey, versionId: Number(doc.version_id), guardianSeed: guardian });
  const recover = signAndEncode(h.node.chainId, buildDidRecover({ senderPubkey: keyPairFromSeed(guardian).publicKey, nonce: 1n, did, newPublicKey: newKey, signatures: [{ guardian: guardianDid, signature }] }), guardian);
  await send(recover.json, recover.hash);

  const stale = await challengeFor(h, did);
  const byOld = await h.req('POST', '/v1/users/register', { body: { did, proof: { challenge: stale, signature: signChallenge(owner, stale) } } });
  t.equal(byOld.status, 403, 'the old key no longer proves control');
  const fresh = await challengeFor(h, did);
  const byNew = await h.req('POST', '/v1/users/register', { body: { did, proof: { challenge: fresh, signature: signChallenge(newSeed, fresh) } } });
  t.equal(byNew.status, 200, JSON.stringify(byNew.body));
  t.equal(byNew.body.id, first.body.id, 'the same user');
  const me = await h.req('GET', '/v1/users/me', { cookie: cookieOf(byNew) });
  t.match(me.body, { publicKey: toHex(newKey), address: addressFromPublicKey(newKey), addresses: [{ chain: 'ledger', address: addressFromPublicKey(newKey) }] });
  t.equal(me.body.addresses.length, 1, 'the old key\'s ledger entry is replaced');
  const lost = await h.req('GET', '/v1/users/me', { cookie: cookieOf(first) });
  t.same([lost.status, lost.body], [401, { error: 'Unauthorized' }], 'the sessions of the old key (the lost phone) ended');
});
