import t from 'tap';
import { fromHex, toHex, utf8, concatBytes, ByteWriter } from '../../node/protocol/bytes.js';
import { addressBytesFromPublicKey, addressFromPublicKey } from '../../node/protocol/address.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import { ed25519PublicKeyMultibase } from '../../node/crypto/multibase.js';
import {
  decodeTransaction,
  encodeTransaction,
  signingBytes,
  signTransaction,
  transactionFromJson,
  transactionHash,
  transactionHashBytes,
  transactionToJson,
  verifyTransactionSignature,
  MAX_TX_BYTES,
} from '../../node/protocol/transaction.js';
import { loadVectors } from '../fixtures/vectors.js';
import { parseJson, stringifyJson } from '../../node/protocol/json.js';
import { byteArrayFromJson } from '../../node/protocol/payloads.js';

const V = loadVectors('ledger-transactions.json');
const seed = fromHex(V.secret_key);

t.test('identifiers of the vector key', async (t) => {
  const pub = fromHex(V.public_key);
  t.equal(addressFromPublicKey(pub), V.address);
  t.equal(V.address.length, 28);
  t.equal(addressFromPublicKey(fromHex(V.recipient_public_key)), V.recipient_address);
  t.equal(didForPublicKey('testnet', pub), V.did);
  t.equal(ed25519PublicKeyMultibase(pub), V.public_key_multibase);
});

for (const v of V.vectors) {
  t.test(`vector ${v.kind}`, async (t) => {
    const { tx } = transactionFromJson(v.json);
    t.equal(toHex(signingBytes(V.chain_id, tx)), v.signing_bytes, 'signing bytes');
    t.equal(toHex(tx.signature), v.signature, 'signature');
    t.equal(transactionHash(V.chain_id, tx), v.hash, 'hash');
    t.equal(toHex(encodeTransaction(tx)), v.encoded, 'binary encoding');
    t.ok(verifyTransactionSignature(V.chain_id, tx), 'verifies on its chain');
    t.notOk(verifyTransactionSignature('ledger-mainnet-1', tx), 'never verifies on another chain');
    const resigned = signTransaction(V.chain_id, { senderPubkey: tx.senderPubkey, nonce: tx.nonce, payload: tx.payload }, seed);
    t.equal(toHex(resigned.signature), v.signature, 'signing is deterministic');
    t.same(decodeTransaction(encodeTransaction(tx)), tx, 'binary round trip');
    t.same(transactionFromJson(transactionToJson(tx)).tx, tx, 'JSON round trip');
    // a decoded transaction keeps the bytes it came from; everything derived from them is the same
    const wire = fromHex(v.encoded);
    const decoded = decodeTransaction(wire);
    t.equal(encodeTransaction(decoded), wire, 'its encoding is the bytes it was decoded from');
    t.equal(toHex(signingBytes(V.chain_id, decoded)), v.signing_bytes, 'signing bytes from the kept encoding');
    t.equal(transactionHash(V.chain_id, decoded), v.hash, 'hash from the kept encoding');
    t.ok(verifyTransactionSignature(V.chain_id, decoded), 'verifies from the kept encoding');
    t.notOk(verifyTransactionSignature('ledger-mainnet-1', decoded), 'and still never on another chain');
    t.not(transactionHash('ledger-mainnet-1', decoded), v.hash, 'the hash is per chain');
  });
}

t.test('the Transfer signing bytes follow docs/protocol.md piece by piece', async (t) => {
  const v = V.vectors[0];
  const expected = concatBytes(
    utf8('ledger-tx-v1'),
    new ByteWriter().str(V.chain_id).finish(),
    fromHex(V.public_key),
    fromHex('0000000000000000'), // nonce 0
    Uint8Array.of(0), // Transfer
    addressBytesFromPublicKey(fromHex(V.recipient_public_key)),
    fromHex('00000000000000000000000008f0d180'), // 150000000 as u128
  );
  t.equal(toHex(expected), v.signing_bytes);
});

