import t from 'tap';
import { RpcClient } from '../../node/client/rpc-client.js';
import { generateAccountKey, writeKeyFile } from '../../node/config/keyfile.js';
import { ed25519PublicKeyMultibase } from '../../node/crypto/multibase.js';
import { toHex } from '../../node/protocol/bytes.js';
import { startTestNode } from '../fixtures/real-node.js';
import { runLedger } from './fixtures/io.js';

const WAIT = ['--wait', '--timeout', '20000'];

t.test('set a policy, recover with a guardian signature, cancel, clear: through the CLI', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const cwd = node.dir;
  const env = { LEDGER_RPC_URL: node.url };
  const run = async (argv: string[], code = 0) => {
    const r = await runLedger(argv, { cwd, env });
    t.equal(r.code, code, `${argv.slice(0, 2).join(' ')}: ${r.stderr}`);
    return r;
  };
  const guardian = generateAccountKey('testnet');
  const fresh = generateAccountKey('testnet');
  await writeKeyFile(`${cwd}/guardian.json`, guardian);
  await writeKeyFile(`${cwd}/fresh.json`, fresh);
  const did = node.dev.did;
  const dev = ['--key', 'keys/dev.json'];
  await run(['tx', 'transfer', ...dev, '--to', guardian.address, '--amount', '1', ...WAIT]);
  await run(['tx', 'transfer', ...dev, '--to', fresh.address, '--amount', '1', ...WAIT]);
  await run(['tx', 'did-create', '--key', 'guardian.json', ...WAIT]);
  await run(['tx', 'did-create', ...dev, ...WAIT]);

  const policy = await run(['tx', 'set-recovery-policy', ...dev, '--guardian', guardian.did, '--threshold', '1', '--delay-blocks', '1000', ...WAIT]);
  t.same(policy.json().receipt.events, [{ type: 'RecoveryPolicySet', did, guardians: [guardian.did], threshold: 1, delay_blocks: 1000 }]);
  const shown = await run(['rpc', 'ledger_getRecoveryPolicy', did]);
  t.same(shown.json(), { guardians: [guardian.did], threshold: 1, delay_blocks: 1000, pending: null });
  t.equal(await client.getRecoveryPolicy(guardian.did), null, 'no policy');
  t.equal(await client.getRecoveryPolicy(did.replace(':testnet:', ':mainnet:')), null, 'another network');
  await t.rejects(client.getRecoveryPolicy('did:ledger:nope'), { code: -32602 });

  const newKey = toHex(fresh.publicKey);
  const signed = (await run(['recovery', 'sign', '--key', 'guardian.json', '--did', did, '--new-public-key', newKey])).json();
  t.match(signed, { guardian: guardian.did, did, version_id: 2, chain_id: node.chainId, signature: /^[0-9a-f]{128}$/ });
  t.equal(signed.signature_arg, `${guardian.did}=${signed.signature}`);
  const started = await run(['tx', 'did-recover', ...dev, '--did', did, '--new-public-key', newKey, '--signature', signed.signature_arg, ...WAIT]);
  const dueHeight = started.json().receipt.block_height + 1000;
  t.same(started.json().receipt.events, [{ type: 'RecoveryStarted', did, new_public_key: newKey, due_height: dueHeight }]);
  t.same(await client.getRecoveryPolicy(did), { guardians: [guardian.did], threshold: 1, delay_blocks: 1000, pending: { new_public_key: newKey, due_height: dueHeight } });

  const cancel = await run(['tx', 'set-recovery-policy', ...dev, '--guardian', guardian.did, '--threshold', '1', ...WAIT]);
  t.same(cancel.json().receipt.events.map((e: { type: string }) => e.type), ['RecoveryCancelled', 'RecoveryPolicySet'], 'the owner cancels with a new policy, here without delay');
  t.equal((await client.getRecoveryPolicy(did))!.pending, null);

  const offline = (await run(['recovery', 'sign', '--key', 'guardian.json', '--did', did, '--new-public-key', newKey, '--version-id', '3', '--chain-id', node.chainId, '--rpc', 'http://127.0.0.1:1'])).json();
  const recovered = await run(['tx', 'did-recover', ...dev, '--did', did, '--new-public-key', newKey, '--signature', offline.signature_arg, ...WAIT]);
  // `ledger init` makes a protocol version 2 chain: the old key's account moves to the new key
  const oldAddress = node.dev.address;
  t.match(recovered.json().receipt.events, [{ type: 'DidRecovered', did, new_public_key: newKey }, { type: 'AccountRecovered', did, from: oldAddress, to: fresh.address }]);
  const moved = (recovered.json().receipt.events[1] as { balance: string | number }).balance;
  t.equal(await client.getBalance(oldAddress), 0n, 'the old address is empty');
  const after = await client.getBalance(fresh.address);
  t.ok(BigInt(moved) > 0n && after >= BigInt(moved), `the new address holds what moved (${moved})`);
  const doc = await client.didResolve(did);
  t.equal(doc!.verificationMethod[0]!.publicKeyMultibase, ed25519PublicKeyMultibase(fresh.publicKey));
  t.equal(doc!.version_id, '4');

  const old = await run(['tx', 'did-deactivate', ...dev, ...WAIT], 1);
  t.match(old.stderr, /balance 0 of \S+ cannot cover this transaction/, 'the old key: refused at admission (its account went to the new key)');
  const cleared = await run(['tx', 'set-recovery-policy', '--key', 'fresh.json', '--did', did, '--clear', ...WAIT]);
  t.same(cleared.json().receipt.events, [{ type: 'RecoveryPolicyRemoved', did }]);
  t.equal(await client.getRecoveryPolicy(did), null);
});

