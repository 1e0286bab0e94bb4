import t from 'tap';
import { randomUUID } from 'node:crypto';
import { RpcClient } from '../../node/client/rpc-client.js';
import { generateAccountKey, writeKeyFile } from '../../node/config/keyfile.js';
import { startTestNode } from '../fixtures/real-node.js';
import { runLedger } from './fixtures/io.js';

const WAIT = ['--wait', '--timeout', '20000'];

t.test('tx credential-request, then the node attests, then tx credential-revoke', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const cwd = node.dir;
  const env = { LEDGER_RPC_URL: node.url };
  const subject = generateAccountKey('testnet');
  await writeKeyFile(`${cwd}/subject.json`, subject);
  const ok = async (argv: string[]) => {
    const r = await runLedger(argv, { cwd, env });
    t.equal(r.code, 0, r.stderr);
    return r.json();
  };
  await ok(['tx', 'transfer', '--key', 'keys/dev.json', '--to', subject.address, '--amount', '1', ...WAIT]);
  await ok(['tx', 'did-create', '--key', 'keys/dev.json', ...WAIT]);
  await ok(['tx', 'did-create', '--key', 'subject.json', ...WAIT]);

  const id = randomUUID();
  const base = ['tx', 'credential-request', '--key', 'keys/dev.json', '--credential', id, '--subject', subject.did, '--hash', 'ab'.repeat(32), '--evidence', 'cd'.repeat(32)];
  const requested = await ok([...base, '--type', 'KYCCredential', '--kyc-level', '2', '--status-index', '0', ...WAIT]);
  t.match(requested.receipt, { status: 'success', events: [{ type: 'CredentialRequested', id: `urn:ledger:credential:${id}`, subject: subject.did }] });
  for (let i = 0; i < 100 && (await client.getCredentialRequest(id))?.status !== 'registered'; i++) await new Promise((r) => setTimeout(r, 200));
  t.match(await client.credentialVerify(id), { valid: true, credential: { threshold: 1, kyc_level: 2 } }, 'the one validator attested it');

  const revoked = await ok(['tx', 'credential-revoke', '--key', 'keys/dev.json', '--credential', id, ...WAIT]);
  t.match(revoked.receipt, { status: 'success', events: [{ type: 'CredentialRevoked', status_list: 0, status_index: 0 }] });
  t.match(await client.credentialVerify(id), { valid: false, revoked: true });

  const usage: Array<[string[], RegExp]> = [
    [[...base, '--type', 'PassportCredential', '--status-index', '1'], /--type must be one of/],
    [[...base, '--type', 'KYCCredential', '--kyc-level', '2'], /--status-index is required/],
    [[...base, '--type', 'KYCCredential', '--kyc-level', '2', '--status-index', '131072'], /status-index/],
    [[...base, '--type', 'EmailVerificationCredential', '--kyc-level', '2', '--status-index', '1'], /has no KYC level/],
    [['tx', 'credential-revoke', '--key', 'keys/dev.json', '--credential', 'nope'], /not a credential id/],
    [['tx', 'validator-qualify', '--key', 'keys/dev.json'], /--credential is required/],
    [['tx', 'transfer', '--key', 'keys/dev.json', '--to', subject.address, '--amount', '1', '--credential', id], /--credential does not apply to tx transfer/],
  ];
  for (const [argv, re] of usage) {
    const r = await runLedger(argv, { cwd, env });
    t.equal(r.code, 2, argv.join(' '));
    t.match(r.stderr, re);
  }
});