t.test('raw form writes the recipient as 20 bytes', async (t) => {
  const { tx } = transactionFromJson(V.vectors[0].json);
  const raw = transactionToJson(tx, 'raw');
  const to = (raw.payload.Transfer as { to: number[] }).to;
  t.equal(to.length, 20);
  t.same(transactionFromJson(raw).tx, tx, 'the raw form decodes to the same transaction');
});

t.test('malformed transactions are rejected with precise errors', async (t) => {
  const good = V.vectors[0].json;
  const cases: Array<[string, unknown, string]> = [
    ['not an object', [], 'MALFORMED_TRANSACTION'],
    ['missing nonce', { ...good, nonce: undefined }, 'MALFORMED_TRANSACTION'],
    ['unknown field', { ...good, fee: 1 }, 'MALFORMED_TRANSACTION'],
    ['short key', { ...good, sender_pubkey: good.sender_pubkey.slice(1) }, 'MALFORMED_TRANSACTION'],
    ['byte > 255', { ...good, signature: [...good.signature.slice(1), 256] }, 'MALFORMED_TRANSACTION'],
    ['negative nonce', { ...good, nonce: -1 }, 'MALFORMED_TRANSACTION'],
    ['float nonce', { ...good, nonce: 1.5 }, 'MALFORMED_TRANSACTION'],
    ['nonce above 2^64', { ...good, nonce: 1n << 64n }, 'MALFORMED_TRANSACTION'],
    ['two payload keys', { ...good, payload: { Stake: { amount: 1 }, Unstake: { amount: 1 } } }, 'MALFORMED_PAYLOAD'],
    ['unknown payload', { ...good, payload: { Mint: { amount: 1 } } }, 'MALFORMED_PAYLOAD'],
    ['zero amount', { ...good, payload: { Stake: { amount: 0 } } }, 'MALFORMED_PAYLOAD'],
    ['float amount', { ...good, payload: { Stake: { amount: 0.5 } } }, 'BAD_AMOUNT'],
    ['amount above u128', { ...good, payload: { Stake: { amount: 1n << 128n } } }, 'BAD_AMOUNT'],
    ['bad recipient', { ...good, payload: { Transfer: { to: 'not-base58-0OIl', amount: 1 } } }, 'MALFORMED_PAYLOAD'],
    ['DID without network', { ...good, payload: { DidDeactivate: { did: `did:ledger:${V.address}` } } }, 'MALFORMED_PAYLOAD'],
    ['too many services', { ...good, payload: { DidCreate: { service: Array(9).fill({ id: 'a', type: 'b', serviceEndpoint: 'c' }) } } }, 'MALFORMED_PAYLOAD'],
    ['chain_id not a string', { ...good, chain_id: 7 }, 'MALFORMED_TRANSACTION'],
  ];
  for (const [name, value, code] of cases) {
    const v = value && typeof value === 'object' && !Array.isArray(value) ? JSON.parse(JSON.stringify(value, (_k, x) => (typeof x === 'bigint' ? `__big${x}` : x)), (_k, x) => (typeof x === 'string' && x.startsWith('__big') ? BigInt(x.slice(5)) : x)) : value;
    t.throws(() => transactionFromJson(v), { code }, name);
  }
});

