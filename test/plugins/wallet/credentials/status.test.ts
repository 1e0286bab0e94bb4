import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { didForPublicKey, generateSeed, keyPairFromSeed, RevocationList } from '../../../../node/client/index.js';
import { CredentialStatusChecker, statusPointer } from '../../../../plugins/wallet/credentials/status.js';
import type { CachedCredential } from '../../../../plugins/wallet/credentials/store.js';
import { STATUS_TIMEOUT_MS } from '../../../../plugins/wallet/credentials/upstream.js';
import { startWallet } from '../harness.js';

/**
 * The status refresh of cached credentials: the chain's view (a credential the chain does not
 * know is not valid; its issuer's DID state is read), and the verification service's, best
 * effort, from real local servers: a served revocation list, a health endpoint, one that hangs,
 * one that is down, and URLs the wallet will not contact. No upstream failure fails the refresh.
 */

async function serve(t: { teardown(fn: () => unknown): void }, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

const uuid = () => crypto.randomUUID();

function record(o: { issuer: string; status?: { url: string; index: string } | null; expirationDate?: string | null; id?: string }): CachedCredential {
  const id = o.id ?? `urn:ledger:credential:${uuid()}`;
  return {
    id,
    userId: 'usr_test',
    format: 'ldp_vc',
    credential: { id, ...(o.status ? { credentialStatus: { id: `${o.status.url}#${o.status.index}`, type: 'RevocationList2020Status', revocationListIndex: o.status.index, revocationListCredential: o.status.url } } : {}) },
    issuer: o.issuer,
    types: ['VerifiableCredential', 'KYCCredential'],
    subjectDid: 'did:ledger:testnet:subject',
    issuanceDate: '2024-01-01T00:00:00Z',
    expirationDate: o.expirationDate === undefined ? '2999-01-01T00:00:00Z' : o.expirationDate,
    offerIssuer: 'http://127.0.0.1:1',
    redeemedAt: '2024-01-01T00:00:00.000Z',
    status: { valid: true, revoked: false, issuerActive: true, registered: true, expired: false, checkedAt: '2024-01-01T00:00:00.000Z', source: 'chain' },
  };
}

t.test('statusPointer reads a RevocationList2020 entry', async (t) => {
  t.same(statusPointer({ credentialStatus: { revocationListCredential: 'https://x/l/0', revocationListIndex: '42' } }), { url: 'https://x/l/0', index: 42 });
  t.same(statusPointer({ credentialStatus: { revocationListCredential: 'https://x/l/0', revocationListIndex: 7 } }), { url: 'https://x/l/0', index: 7 });
  t.equal(statusPointer({ credentialStatus: { revocationListCredential: 'https://x/l/0', revocationListIndex: '-1' } }), undefined);
  t.equal(statusPointer({ credentialStatus: { revocationListIndex: '1' } }), undefined);
  t.equal(statusPointer(null), undefined);
  t.equal(statusPointer('a jwt'), undefined);
});

t.test('chain status and best-effort verification-service status', async (t) => {
  const h = await startWallet(t, () => undefined);
  const issuerSeed = generateSeed();
  const issuer = await h.createDid(issuerSeed);
  const unknownIssuer = didForPublicKey(h.parts.base.network, keyPairFromSeed(generateSeed()).publicKey);

  const list = RevocationList.empty().revoke(5);
  const lists = await serve(t, (req, res) => {
    if (req.url === '/lists/0') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer, credentialSubject: { encodedList: list.encodedList() } }));
    if (req.url === '/lists/other') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: unknownIssuer, credentialSubject: { encodedList: list.encodedList() } }));
    if (req.url === '/lists/junk') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":1}');
    if (req.url === '/v1/health') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    res.writeHead(404).end();
  });
  const hang = await serve(t, () => undefined);
  let kycUrl = lists.url;
  const checker = new CredentialStatusChecker({ chain: h.parts.base.chain, kycUrl: () => kycUrl, now: Date.now, timeoutMs: 400 });
  t.equal(STATUS_TIMEOUT_MS, 3000, 'the best-effort checks wait 3 s in production');

  await t.test('the chain: an unknown credential is not valid; the issuer DID state is read', async (t) => {
    const unknown = await checker.chainStatus(`urn:ledger:credential:${uuid()}`, issuer, null);
    t.match(unknown, { valid: false, registered: false, revoked: false, issuerActive: true, expired: false, source: 'chain', checkedAt: /Z$/ });
    t.match(await checker.chainStatus('not-an-id', unknownIssuer, null), { valid: false, registered: false, issuerActive: false });
    t.match(await checker.chainStatus(`urn:ledger:credential:${uuid()}`, issuer, '2000-01-01T00:00:00Z'), { expired: true, valid: false });
  });

  await t.test('the revocation list the credential names, fetched once per refresh', async (t) => {
    const url = `${lists.url}/lists/0`;
    const before = lists.hits.length;
    const [revoked, fine, outside] = await checker.refresh([
      record({ issuer, status: { url, index: '5' } }),
      record({ issuer, status: { url, index: '6' } }),
      record({ issuer, status: { url, index: '131072' } }),
    ]);
    t.equal(lists.hits.length - before, 1, 'one request for the shared list');
    t.match(revoked!.kycStatus, { reachable: true, via: 'status-list', url, revoked: true, checkedAt: /Z$/ });
    t.match(fine!.kycStatus, { reachable: true, revoked: false });
    t.notOk('error' in fine!.kycStatus!);
    t.match(outside!.kycStatus, { reachable: true, error: /outside the list/ });
    t.match(revoked!.status, { registered: false, valid: false }, 'the chain status is refreshed too');
  });

  await t.test('failures are recorded, never thrown', async (t) => {
    const [other, junk, missing, slow, refused, down] = await checker.refresh([
      record({ issuer, status: { url: `${lists.url}/lists/other`, index: '1' } }),
      record({ issuer, status: { url: `${lists.url}/lists/junk`, index: '1' } }),
      record({ issuer, status: { url: `${lists.url}/lists/9`, index: '1' } }),
      record({ issuer, status: { url: `${hang.url}/lists/0`, index: '1' } }),
      record({ issuer, status: { url: 'http://192.0.2.1/lists/0', index: '1' } }),
      record({ issuer, status: { url: 'http://127.0.0.1:1/lists/0', index: '1' } }),
    ]);
    t.match(other!.kycStatus, { reachable: true, error: /not by the credential's issuer/ });
    t.match(junk!.kycStatus, { reachable: false, error: /not a RevocationList2020 credential/ });
    t.match(missing!.kycStatus, { reachable: false, error: /HTTP 404/ });
    t.match(slow!.kycStatus, { reachable: false, error: /did not answer within 400 ms/ });
    t.match(refused!.kycStatus, { reachable: false, error: /only https URLs are/ });
    t.match(down!.kycStatus, { reachable: false, error: /unreachable/ });
  });

  await t.test('without a status list: whether the verification service answers', async (t) => {
    const [up] = await checker.refresh([record({ issuer, status: null })]);
    t.match(up!.kycStatus, { reachable: true, via: 'health', url: `${lists.url}/v1/health` });
    kycUrl = 'http://127.0.0.1:1';
    const [gone] = await checker.refresh([record({ issuer, status: null })]);
    t.match(gone!.kycStatus, { reachable: false, via: 'health', error: /unreachable/ });
    t.same(await checker.refresh([]), []);
  });
});
