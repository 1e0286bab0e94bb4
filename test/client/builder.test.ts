import t from 'tap';
import { buildDidCreate, buildDidDeactivate, buildStake, buildTransfer, buildUnstake, signAndEncode } from '../../node/client/builder.js';
import { generateSeed, keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { addressFromPublicKey } from '../../node/protocol/address.js';
import { parseTokens } from '../../node/protocol/amount.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import { parseJson } from '../../node/protocol/json.js';
import { transactionFromJson, transactionHash, verifyTransactionSignature } from '../../node/protocol/transaction.js';

const seed = generateSeed();
const { publicKey } = keyPairFromSeed(seed);
const recipient = addressFromPublicKey(keyPairFromSeed(generateSeed()).publicKey);
const chainId = 'ledger-testnet-1';

t.test('every builder yields a transaction that signs, verifies and survives its JSON form', async (t) => {
  const base = { senderPubkey: publicKey, nonce: 7 };
  const cases = [
    buildTransfer({ ...base, to: recipient, amount: parseTokens('1.5') }),
    buildStake({ ...base, amount: parseTokens('10000') }),
    buildUnstake({ ...base, amount: 1n }),
    buildDidCreate({ ...base, service: [{ id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example/a' }] }),
    buildDidCreate(base),
    buildDidDeactivate({ ...base, did: didForPublicKey('testnet', publicKey) }),
  ];
  for (const unsigned of cases) {
    t.equal(unsigned.nonce, 7n);
    const { tx, json, hash } = signAndEncode(chainId, unsigned, seed);
    t.ok(verifyTransactionSignature(chainId, tx), `${unsigned.payload.kind} verifies`);
    t.notOk(verifyTransactionSignature('ledger-other-1', tx), 'and only on its chain');
    t.equal(hash, transactionHash(chainId, tx));
    const decoded = transactionFromJson(parseJson(json));
    t.equal(decoded.chainId, chainId, 'the JSON carries chain_id');
    t.same(decoded.tx, tx, 'the JSON decodes to the same transaction');
  }
  const transfer = cases[0]!;
  t.same(transfer.payload, { kind: 'Transfer', to: transfer.payload.kind === 'Transfer' ? transfer.payload.to : null, amount: 150_000_000n });
});

t.test('builders refuse what the node would refuse', async (t) => {
  const base = { senderPubkey: publicKey, nonce: 0n };
  t.throws(() => buildTransfer({ ...base, to: 'nope', amount: 1n }), { code: 'BAD_ADDRESS' });
  t.throws(() => buildTransfer({ ...base, to: recipient, amount: 0n }), { message: /greater than zero/ });
  t.throws(() => buildStake({ ...base, amount: 1n << 128n }), { code: 'BAD_AMOUNT' });
  t.throws(() => buildDidDeactivate({ ...base, did: 'did:ledger:abc' }), { message: /DidDeactivate\.did/ });
  t.throws(() => buildDidCreate({ ...base, service: [{ id: '', type: 'x', serviceEndpoint: 'y' }] }), { message: /service\[0\]\.id/ });
  t.throws(() => buildUnstake({ ...base, nonce: -1n, amount: 1n }), { code: 'BAD_NONCE' });
  t.throws(() => buildUnstake({ senderPubkey: new Uint8Array(31), nonce: 0n, amount: 1n }), { code: 'BAD_PUBLIC_KEY' });
});

t.test('signAndEncode refuses a seed that is not the sender', async (t) => {
  const unsigned = buildStake({ senderPubkey: publicKey, nonce: 0n, amount: 1n });
  t.throws(() => signAndEncode(chainId, unsigned, generateSeed()), { code: 'KEY_MISMATCH' });
});

t.test('a nonce beyond 2^53 stays exact in the JSON text', async (t) => {
  const nonce = (1n << 60n) + 1n;
  const { json } = signAndEncode(chainId, buildStake({ senderPubkey: publicKey, nonce, amount: 1n }), seed);
  t.match(json, `"nonce":${nonce}`);
  t.equal(transactionFromJson(parseJson(json)).tx.nonce, nonce);
});
