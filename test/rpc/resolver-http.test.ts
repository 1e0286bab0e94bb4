import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { HttpServer } from '../../node/http/server.js';
import { ADDRESS_LENGTH, addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { didForIdentifier } from '../../node/protocol/did.js';
import { didKey, encodeDid, type DidRecord } from '../../node/protocol/records.js';
import { RESOLVER_PATH, resolverRoute } from '../../node/rpc/resolver.js';
import { ChainStore } from '../../node/state/chain-store.js';
import { openDatabase } from '../../node/state/db.js';
import { genesis, nextBlock } from '../fixtures/chain-blocks.js';
import { rawRequest } from '../fixtures/raw-http.js';

/** The resolver route as the node mounts it, over a real ChainStore holding an active and a deactivated DID, fetched over HTTP. */

const NETWORK = 'testnet';
const RESULT_TYPE = 'application/ld+json;profile="https://w3id.org/did-resolution"';
const key = keyPairFromSeed(new Uint8Array(32).fill(5));
const ACTIVE_ID = addressBytesFromPublicKey(key.publicKey);
const GONE_ID = new Uint8Array(ADDRESS_LENGTH).fill(0x66);
const ACTIVE = didForIdentifier(NETWORK, ACTIVE_ID);
const GONE = didForIdentifier(NETWORK, GONE_ID);
const UNKNOWN = didForIdentifier(NETWORK, new Uint8Array(ADDRESS_LENGTH).fill(0x77));

const record = (did: string, active: boolean): DidRecord => ({
  did,
  publicKey: active ? key.publicKey : null,
  service: [{ id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example' }],
  active,
  createdMs: 1_700_000_000_000,
  updatedMs: 1_700_000_000_000 + (active ? 0 : 60_000),
  versionId: active ? 1 : 2,
  txHash: new Uint8Array(32).fill(1),
});

t.before(async () => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = await ChainStore.open(db, { chainId: 'resolver-http-test' });
  const g = await genesis();
  await store.initGenesis(g.block, g.changes, g.treeNodes);
  const puts = [
    { key: didKey(ACTIVE_ID), value: encodeDid(record(ACTIVE, true)) },
    { key: didKey(GONE_ID), value: encodeDid(record(GONE, false)) },
  ];
  await store.commitBlock(await nextBlock(store, { puts }));
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 * 1024 });
  http.route('GET', RESOLVER_PATH, resolverRoute({ network: NETWORK, lookup: (id) => store.dids.get(id) }));
  ({ port } = await http.listen());
  t.teardown(() => http.close());
});
let port = 0;
const base = '/1.0/identifiers/';

/** A GET with exactly the Accept given, so that "no Accept" really sends none (fetch adds one). */
async function get(did: string, accept?: string): Promise<{ status: number; type?: string; vary?: string; body: Record<string, unknown> }> {
  const res = await rawRequest(port, { path: base + did, headers: accept === undefined ? {} : { accept } });
  return { status: res.status, type: res.headers['content-type'], vary: res.headers.vary, body: JSON.parse(res.body.toString('utf8')) as Record<string, unknown> };
}

const resultShape = { didDocument: { id: ACTIVE, '@context': Array }, didDocumentMetadata: { deactivated: false, versionId: '1' }, didResolutionMetadata: { contentType: 'application/did+ld+json', retrieved: String } };

t.test('the resolution result by default and for every way of asking for it', async (t) => {
  for (const accept of [undefined, '*/*', 'application/json', 'application/ld+json', RESULT_TYPE, 'application/ld+json;profile=https://w3id.org/did-resolution', `${RESULT_TYPE},application/did+ld+json`]) {
    const r = await get(ACTIVE, accept);
    t.equal(r.status, 200, String(accept));
    t.equal(r.type, `${RESULT_TYPE}; charset=utf-8`, String(accept));
    t.equal(r.vary, 'Accept');
    t.match(r.body, resultShape, String(accept));
  }
  const r = await get(ACTIVE, 'application/did-resolution');
  t.match(r, { status: 200, type: 'application/did-resolution', vary: 'Accept', body: resultShape });
});

t.test('the DID document itself when it is asked for', async (t) => {
  const ld = await get(ACTIVE, 'application/did+ld+json');
  t.match(ld, { status: 200, type: 'application/did+ld+json; charset=utf-8', vary: 'Accept' });
  t.same(Object.keys(ld.body).sort(), ['@context', 'assertionMethod', 'authentication', 'controller', 'id', 'service', 'verificationMethod']);
  t.equal(ld.body.id, ACTIVE);
  const plain = await get(ACTIVE, `application/did+json, ${RESULT_TYPE};q=0.5`);
  t.match(plain, { status: 200, type: 'application/did+json; charset=utf-8', vary: 'Accept' });
  const { '@context': _context, ...rest } = ld.body;
  t.same(plain.body, rest, 'the JSON representation: no @context');
  t.match(await get(ACTIVE, `application/did+ld+json;q=0.4, ${RESULT_TYPE};q=0.6`), { status: 200, type: `${RESULT_TYPE}; charset=utf-8` }, 'q decides');
});

t.test('a deactivated DID: 410 with the resolution result, whatever was asked for', async (t) => {
  for (const accept of [undefined, 'application/did+ld+json', 'application/did+json']) {
    const r = await get(GONE, accept);
    t.match(r, { status: 410, type: `${RESULT_TYPE}; charset=utf-8`, vary: 'Accept' }, String(accept));
    t.match(r.body, { didDocument: { id: GONE, verificationMethod: [] }, didDocumentMetadata: { deactivated: true, versionId: '2' }, didResolutionMetadata: { contentType: 'application/did+ld+json' } });
  }
});

t.test('errors: 400, 404, 406 as resolution results with the error', async (t) => {
  const error = (error: string) => ({ didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error, errorMessage: String, retrieved: String } });
  const cases: [string, string | undefined, number, string][] = [
    [UNKNOWN, undefined, 404, 'notFound'],
    [UNKNOWN, 'application/did+ld+json', 404, 'notFound'],
    [ACTIVE.replace(NETWORK, 'mainnet'), 'application/did+json', 404, 'notFound'],
    ['did:web:example.com', undefined, 400, 'invalidDid'],
    [`did:ledger:${ACTIVE.split(':')[3]}`, 'application/did+ld+json', 400, 'invalidDid'],
    [ACTIVE, 'text/html', 406, 'representationNotSupported'],
    [ACTIVE, 'application/did+ld+json;q=0, application/xml', 406, 'representationNotSupported'],
  ];
  for (const [did, accept, status, code] of cases) {
    const r = await get(did, accept);
    t.match(r, { status, type: `${RESULT_TYPE}; charset=utf-8`, vary: 'Accept', body: error(code) }, `${did} ${accept}`);
  }
  t.match(await get(UNKNOWN, 'application/did-resolution'), { status: 404, type: 'application/did-resolution', body: error('notFound') });
});
