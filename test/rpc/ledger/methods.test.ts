import type { Evidence } from '../../../node/consensus/types.js';
import t, { type Test } from 'tap';
import { NATIVE_TOKEN, UNIT } from '../../../node/protocol/amount.js';
import { ADDRESS_LENGTH, formatAddress } from '../../../node/protocol/address.js';
import { blockToJson } from '../../../node/protocol/block.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { didForIdentifier } from '../../../node/protocol/did.js';
import { encodeValidatorSet, VALIDATOR_SET_KEY } from '../../../node/protocol/records.js';
import { parseJson, stringifyJson } from '../../../node/protocol/json.js';
import { signTransaction, transactionHash, transactionToJson } from '../../../node/protocol/transaction.js';
import { BIG, COUNTER, VALIDATORS, fillerAddress, nextBlock } from '../../fixtures/chain-blocks.js';
import { loadVectors } from '../../fixtures/vectors.js';
import { CHAIN, DID, DID_ID, FUNDER, NETWORK, UNBONDER, errorCode, funder, result, setup } from './harness.js';

t.test('chain: blocks, canonical head, block number, chain and node info', async (t) => {
  // the harness says the node started 5 s before it was set up
  const setUpFrom = Date.now();
  const { store, call } = await setup(t, { blocks: true });
  const latest = (await store.blocks.bySeq(2))!;
  t.same(result(await call('ledger_getLatestBlock')), blockToJson(CHAIN, latest));
  t.equal(latest.header.height, 4, 'height is lossy: seq 2 is at height 4');
  t.same(result(await call('ledger_getBlock', [4])), blockToJson(CHAIN, latest), 'by height');
  t.equal(result(await call('ledger_getBlock', [2])), null, 'no block at height 2');
  t.same(result(await call('ledger_getBlockBySeq', [2])), blockToJson(CHAIN, latest), 'by seq');
  t.equal(result(await call('ledger_getBlockBySeq', [3])), null);
  const block1 = result(await call('ledger_getBlockBySeq', [1])) as { tx_count: number; transactions: string[] };
  t.equal(block1.tx_count, 2);
  t.match(block1.transactions, [/^[0-9a-f]{64}$/, /^[0-9a-f]{64}$/], 'transactions are bare hex hashes');
  t.same(result(await call('ledger_canonHead')), { seq: 2, hash: toHex(latest.hash) });
  t.equal(result(await call('ledger_blockNumber')), 4);
  t.same(result(await call('ledger_chainInfo')), {
    chain_id: CHAIN,
    native_token: { ...NATIVE_TOKEN },
    genesis_hash: toHex(store.genesisHash!),
    latest_block: 4,
    version: '9.9.9-test',
  });
  const info = result(await call('ledger_nodeInfo')) as { version: string; uptime_seconds: number; rss_bytes: number };
  const upTo = Date.now();
  t.equal(info.version, '9.9.9-test');
  t.ok(info.uptime_seconds >= 5 && info.uptime_seconds <= Math.floor((upTo - setUpFrom) / 1000) + 5, 'uptime counts from startedAtMs');
  t.ok(Number.isSafeInteger(info.rss_bytes) && info.rss_bytes > 0);
  t.same(Object.keys(info).sort(), ['rss_bytes', 'uptime_seconds', 'version']);
});

t.test('chain: a store without blocks answers null', async (t) => {
  const { call } = await setup(t, { genesis: false });
  t.equal(result(await call('ledger_getLatestBlock')), null);
  t.equal(result(await call('ledger_canonHead')), null);
  t.equal(result(await call('ledger_getBlock', [0])), null);
  t.equal(result(await call('ledger_getBlockBySeq', [0])), null);
});

t.test('accounts: balance and nonce are exact integers beyond 2^60', async (t) => {
  const { call } = await setup(t, { blocks: true });
  const filler = formatAddress(fillerAddress(2, 1));
  const balance = result(await call('ledger_getBalance', [filler]));
  t.equal(typeof balance, 'bigint', 'the wire carries a bare integer literal');
  t.equal(balance, BIG + 1n);
  t.ok(BIG > 2n ** 60n);
  // small values arrive as plain JSON numbers
  t.equal(result(await call('ledger_getNonce', [filler])), 2);
  t.equal(result(await call('ledger_getBalance', [formatAddress(COUNTER)])), 2);
  t.equal(result(await call('ledger_getBalance', [formatAddress(FUNDER)])), Number(1_000n * UNIT));
  const unknown = formatAddress(new Uint8Array(ADDRESS_LENGTH).fill(0xee));
  t.equal(result(await call('ledger_getBalance', [unknown])), 0, 'an unknown account holds nothing');
  t.equal(result(await call('ledger_getNonce', [unknown])), 0);
});

