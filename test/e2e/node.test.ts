import t from 'tap';
import { buildDidCreate, buildDidDeactivate, buildStake, buildTransfer, RpcClient, signAndEncode, waitForReceipt } from '../../node/client/index.js';
import { generateAccountKey } from '../../node/config/keyfile.js';
import { UNIT } from '../../node/protocol/amount.js';
import { FEES } from '../../node/protocol/fees.js';
import { devKey, runCli, startNodeProcess, tempDataDir } from './harness.js';

/** What a rejected call must look like: tap matches these fields of the RpcError. */
function rejected(code: string, rpcCode?: number): Error {
  return (rpcCode === undefined ? { data: { code } } : { code: rpcCode, data: { code } }) as unknown as Error;
}

t.test('a one-validator node over real HTTP: transfers, DIDs, errors, and kill -9', async (t) => {
  const dir = await tempDataDir(t);
  const init = await runCli(['init', '--data-dir', dir]);
  t.equal(init.code, 0, init.stderr);
  let node = await startNodeProcess(t, dir);
  let client = new RpcClient(node.url);
  const info = await client.chainInfo();
  t.match(info, { chain_id: String, genesis_hash: /^[0-9a-f]{64}$/, native_token: { decimals: 8 } });
  const dev = await devKey(dir);
  const bob = generateAccountKey('testnet');
  const send = async (unsigned: Parameters<typeof signAndEncode>[1]) => {
    const s = signAndEncode(info.chain_id, unsigned, dev.seed);
    t.equal(await client.sendTransaction(s.json), s.hash);
    return waitForReceipt(client, s.hash, { timeoutMs: 20_000 });
  };

  t.test('transfer above 2^60 units commits and reads back exactly', async (t) => {
    const start = await client.getBalance(dev.address);
    t.ok(start > 1n << 60n, 'the dev account holds more than 2^60 units');
    const amount = (1n << 60n) + 12345n;
    const receipt = await send(buildTransfer({ senderPubkey: dev.publicKey, nonce: await client.getNonce(dev.address), to: bob.address, amount }));
    t.equal(receipt.status, 'success');
    t.equal(receipt.fee_paid, FEES.Transfer);
    t.same(receipt.events, [{ type: 'Transfer', from: dev.address, to: bob.address, amount }]);
    t.equal(await client.getBalance(bob.address), amount);
    const raw = await client.getTransaction(receipt.tx_hash);
    t.equal((raw!.payload as { Transfer: { to: number[] } }).Transfer.to.length, 20, 'raw form: 20-byte recipient');
    const block = await client.getBlock(receipt.block_height);
    t.ok(block!.transactions.includes(receipt.tx_hash));
    t.equal(block!.tx_count, block!.transactions.length);
  });

  t.test('stake, DID create and deactivate', async (t) => {
    let r = await send(buildStake({ senderPubkey: dev.publicKey, nonce: await client.getNonce(dev.address), amount: 20_000n * UNIT }));
    t.equal(r.status, 'success');
    // `active` is membership in the current epoch's set: staking alone (no vote key, no epoch boundary yet) does not make one
    t.match(await client.getValidatorStake(dev.address), { address: dev.address, staked: 20_000n * UNIT, active: false });
    r = await send(buildDidCreate({ senderPubkey: dev.publicKey, nonce: await client.getNonce(dev.address), service: [{ id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example/dev' }] }));
    t.equal(r.status, 'success');
    t.match(await client.didResolve(dev.did), { id: dev.did, active: true, version_id: '1' });
    const resolved = await fetch(`${node.url}/1.0/identifiers/${dev.did}`, { headers: { accept: 'application/did+ld+json' } });
    t.equal(resolved.status, 200);
    t.match(resolved.headers.get('content-type'), /^application\/did\+ld\+json;/, 'the document itself');
    t.match(await resolved.json(), { '@context': Array, id: dev.did, verificationMethod: [{ controller: dev.did }] });
    const result = await fetch(`${node.url}/1.0/identifiers/${dev.did}`);
    t.match(result.headers.get('content-type'), /^application\/ld\+json;profile="https:\/\/w3id\.org\/did-resolution"/, 'the resolution result by default');
    t.match(await result.json(), { didDocument: { id: dev.did }, didDocumentMetadata: { deactivated: false } });
    r = await send(buildDidDeactivate({ senderPubkey: dev.publicKey, nonce: await client.getNonce(dev.address), did: dev.did }));
    t.equal(r.status, 'success');
    t.match(await client.didResolve(dev.did), { active: false, verificationMethod: [] });
    const gone = await fetch(`${node.url}/1.0/identifiers/${dev.did}`);
    t.equal(gone.status, 410);
    t.match(await gone.json(), { didDocumentMetadata: { deactivated: true } });
  });

  t.test('a transaction behind a nonce gap does not make the leader propose', async (t) => {
    // Free to send and never executable until the gap fills: the leader keeps its idle interval.
    const gapped = signAndEncode(info.chain_id, buildTransfer({ senderPubkey: bob.publicKey, nonce: 2, to: dev.address, amount: 1n }), bob.seed);
    t.equal(await client.sendTransaction(gapped.json), gapped.hash);
    const before = (await client.canonHead())!.seq;
    await new Promise((r) => setTimeout(r, 3_000));
    const made = (await client.canonHead())!.seq - before;
    t.ok(made <= 5, `${made} blocks in 3 s with only a gapped transaction pending (idle interval 1 s)`);
  });

  t.test('bad input gets precise errors and the node stays healthy', async (t) => {
    const post = async (body: string) => (await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
    t.match(await post('{"jsonrpc":"2.0","id":1,"method":'), { error: { code: -32700 } });
    t.match(await post('{"jsonrpc":"1.0","id":1,"method":"ledger_blockNumber"}'), { error: { code: -32600 } });
    t.match(await post('{"jsonrpc":"2.0","id":1,"method":"ledger_getAccount","params":["x"]}'), { error: { code: -32601 } });
    t.match(await post('{"jsonrpc":"2.0","id":1,"method":"ledger_getBlock","params":["one"]}'), { error: { code: -32602 } });
    t.match(await post('{"jsonrpc":"2.0","id":1,"method":"ledger_getBlock","params":[123456789012345678901234567890]}'), { error: { code: -32602 } });
    t.match(await post('{"jsonrpc":"2.0","id":1,"method":"ledger_credentialsBySubject","params":["did:ledger:testnet:2WRXAwiHCW7rvEpkN1nPmFY5hiUC"]}'), { error: { code: -32001 } });
    const big = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(2 * 1024 * 1024) });
    t.equal(big.status, 413);
    t.match(await big.json(), { code: 'BODY_TOO_LARGE', maxBytes: 1024 * 1024, error: { code: -32600 } }, 'a Problem that is also a JSON-RPC error');
    t.match(await (await fetch(`${node.url}/metrics`)).text(), /^ledger_http_connections\{server="rpc"\} [1-9]/m, 'the RPC port counts its connections');
    const batch = (await post('[{"jsonrpc":"2.0","id":1,"method":"ledger_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"nope"}]')) as unknown[];
    t.equal(batch.length, 2);

    const nonce = await client.getNonce(dev.address);
    const good = signAndEncode(info.chain_id, buildTransfer({ senderPubkey: dev.publicKey, nonce, to: bob.address, amount: 1n }), dev.seed);
    const tampered = JSON.parse(good.json);
    tampered.signature[0] ^= 1;
    await t.rejects(client.sendTransaction(JSON.stringify(tampered)), rejected('BAD_SIGNATURE'));
    await t.rejects(client.sendTransaction(JSON.stringify({ ...JSON.parse(good.json), chain_id: 'other-chain' })), rejected('WRONG_CHAIN'));
    const otherChain = signAndEncode('other-chain', buildTransfer({ senderPubkey: dev.publicKey, nonce, to: bob.address, amount: 1n }), dev.seed);
    await t.rejects(client.sendTransaction(JSON.stringify({ ...JSON.parse(otherChain.json), chain_id: undefined })), rejected('BAD_SIGNATURE'));
    const old = signAndEncode(info.chain_id, buildTransfer({ senderPubkey: dev.publicKey, nonce: 0, to: bob.address, amount: 1n }), dev.seed);
    await t.rejects(client.sendTransaction(old.json), rejected('NONCE_TOO_LOW'));
    const poor = generateAccountKey('testnet');
    const broke = signAndEncode(info.chain_id, buildTransfer({ senderPubkey: poor.publicKey, nonce: 0, to: bob.address, amount: 1n }), poor.seed);
    await t.rejects(client.sendTransaction(broke.json), rejected('INSUFFICIENT_BALANCE'));
    await t.rejects(client.sendTransaction('{"sender_pubkey":[1]}'), rejected('MALFORMED_TRANSACTION', -32602));
    t.equal((await send(buildTransfer({ senderPubkey: dev.publicKey, nonce, to: bob.address, amount: 1n }))).status, 'success', 'still commits');
  });

  t.test('kill -9 and restart: committed state survives', async (t) => {
    const head = await client.canonHead();
    const bobBalance = await client.getBalance(bob.address);
    await node.kill9();
    node = await startNodeProcess(t, dir);
    client = new RpcClient(node.url);
    const after = await client.canonHead();
    t.ok(after!.seq >= head!.seq, 'no committed block lost');
    t.same(await client.getBlockBySeq(head!.seq).then((b) => b?.hash), head!.hash);
    t.equal(await client.getBalance(bob.address), bobBalance);
    const r = await send(buildTransfer({ senderPubkey: dev.publicKey, nonce: await client.getNonce(dev.address), to: bob.address, amount: 5n }));
    t.equal(r.status, 'success', 'keeps committing after the restart');
    t.equal(await node.stop(), 0, 'SIGTERM exits cleanly');
  });
});

t.test('LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION=1 turns on ledger_credentialsBySubject, with a warning', async (t) => {
  const dir = await tempDataDir(t);
  t.equal((await runCli(['init', '--data-dir', dir])).code, 0);
  const node = await startNodeProcess(t, dir, { env: { LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION: '1' } });
  const dev = await devKey(dir);
  t.same(await new RpcClient(node.url).credentialsBySubject(dev.did), []);
  t.match(node.stderr(), /LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION/, 'the node warns at start');
  t.equal(await node.stop(), 0);
});