t.test('recovery usage errors exit 2 before anything is sent', async (t) => {
  const node = await startTestNode(t);
  const cwd = node.dir;
  const env = { LEDGER_RPC_URL: node.url };
  const did = node.dev.did;
  const g = generateAccountKey('testnet').did;
  const key = toHex(generateAccountKey('testnet').publicKey);
  const dev = ['--key', 'keys/dev.json'];
  const cases: Array<[string[], RegExp]> = [
    [['tx', 'set-recovery-policy', ...dev, '--threshold', '1'], /at least one --guardian/],
    [['tx', 'set-recovery-policy', ...dev, '--guardian', g], /--threshold is required/],
    [['tx', 'set-recovery-policy', ...dev, '--guardian', g, '--threshold', '11'], /--threshold must be an integer from 1 to 10/],
    [['tx', 'set-recovery-policy', ...dev, '--guardian', g, '--threshold', '2'], /threshold must be an integer from 1 to the number of guardians/],
    [['tx', 'set-recovery-policy', ...dev, '--guardian', 'did:ledger:nope', '--threshold', '1'], /guardians\[0\]/],
    [['tx', 'set-recovery-policy', ...dev, '--guardian', g, '--threshold', '1', '--delay-blocks', '1000001'], /--delay-blocks must be an integer from 0 to 1000000/],
    [['tx', 'set-recovery-policy', ...dev, '--clear', '--guardian', g], /--clear removes the policy/],
    [['tx', 'did-recover', ...dev, '--did', did, '--new-public-key', key], /--signature/],
    [['tx', 'did-recover', ...dev, '--did', did, '--new-public-key', key, '--signature', 'no-equals'], /<guardian did>=<hex signature>/],
    [['tx', 'did-recover', ...dev, '--did', did, '--new-public-key', key.slice(2), '--signature', `${g}=${'00'.repeat(64)}`], /32 bytes/],
    [['tx', 'did-recover', ...dev, '--new-public-key', key, '--signature', `${g}=${'00'.repeat(64)}`], /--did is required/],
    [['tx', 'did-deactivate', ...dev, '--guardian', g], /--guardian does not apply to tx did-deactivate/],
    [['recovery'], /recovery needs a subcommand/],
    [['recovery', 'sign', ...dev, '--did', did, '--new-public-key', 'xyz'], /--new-public-key must be lowercase hex/],
    [['recovery', 'sign', ...dev, '--new-public-key', key], /--did is required/],
  ];
  for (const [argv, re] of cases) {
    const r = await runLedger(argv, { cwd, env });
    t.equal(r.code, 2, argv.join(' '));
    t.match(r.stderr, re);
  }
  t.equal(await new RpcClient(node.url).getNonce(node.dev.address), 0n, 'nothing was sent');
});