t.test('getNonce "pending": after the sender\'s contiguous run in this mempool; "latest" is the committed nonce', async (t) => {
  const { mempool, call } = await setup(t);
  const from = formatAddress(FUNDER);
  const send = async (nonce: bigint) => {
    const tx = signTransaction(CHAIN, { senderPubkey: funder.publicKey, nonce, payload: { kind: 'Transfer', to: COUNTER, amount: 1n } }, funder.seed);
    return result(await call('ledger_sendTransaction', [stringifyJson(transactionToJson(tx))]));
  };
  t.equal(result(await call('ledger_getNonce', [from, 'pending'])), 0, 'nothing pending');
  for (let i = 0; i < 3; i++) {
    const nonce = BigInt(result(await call('ledger_getNonce', [from, 'pending'])) as number);
    t.equal(nonce, BigInt(i), 'back to back: each send takes the next pending nonce');
    await send(nonce);
  }
  t.equal(mempool.size, 3);
  t.equal(result(await call('ledger_getNonce', [from])), 0, 'no tag: the committed nonce, as before');
  t.equal(result(await call('ledger_getNonce', [from, 'latest'])), 0);
  t.equal(result(await call('ledger_getNonce', [from, null])), 0, 'null is the default');
  await send(5n);
  t.equal(result(await call('ledger_getNonce', [from, 'pending'])), 3, 'a gapped nonce is not counted');
  const other = formatAddress(new Uint8Array(ADDRESS_LENGTH).fill(0xee));
  t.equal(result(await call('ledger_getNonce', [other, 'pending'])), 0, 'an unknown account');
});

t.test('getNonce refuses any other block tag with a precise -32602', async (t) => {
  const { call } = await setup(t);
  const from = formatAddress(FUNDER);
  for (const tag of ['earliest', 'PENDING', 'safe', '0x1', 1, true, {}]) {
    const r = await call('ledger_getNonce', [from, tag]);
    t.equal(errorCode(r), -32602, JSON.stringify(tag));
    t.match(r.error, {
      message: 'invalid params: block (param 2) must be "latest" (the committed next nonce, the default) or "pending" (also counting the sender\'s transactions pending in this node\'s mempool)',
      data: { param: 'block', position: 2 },
    });
  }
  t.match((await call('ledger_getNonce', [from, 'pending', 1])).error, { code: -32602, message: /takes at most 2 params \(address, block\), got 3/ });
});

t.test('sendTransaction: a full mempool or a sender at its limit is -32010 busy, with MEMPOOL_FULL kept in data', async (t) => {
  const { call } = await setup(t, { mempool: { maxPerSender: 1 } });
  const text = (nonce: bigint) => stringifyJson(transactionToJson(signTransaction(CHAIN, { senderPubkey: funder.publicKey, nonce, payload: { kind: 'Transfer', to: COUNTER, amount: 1n } }, funder.seed)));
  result(await call('ledger_sendTransaction', [text(0n)]));
  const r = await call('ledger_sendTransaction', [text(1n)]);
  t.equal(errorCode(r), -32010);
  t.same(r.error!.data, { code: 'MEMPOOL_FULL', limit: 1, bound: 'per_sender', reason: 'sender_limit', retryAfterMs: 1000 });
  t.match(r.error!.message, /sender already has 1 pending transactions/);
});

t.test('sendTransaction: a pool full by count is busy mempool_full', async (t) => {
  const { call } = await setup(t, { mempool: { maxTransactions: 1 } });
  const text = (nonce: bigint) => stringifyJson(transactionToJson(signTransaction(CHAIN, { senderPubkey: funder.publicKey, nonce, payload: { kind: 'Transfer', to: COUNTER, amount: 1n } }, funder.seed)));
  result(await call('ledger_sendTransaction', [text(0n)]));
  const r = await call('ledger_sendTransaction', [text(1n)]);
  t.equal(errorCode(r), -32010);
  t.match(r.error!.data, { code: 'MEMPOOL_FULL', reason: 'mempool_full', bound: 'count', maxTransactions: 1, retryAfterMs: 1000 });
});

