import t from 'tap';
import { randomUUID } from 'node:crypto';
import {
  buildCredentialRequest,
  buildCredentialRevoke,
  buildDidCreate,
  buildTransfer,
  generateSeed,
  keyPairFromSeed,
  didForPublicKey,
  RpcClient,
  signAndEncode,
  UNIT,
  waitForReceipt,
} from '../../../node/client/index.js';
import { addressFromPublicKey } from '../../../node/protocol/address.js';
import { createExplorer } from '../../../plugins/explorer/index.js';
import { startTestNode } from '../../fixtures/real-node.js';
import { backends, stopPostgres } from './backends.js';

/** DIDs and credentials as the explorer shows them, on a real one-validator node with the explorer on. */
for (const backend of backends()) {
  t.test(`${backend.name}: DID and credential rows, issuer stats, filters, live fields, and the routes order`, { skip: backend.skip }, async (t) => {
    const node = await startTestNode(t, { plugins: [createExplorer({ store: await backend.index(t) })] });
    const explorerUrl = (node.plugins[0] as { url: string }).url;
    const rpc = new RpcClient(node.url);
    const get = async (path: string) => {
      const res = await fetch(`${explorerUrl}${path}`);
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const send = async (unsigned: Parameters<typeof signAndEncode>[1], seed: Uint8Array) => {
      const s = signAndEncode(node.chainId, unsigned, seed);
      await rpc.sendTransaction(s.json);
      return waitForReceipt(rpc, s.hash, { timeoutMs: 20_000 });
    };
    const issuer = keyPairFromSeed(generateSeed());
    const subject = keyPairFromSeed(generateSeed());
    const issuerDid = didForPublicKey('testnet', issuer.publicKey);
    const subjectDid = didForPublicKey('testnet', subject.publicKey);
    for (const [i, k] of [issuer, subject].entries()) {
      await send(buildTransfer({ senderPubkey: node.dev.publicKey, nonce: i, to: addressFromPublicKey(k.publicKey), amount: 100n * UNIT }), node.dev.seed);
      await send(buildDidCreate({ senderPubkey: k.publicKey, nonce: 0 }), k.seed);
    }
    const ids = [randomUUID(), randomUUID()];
    for (const [i, id] of ids.entries()) {
      const r = await send(
        buildCredentialRequest({ senderPubkey: issuer.publicKey, nonce: 1 + i, credentialId: id, credentialType: i === 0 ? 'KYCCredential' : 'EmailVerificationCredential', ...(i === 0 ? { kycLevel: 2 } : {}), subjectDid, issuerDid, hash: new Uint8Array(32).fill(i + 1), evidenceDigest: new Uint8Array(32), statusList: 0, statusIndex: i }),
        issuer.seed,
      );
      t.equal(r.status, 'success');
    }
    for (const id of ids) for (let i = 0; i < 100 && (await rpc.getCredentialRequest(id))?.status !== 'registered'; i++) await new Promise((r) => setTimeout(r, 100));
    t.equal((await send(buildCredentialRevoke({ senderPubkey: issuer.publicKey, nonce: 3, credentialId: ids[1]! }), issuer.seed)).status, 'success');
    const head = (await rpc.canonHead())!.seq;
    for (let i = 0; i < 100 && (await get('/api/v1/blocks')).body.total <= head; i++) await new Promise((r) => setTimeout(r, 50));

    const did = await get(`/api/v1/dids/${issuerDid}`);
    t.match(did.body, { did: issuerDid, controller: issuerDid, active: true, created_ms: /^\d+$/, tx_hash: /^[0-9a-f]{64}$/, credentials_count: 2 });
    t.match(did.body.live_document, { id: issuerDid, active: true });
    t.equal((await get(`/api/v1/dids/${issuerDid.replace('testnet', 'mainnet')}`)).status, 400, 'another network');
    t.equal((await get(`/api/v1/dids/${didForPublicKey('testnet', keyPairFromSeed(generateSeed()).publicKey)}`)).status, 404);

    const urns = ids.map((id) => `urn:ledger:credential:${id}`);
    const all = await get('/api/v1/credentials');
    t.match(all.body, { total: 2, page: 1, limit: 20 });
    t.same(all.body.data.map((c: { credential_id: string }) => c.credential_id), [...urns].reverse(), 'newest first');
    t.match(all.body.data[1], { issuer_did: issuerDid, subject_did: subjectDid, credential_type: 'KYCCredential', hash: '01'.repeat(32), issued_ms: /^\d+$/, revoked: false, revoked_ms: null });
    t.match(all.body.data[0], { credential_type: 'EmailVerificationCredential', revoked: true, revoked_ms: /^\d+$/ });
    t.equal((await get('/api/v1/credentials?type=KYCCredential')).body.total, 1);
    t.equal((await get(`/api/v1/credentials?issuer=${issuerDid}`)).body.total, 2);
    t.equal((await get(`/api/v1/credentials?subject=${issuerDid}`)).body.total, 0);
    t.equal((await get('/api/v1/credentials?type=Passport')).status, 400);
    t.equal((await get(`/api/v1/credentials?type=KYCCredential&issuer=${issuerDid}`)).status, 400, 'one filter at a time');
    t.equal((await get(`/api/v1/dids/${subjectDid}/credentials`)).body.total, 2);

    const issuers = await get('/api/v1/credentials/issuers');
    t.match(issuers.body, { total: 1, data: [{ issuer_did: issuerDid, credentials_issued: 2, active_credentials: 1, revoked_credentials: 1 }] }, '"issuers" is not read as an id');
    const stats = await get(`/api/v1/credentials/issuers/${issuerDid}`);
    t.same(stats.body, issuers.body.data[0], "one issuer's stats, as in the list");
    t.equal((await get(`/api/v1/credentials/issuers/${subjectDid}`)).status, 404, 'a DID that issued nothing');
    t.equal((await get('/api/v1/credentials/issuers/did:ledger:testnet:0OIl')).status, 400, 'not a DID');
    const one = await get(`/api/v1/credentials/${ids[0]}`);
    t.match(one.body, { credential_id: urns[0], verification: { valid: true, revoked: false, credential: { id: urns[0] } } });
    t.match((await get(`/api/v1/credentials/${urns[1]}`)).body, { verification: { valid: false, revoked: true } });
    t.equal((await get(`/api/v1/credentials/${randomUUID()}`)).status, 404);
    t.equal((await get('/api/v1/credentials/not-an-id')).status, 400);

    const sum = (body: { data: Array<{ count: number }> }) => body.data.reduce((n, b) => n + b.count, 0);
    t.equal(sum((await get('/api/v1/stats/charts?metric=dids&range=1h')).body as never), 2, 'the two DIDs of the last hour');
    t.equal(sum((await get('/api/v1/stats/charts?metric=transactions&range=1h')).body as never), (await get('/api/v1/txs')).body.total);
    t.match((await get('/api/v1/stats/network')).body, { dids: { total_dids: 2, active_dids: 2 }, credentials: { total_credentials: 2, active_credentials: 1 } });
    t.match((await get(`/api/v1/search?q=${issuerDid}`)).body, { total: 1, data: [{ type: 'did', data: { did: issuerDid } }] });
    t.match((await get(`/api/v1/search?q=${ids[0]}`)).body, { total: 1, data: [{ type: 'credential', data: { credential_id: urns[0] } }] });
  });
}
t.teardown(stopPostgres);
