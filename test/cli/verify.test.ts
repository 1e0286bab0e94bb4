import t from 'tap';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RpcClient } from '../../node/client/rpc-client.js';
import { writeKeyFile } from '../../node/config/keyfile.js';
import { startTestNode } from '../fixtures/real-node.js';
import { chainOf, fundedDid, issueKycBbs } from '../client/fixtures/kyc-bbs.js';
import { runLedger } from './fixtures/io.js';

/**
 * `ledger verify request|present|status` against a real single-validator node: a dApp's request
 * waits (--wait --verify) while the subject presents its KYC credential's BBS form, the response
 * checks offline, and the refusals and an expiry exit as documented.
 */

const ADULT = JSON.stringify({ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 } });

t.test('ledger verify: request --wait, present --bbs, status --verify', async (t) => {
  const node = await startTestNode(t);
  const rpc = new RpcClient(node.url);
  const chain = await chainOf(node, rpc);
  const dapp = await fundedDid(chain);
  const holder = await fundedDid(chain);
  const cwd = node.dir;
  const env = { LEDGER_RPC_URL: node.url };
  await writeKeyFile(join(cwd, 'dapp.json'), dapp);
  await writeKeyFile(join(cwd, 'holder.json'), holder);
  const { form } = await issueKycBbs(chain, holder.did, '1990-05-17');
  // as the KYC issuer's credential response carries it
  await writeFile(join(cwd, 'kyc.json'), JSON.stringify({ bbs: form }));
  // the node shares this process: a busy refusal (-32010, its event loop lagged by a compile or a
  // proof) admitted nothing, so the command is run again, as a user would
  const run = async (argv: string[]) => {
    for (let i = 0; ; i++) {
      const r = await runLedger(['verify', ...argv], { cwd, env });
      if (r.code !== 1 || !/JSON-RPC error -32010/.test(r.stderr) || i >= 10) return r;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  const onChain = async (id: string) => {
    for (let i = 0; !(await rpc.getVerificationRequest(id)); i++) {
      if (i > 150) throw new Error(`request ${id} never reached the chain`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  await t.test('usage errors exit 2 before anything is sent', async (t) => {
    const cases: Array<[string[], RegExp]> = [
      [[], /verify needs a subcommand: request, present or status/],
      [['check'], /unknown verify subcommand "check"/],
      [['request', '--key', 'dapp.json', '--subject', holder.did], /at least one --claim/],
      [['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', '{type:'], /--claim takes JSON/],
      [['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', '{"type":"KYCCredential","minAge":18}'], /unknown member "minAge"/],
      [['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', '{"type":"KYCCredential","constraints":{"nationality":"DE"}}'], /nationality is not a supported constraint/],
      [['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', ADULT, '--fee', '0.0001'], /below the minimum verification fee/],
      [['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', ADULT, '--valid-for-blocks', '4'], /--valid-for-blocks must be an integer from 5 to 10000/],
      [['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', ADULT, '--verify'], /--verify checks the response, which only --wait waits for/],
      [['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', ADULT, '--bbs', 'kyc.json'], /--bbs does not apply to verify request/],
      [['present', '--key', 'holder.json', '--request', 'x'], /at least one --bbs <file> or --credential <file>/],
      [['status'], /verify status takes one request id/],
      [['status', 'a', 'b'], /verify status takes one request id/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      t.equal(r.code, 2, argv.join(' '));
      t.match(r.stderr, message);
      t.match(r.stderr, /Run "ledger verify --help" for usage\./);
    }
  });

  await t.test('the dApp waits while the subject presents; the response verifies offline', async (t) => {
    const id = randomUUID();
    const waiting = run(['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', ADULT, '--purpose', 'account opening', '--request-id', id, '--wait', '--verify', '--timeout', '60000']);
    await onChain(id);
    const listed = await run(['status', id]);
    t.equal(listed.code, 0, listed.stderr);
    t.match(listed.json(), { status: 'pending', request: { request: { requestId: id, requester: { did: dapp.did, purpose: 'account opening' }, fee: '100000' } }, response: null });

    const presented = await run(['present', '--key', 'holder.json', '--request', id, '--bbs', 'kyc.json']);
    t.equal(presented.code, 0, presented.stderr);
    const shown = presented.json();
    t.match(shown, { requestId: id, presentationHash: /^[0-9a-f]{64}$/, answeringHere: true, entries: [{ claim: 0, type: 'KYCCredential', proofType: 'bbs' }] });
    t.same(shown.entries[0].disclosed.slice(6), ['kycLevel=2', 'ageOver18=true'], 'the level and ageOver18, and no birth date');
    t.notOk('unanswered_claims' in shown);

    const done = await waiting;
    t.equal(done.code, 0, done.stderr);
    t.match(done.json(), { requestId: id, txHash: /^[0-9a-f]{64}$/, response: { status: 'final', verified: true, claims: [{ satisfied: true, proofType: 'zk-snark' }] }, check: { valid: true, verified: true, signers: 1, threshold: 1, problems: [] } });

    const status = await run(['status', id, '--verify']);
    t.equal(status.code, 0, status.stderr);
    t.match(status.json(), { status: 'final', request: { answers: 1 }, response: { verified: true }, check: { valid: true, verified: true } });
    t.notOk('note' in status.json().check, 'the set has not changed since');

    const again = await run(['present', '--key', 'holder.json', '--request', id, '--bbs', 'kyc.json']);
    t.equal(again.code, 1);
    t.match(again.stderr, new RegExp(`verification request ${id} is final; it takes no presentation`));
  });

  await t.test('a claim no file meets; an unknown request; an expired request', async (t) => {
    const unknown = await run(['status', 'no-such-request']);
    t.equal(unknown.code, 1);
    t.match(unknown.stderr, /no verification request no-such-request on this chain/);

    const direct = JSON.stringify({ type: 'KYCCredential', acceptZKProof: false });
    const sent = await run(['request', '--key', 'dapp.json', '--subject', holder.did, '--claim', direct, '--valid-for-blocks', '5', '--fee', '0.002']);
    t.equal(sent.code, 0, sent.stderr);
    const { requestId, txHash } = sent.json();
    t.match(txHash, /^[0-9a-f]{64}$/);
    await onChain(requestId);
    t.equal((await rpc.getVerificationRequest(requestId))?.request.fee, '200000');
    const refused = await run(['present', '--key', 'holder.json', '--request', requestId, '--bbs', 'kyc.json']);
    t.equal(refused.code, 1);
    t.match(refused.stderr, /kyc\.json \(KYCCredential, BBS\) meets no open claim of the request; it asks 0: KYCCredential \(no ZK proof\)/);

    for (let i = 0; (await rpc.getVerificationRequest(requestId))?.status !== 'expired'; i++) {
      if (i > 300) throw new Error('the request did not expire');
      await new Promise((r) => setTimeout(r, 200));
    }
    const expired = await run(['status', requestId, '--verify']);
    t.equal(expired.code, 1, 'an expired response verifies nobody');
    t.match(expired.json(), { status: 'expired', response: { status: 'expired', verified: false }, check: { valid: false, problems: [/the response is expired, not final/] } });
  });
});