t.test('transactions: receipt, raw transaction, null for unknown hashes', async (t) => {
  const { store, call } = await setup(t, { blocks: true });
  const block = (await store.blocks.bySeq(1))!;
  const tx = block.transactions[1]!;
  const hash = transactionHash(CHAIN, tx);
  const receipt = result(await call('ledger_getReceipt', [hash])) as Record<string, unknown>;
  t.match(receipt, { tx_hash: hash, status: 'success', block_height: 1, fee_paid: BIG * 3n + 1n, events: [{ type: 'Transfer', amount: BIG + 1n }] });
  const raw = result(await call('ledger_getTransaction', [hash])) as Record<string, unknown>;
  t.same(raw, parseJson(stringifyJson(transactionToJson(tx, 'raw'))));
  t.notOk('chain_id' in raw, 'the raw form carries no chain id');
  t.same(Object.keys(raw).sort(), ['nonce', 'payload', 'sender_pubkey', 'signature']);
  t.equal((raw.sender_pubkey as number[]).length, 32);
  t.equal((raw.signature as number[]).length, 64);
  t.same((raw.payload as { Transfer: { to: number[] } }).Transfer.to, Array.from(COUNTER), 'Transfer.to is a 20-byte array');
  const missing = 'ab'.repeat(32);
  t.equal(result(await call('ledger_getReceipt', [missing])), null);
  t.equal(result(await call('ledger_getTransaction', [missing])), null);
});

t.test('sendTransaction: the mempool admits it and the hash comes back; its errors map', async (t) => {
  const { mempool, call } = await setup(t);
  const tx = signTransaction(CHAIN, { senderPubkey: funder.publicKey, nonce: 0n, payload: { kind: 'Transfer', to: COUNTER, amount: UNIT } }, funder.seed);
  const text = stringifyJson(transactionToJson(tx));
  const hash = result(await call('ledger_sendTransaction', [text]));
  t.equal(hash, transactionHash(CHAIN, tx));
  t.ok(mempool.has(hash as string), 'the transaction is pending');
  const again = await call('ledger_sendTransaction', [text]);
  t.equal(errorCode(again), -32000, 'a duplicate is refused by state (LedgerError conflict)');
  const malformed = await call('ledger_sendTransaction', ['{"nonce":1}']);
  t.equal(errorCode(malformed), -32602);
  t.match(malformed, { error: { data: { code: 'MALFORMED_TRANSACTION' } } });
  t.equal(errorCode(await call('ledger_sendTransaction', [{ nonce: 1 }])), -32602, 'tx_json must be a string');
  const big = await call('ledger_sendTransaction', ['x'.repeat(20_000)]);
  t.equal(errorCode(big), -32005, 'an oversized tx_json is the documented TX_TOO_LARGE, not a bare -32602');
  t.match(big, { error: { data: { code: 'TX_TOO_LARGE', size: 20_000, limit: 16_384 } } });
  const wide = await call('ledger_sendTransaction', ['é'.repeat(8_200)]);
  t.match(wide, { error: { code: -32005, data: { code: 'TX_TOO_LARGE', size: 16_400, limit: 16_384 } } }, 'the size is UTF-8 bytes');
});

t.test('sendTransaction: numbers must be integer literals and strings well-formed Unicode', async (t) => {
  const { server } = await setup(t);
  const send = async (txJson: string) => {
    const request = parseJson(stringifyJson({ jsonrpc: '2.0', id: 1, method: 'ledger_sendTransaction', params: [txJson] }));
    return parseJson(stringifyJson(await server.handle(request))) as { error?: { code: number; data?: Record<string, unknown> } };
  };
  const tx = signTransaction(CHAIN, { senderPubkey: funder.publicKey, nonce: 0n, payload: { kind: 'Transfer', to: COUNTER, amount: 5n } }, funder.seed);
  const text = stringifyJson(transactionToJson(tx));
  t.match(await send(text.replace('"amount":5', '"amount":5.0')), { error: { code: -32602, data: { code: 'BAD_AMOUNT', path: 'payload.Transfer.amount' } } });
  t.match(await send(text.replace('"nonce":0', '"nonce":0e0')), { error: { code: -32602, data: { code: 'MALFORMED_TRANSACTION', path: 'nonce' } } });
  t.match(await send(text.replace('"Transfer"', '"Tr\\ud800ansfer"')), { error: { code: -32602, data: { code: 'MALFORMED_TRANSACTION' } } }, 'a lone surrogate escape');
});