t.test('integers only: a number written with a fraction or exponent is refused, even when whole', async (t) => {
  const stake = stringifyJson({ ...V.vectors[0].json, payload: { Stake: { amount: 1000 } } });
  t.ok(transactionFromJson(parseJson(stake)), 'the integer literals decode');
  for (const literal of ['1000.0', '1e3', '1e-400']) {
    t.throws(() => transactionFromJson(parseJson(stake.replace('"amount":1000', `"amount":${literal}`))), { code: 'BAD_AMOUNT', data: { path: 'payload.Stake.amount' } }, `amount ${literal}`);
  }
  const nonce = (V.vectors[0].json as { nonce: number }).nonce;
  for (const literal of [`${nonce}.0`, `${nonce}e0`, '1e-400']) {
    t.throws(() => transactionFromJson(parseJson(stake.replace(`"nonce":${nonce}`, `"nonce":${literal}`))), { code: 'MALFORMED_TRANSACTION', data: { path: 'nonce' } }, `nonce ${literal}`);
  }
  const sig = stake.replace(/"signature":\[(\d+),/, (_m, b: string) => `"signature":[${b}.0,`);
  t.not(sig, stake);
  t.throws(() => transactionFromJson(parseJson(sig)), { code: 'MALFORMED_TRANSACTION', data: { path: 'signature[0]' } }, 'a byte written 7.0');
  const key = stake.replace(/"sender_pubkey":\[(\d+),/, '"sender_pubkey":[1e-400,');
  t.throws(() => byteArrayFromJson((parseJson(key) as { sender_pubkey: unknown }).sender_pubkey, 32, 'sender_pubkey'), { code: 'MALFORMED_TRANSACTION' }, 'byteArrayFromJson alone refuses a byte written 1e-400');
});

t.test('a lone surrogate in a DID or service string is refused, not stored as U+FFFD', async (t) => {
  const create = stringifyJson({ ...V.vectors[0].json, payload: { DidCreate: { service: [{ id: 'pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example/LONE' }] } } });
  t.ok(transactionFromJson(parseJson(create.replace('LONE', 'x'))), 'well-formed');
  t.throws(() => parseJson(create.replace('LONE', '\\ud800')), { code: 'JSON_PARSE', message: /not well-formed Unicode \(lone surrogate U\+D800\)/ }, 'escaped');
  t.throws(() => parseJson(create.replace('LONE', '\udc00')), { code: 'JSON_PARSE', message: /not well-formed Unicode/ }, 'raw');
  const deactivate = stringifyJson({ ...V.vectors[0].json, payload: { DidDeactivate: { did: 'did:ledger:testnet:\ud800' } } });
  t.throws(() => parseJson(deactivate), { code: 'JSON_PARSE', message: /not well-formed Unicode/ }, 'in a DID');
});

t.test('amounts above 2^53 stay exact', async (t) => {
  const big = (1n << 62n) + 7n;
  const { tx } = transactionFromJson({ ...V.vectors[1].json, payload: { Stake: { amount: big } } });
  t.equal((tx.payload as { amount: bigint }).amount, big);
  t.equal((decodeTransaction(encodeTransaction(tx)).payload as { amount: bigint }).amount, big);
  t.equal(transactionFromJson({ ...V.vectors[1].json, payload: { Stake: { amount: big.toString() } } }).tx.payload.kind, 'Stake', 'digit strings are accepted');
});

t.test('binary decoding rejects trailing, truncated and oversized input', async (t) => {
  const bytes = encodeTransaction(transactionFromJson(V.vectors[0].json).tx);
  t.throws(() => decodeTransaction(concatBytes(bytes, Uint8Array.of(0))), { code: 'TRAILING_BYTES' });
  t.throws(() => decodeTransaction(bytes.slice(0, -1)), { code: 'TRUNCATED' });
  t.throws(() => decodeTransaction(new Uint8Array(MAX_TX_BYTES + 1)), { code: 'TX_TOO_LARGE' });
});

t.test('a transaction hash is computed once per object and chain id; an address once per key', async (t) => {
  const { tx } = transactionFromJson(V.vectors[0].json);
  const first = transactionHashBytes(V.chain_id, tx);
  t.equal(transactionHashBytes(V.chain_id, tx), first, 'the same bytes object: remembered');
  t.equal(transactionHash(V.chain_id, tx), V.vectors[0].hash);
  t.not(transactionHash('ledger-mainnet-1', tx), V.vectors[0].hash, 'another chain id: another hash');
  t.equal(transactionHash(V.chain_id, tx), V.vectors[0].hash, 'and back');
  const a = addressBytesFromPublicKey(tx.senderPubkey);
  a.fill(0);
  t.equal(addressFromPublicKey(tx.senderPubkey), V.address, 'a caller changing its copy changes nothing');
});