t.test('uint params refuse a number written with a fraction or exponent', async (t) => {
  const { server } = await setup(t, { blocks: true });
  for (const literal of ['1.0', '1e0', '4e-400', '0.0']) {
    const r = (await server.handle(parseJson(`{"jsonrpc":"2.0","id":1,"method":"ledger_getBlock","params":[${literal}]}`))) as { error?: { code: number; data?: unknown } };
    t.match(r, { error: { code: -32602, data: { param: 'height', position: 1 } } }, `ledger_getBlock(${literal})`);
  }
  const ok = (await server.handle(parseJson('{"jsonrpc":"2.0","id":1,"method":"ledger_getBlock","params":[4]}'))) as { error?: unknown };
  t.equal(ok.error, undefined, 'an integer literal is fine');
});

t.test('didResolve: document, unknown, other network, invalid', async (t) => {
  const { call } = await setup(t, { blocks: true });
  const doc = result(await call('ledger_didResolve', [DID])) as Record<string, unknown>;
  t.match(doc, {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/ed25519-2020/v1'],
    id: DID,
    controller: DID,
    verificationMethod: [{ id: `${DID}#key-1`, type: 'Ed25519VerificationKey2020', controller: DID }],
    authentication: [`${DID}#key-1`],
    assertionMethod: [`${DID}#key-1`],
    service: [{ id: `${DID}#pod`, type: 'SolidPod', serviceEndpoint: 'https://pod.example' }],
    active: true,
    created_ms: 1_002,
    updated_ms: 1_002,
    version_id: '1',
  });
  t.equal(result(await call('ledger_didResolve', [didForIdentifier(NETWORK, new Uint8Array(ADDRESS_LENGTH).fill(0x45))])), null, 'unknown');
  t.equal(result(await call('ledger_didResolve', [didForIdentifier('mainnet', DID_ID)])), null, 'another network');
  t.equal(errorCode(await call('ledger_didResolve', [`did:ledger:${formatAddress(DID_ID)}`])), -32602, 'no network segment');
  t.equal(errorCode(await call('ledger_didResolve', ['did:web:example.com'])), -32602, 'another method');
  t.equal(errorCode(await call('ledger_didResolve', [42])), -32602);
});

t.test('credentials: unknown ids are null, lists empty, subject enumeration gated', async (t) => {
  const off = await setup(t);
  const unknown = 'urn:ledger:credential:0f8fad5b-d9cb-469f-a165-70867728950e';
  t.equal(result(await off.call('ledger_credentialVerify', [unknown])), null);
  t.same(result(await off.call('ledger_credentialsByIssuer', [DID])), []);
  const disabled = await off.call('ledger_credentialsBySubject', [DID]);
  t.equal(errorCode(disabled), -32001, 'never an empty array when disabled');
  t.match(disabled, { error: { message: /LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION=1/, data: { code: 'SUBJECT_ENUMERATION_DISABLED' } } });
  const on = await setup(t, { allowSubjectEnumeration: true });
  t.same(result(await on.call('ledger_credentialsBySubject', [DID])), []);
  t.equal(errorCode(await on.call('ledger_credentialsBySubject', [7])), -32602);
  t.equal(errorCode(await off.call('ledger_credentialsByIssuer', ['not-a-did'])), -32602);
  t.equal(errorCode(await off.call('ledger_credentialVerify', [1])), -32602);
  t.match(await off.call('ledger_credentialVerify', ['cred-1']), { error: { code: -32602, message: /credential_id \(param 1\) must be a credential id/ } });
  t.equal(result(await off.call('ledger_bbsVerifyCredentialProof', [unknown, '00', '', '', [{ index: 0, message: 'aa' }]])), null);
  t.equal(errorCode(await off.call('ledger_bbsVerifyCredentialProof', [unknown, 'XYZ', '', '', []])), -32602);
});

t.test('getEpoch: the current epoch, its heights and its set in canonical order', async (t) => {
  const { call } = await setup(t);
  const sorted = [...VALIDATORS].sort((a, b) => Buffer.compare(a.address, b.address));
  t.same(result(await call('ledger_getEpoch')), {
    epoch: 0,
    first_height: 0,
    last_height: 99,
    epoch_length: 100,
    validators: sorted.map((v) => ({ address: formatAddress(v.address), bls_public_key: Buffer.from(v.blsPublicKey).toString('hex'), weight: 1 })),
  });
});

t.test('getEpoch(height): the set of the epoch a height is in, kept when the next epoch begins', async (t) => {
  const { call, store } = await setup(t);
  const sorted = [...VALIDATORS].sort((a, b) => Buffer.compare(a.address, b.address));
  const epoch0 = result(await call('ledger_getEpoch')) as { validators: Array<{ weight: number }> };
  // the boundary block (height 99) writes epoch 1's set, here with the first validator at weight 2
  const next = { epoch: 1, firstHeight: 100, length: 100, validators: sorted.map((v, i) => ({ address: v.address, blsPublicKey: v.blsPublicKey, weight: i === 0 ? 2n : 1n })) };
  await store.commitBlock(await nextBlock(store, { heightStep: 99, puts: [{ key: VALIDATOR_SET_KEY, value: encodeValidatorSet(next) }] }));
  const epoch1 = result(await call('ledger_getEpoch'));
  t.match(epoch1, { epoch: 1, first_height: 100, last_height: 199, validators: [{ weight: 2 }, { weight: 1 }] }, 'the current epoch is the new one');
  t.same(result(await call('ledger_getEpoch', [150])), epoch1);
  t.same(result(await call('ledger_getEpoch', [199])), epoch1, 'its last height');
  t.same(result(await call('ledger_getEpoch', [0])), epoch0, 'an earlier epoch, kept');
  t.same(result(await call('ledger_getEpoch', [99])), epoch0, 'its last height');
  const ahead = await call('ledger_getEpoch', [200]);
  t.match(ahead.error, { code: -32602, data: { code: 'EPOCH_NOT_CHOSEN', lastHeight: 199 } }, 'a set not chosen yet');
  t.equal(errorCode(await call('ledger_getEpoch', [-1])), -32602);
});

t.test('getConsensusStatus: null where no consensus engine runs', async (t) => {
  const { call } = await setup(t);
  t.equal(result(await call('ledger_getConsensusStatus')), null);
});

t.test('validators: list and stake, unbonding summed exactly', async (t) => {
  const { call } = await setup(t, { blocks: true });
  const list = result(await call('ledger_getValidators')) as Array<Record<string, unknown>>;
  t.equal(list.length, 3);
  for (const v of list) t.same(Object.keys(v).sort(), ['active', 'address', 'reputation', 'staked', 'unbonding']);
  const unbonder = { address: formatAddress(UNBONDER), staked: 7n, unbonding: 2n ** 70n + 3n, reputation: 900, active: false };
  t.same(list.find((v) => v.address === unbonder.address), unbonder);
  t.same(result(await call('ledger_getValidatorStake', [formatAddress(UNBONDER)])), unbonder);
  const v0 = VALIDATORS[0]!;
  t.same(result(await call('ledger_getValidatorStake', [formatAddress(v0.address)])), {
    address: formatAddress(v0.address),
    staked: v0.stake,
    unbonding: 0n,
    reputation: 500,
    active: true,
  });
  t.equal(result(await call('ledger_getValidatorStake', [formatAddress(COUNTER)])), null, 'an account that is no validator');
});

t.test('getEvidence: equivocations as JSON, optionally for one validator', async (t) => {
  const voter = VALIDATORS[1]!.address;
  const vote = (fill: number) => ({ round: 9, height: 4, blockHash: new Uint8Array(32).fill(fill), voter, signature: new Uint8Array(96).fill(fill) });
  const evidence: Evidence[] = [{ kind: 'double-vote', epoch: 3, round: 9, validator: voter, first: vote(1), second: vote(2) }];
  const { call } = await setup(t, { evidence });
  const all = result(await call('ledger_getEvidence')) as unknown[];
  t.same(all, [
    {
      kind: 'double-vote',
      epoch: 3,
      round: 9,
      validator: formatAddress(voter),
      first: { height: 4, block_hash: '01'.repeat(32), signature: '01'.repeat(96) },
      second: { height: 4, block_hash: '02'.repeat(32), signature: '02'.repeat(96) },
    },
  ]);
  t.same(result(await call('ledger_getEvidence', [formatAddress(voter)])), all, 'filtered by that validator');
  t.same(result(await call('ledger_getEvidence', [formatAddress(COUNTER)])), [], 'nothing against another address');
  t.equal(errorCode(await call('ledger_getEvidence', ['not-an-address'])), -32602);
});

t.test('bbsVerifyProof: valid vector, malformed values false, wrong types -32602', async (t) => {
  const { call } = await setup(t);
  const p = loadVectors('bbs.json').proofs.valid[2];
  const disclosed = p.disclosedIndexes.map((index: number, i: number) => ({ index, message: p.disclosedMessages[i] }));
  const args = [p.proof, p.signerPublicKey, p.header, p.presentationHeader, disclosed, p.totalMessageCount];
  t.equal(result(await call('ledger_bbsVerifyProof', args)), true);
  t.equal(result(await call('ledger_bbsVerifyProof', [p.proof, p.signerPublicKey, p.header, 'ff', disclosed, p.totalMessageCount])), false, 'other presentation header');
  t.equal(result(await call('ledger_bbsVerifyProof', [p.proof.slice(2), ...args.slice(1)])), false, 'wrong proof length');
  t.equal(result(await call('ledger_bbsVerifyProof', [p.proof, 'abcd', ...args.slice(2)])), false, 'wrong key length');
  t.equal(result(await call('ledger_bbsVerifyProof', [...args.slice(0, 5), 0])), false, 'zero messages');
  t.equal(errorCode(await call('ledger_bbsVerifyProof', [...args.slice(0, 5), '10'])), -32602, 'count as a string');
  t.equal(errorCode(await call('ledger_bbsVerifyProof', [...args.slice(0, 4), [{ index: '0', message: 'aa' }], 10])), -32602);
  t.equal(errorCode(await call('ledger_bbsVerifyProof', [p.proof.toUpperCase(), ...args.slice(1)])), -32602, 'uppercase hex');
  t.equal(errorCode(await call('ledger_bbsVerifyProof', ['00'.repeat(33_040 + 1), ...args.slice(1)])), -32602, 'proof longer than one over 1024 hidden messages');
  t.equal(errorCode(await call('ledger_bbsVerifyProof', [...args.slice(0, 5), 1025])), -32602, 'a total over 1024');
  const many = Array.from({ length: 1025 }, (_, index) => ({ index, message: '' }));
  t.equal(errorCode(await call('ledger_bbsVerifyProof', [...args.slice(0, 4), many, 1025])), -32602, 'over 1024 messages');
  t.equal(errorCode(await call('ledger_bbsVerifyProof', args.slice(0, 5))), -32602, 'missing total_message_count');
});

t.test('unknown method, bad params, no ledger_getAccount', async (t) => {
  const { call } = await setup(t);
  t.equal(errorCode(await call('ledger_getAccount', [formatAddress(COUNTER)])), -32601);
  t.equal(errorCode(await call('ledger_getBalance', ['0xdeadbeef'])), -32602);
  t.equal(errorCode(await call('ledger_getBalance', [])), -32602);
  t.equal(errorCode(await call('ledger_getNonce', [formatAddress(COUNTER), 1])), -32602, 'a block tag must be a string');
  t.equal(errorCode(await call('ledger_getBlock', [-1])), -32602);
  t.equal(errorCode(await call('ledger_getBlock', ['1'])), -32602);
  t.equal(errorCode(await call('ledger_getBlockBySeq', [1.5])), -32602);
  t.equal(errorCode(await call('ledger_getReceipt', ['AB'.repeat(32)])), -32602, 'uppercase hash');
  t.equal(errorCode(await call('ledger_getTransaction', ['0x' + 'ab'.repeat(31)])), -32602);
  t.equal(errorCode(await call('ledger_getValidatorStake', ['short'])), -32602);
  t.equal(errorCode(await call('ledger_chainInfo', { a: 1 })), -32602, 'named params are refused');
});
