import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { buildTransfer, RpcClient, signAndEncode, waitForReceipt } from '../../node/client/index.js';
import { accountKeyFromSeed } from '../../node/config/keyfile.js';
import { parseAddress } from '../../node/protocol/address.js';
import { parseJson } from '../../node/protocol/json.js';
import { parseGenesis } from '../../node/protocol/genesis.js';
import { runCli, startNodeProcess, tempDataDir } from '../e2e/harness.js';
import { Prng, seedFromEnv } from '../fixtures/prng.js';
import { loadVectors } from '../fixtures/vectors.js';
import { until } from '../fixtures/wait.js';
import { judge, send, type HttpCase } from './lib/check.js';
import { fuzzText, type FuzzValue } from './lib/json-mutate.js';
import { methodTable } from './lib/method-table.js';
import { envelopeCase, httpCase, methodCase, rawCase, type Samples } from './lib/rpc-cases.js';
import { genesisTotal, supplyAt } from './lib/supply.js';
import { Tally } from './lib/tally.js';
import { brokenCase, equivalentCase, otherKindCase, raceCase, resignedCase, type RaceCase, type TxCase } from './lib/tx-cases.js';

/**
 * Fuzzing a real node process over HTTP: mutated transactions, every method of the node's own
 * table with mutated params, broken envelopes and batches, broken bytes. Every answer must be
 * under 500 (503 only as the documented busy answer), never -32603, and a JSON-RPC response; the
 * node must still be alive and committing at the end, and the supply must add up to the genesis
 * total with the fuzzer's valid transfers committed. Fixed seed and count, overridable:
 * LEDGER_FUZZ_SEED=<n> LEDGER_FUZZ_COUNT=<n> npx tap test/fuzz/node-rpc.test.ts
 */

const SEED = seedFromEnv('LEDGER_FUZZ_SEED', 0x1ed6e5);
const COUNT = Math.max(50, Number(process.env.LEDGER_FUZZ_COUNT || 3000));
const CONCURRENCY = 6;
/** 10^16 LGR: more than any count of cases moves, less than the fuzzer's 10^30-unit edge amount */
const SENDER_BALANCE = 10n ** 24n;

interface Failure {
  category: string;
  index: number;
  label: string;
  problems: string[];
  body: string;
}

t.test(`fuzz a node over JSON-RPC (seed ${SEED}, ${COUNT} cases)`, async (t) => {
  const started = Date.now();
  const methods = await methodTable();
  const rng = new Prng(SEED);
  // The sending account comes from the seed (funded through the genesis template), so a seed replays the same transactions.
  const template = JSON.parse(await readFile(new URL('../../genesis/testnet.json', import.meta.url), 'utf8')) as { network: string; accounts: unknown[] };
  const sender = accountKeyFromSeed(rng.bytes(32), template.network);
  const recipients = Array.from({ length: 6 }, () => accountKeyFromSeed(rng.bytes(32), template.network));
  const templateFile = join(await tempDataDir(t), 'template.json');
  await writeFile(templateFile, JSON.stringify({ ...template, accounts: [...template.accounts, { address: sender.address, balance: SENDER_BALANCE.toString() }] }));
  const dir = await tempDataDir(t);
  const init = await runCli(['init', '--data-dir', dir, '--template', templateFile]);
  t.equal(init.code, 0, `ledger init succeeds ${init.stderr}`.trim());
  const node = await startNodeProcess(t, dir, { logLevel: 'warn' });
  const client = new RpcClient(node.url);
  const { chain_id: chainId } = await client.chainInfo();
  const genesis = parseGenesis(parseJson(await readFile(join(dir, 'genesis.json'), 'utf8')));
  t.equal(await client.getBalance(sender.address), SENDER_BALANCE, 'the fuzzing account is funded at genesis');
  const headBefore = (await client.canonHead())!.seq;

  const txVectors = [
    ...loadVectors<{ vectors: Array<{ json: FuzzValue }> }>('ledger-transactions.json').vectors,
    ...loadVectors<{ transactions: Array<{ json: FuzzValue }> }>('ledger-recovery.json').transactions,
  ].map((v) => v.json);

  // Committed hashes to look up, before the fuzzing starts, so each case's content depends on the seed alone.
  const seeded = [];
  for (const r of recipients.slice(0, 2)) {
    const s = signAndEncode(chainId, buildTransfer({ senderPubkey: sender.publicKey, nonce: await client.getNonce(sender.address, { pending: true }), to: r.address, amount: 1000n }), sender.seed);
    await client.sendTransaction(s.json);
    seeded.push(s.hash);
  }
  for (const h of seeded) await waitForReceipt(client, h, { timeoutMs: 20_000 });
  const samples: Samples = {
    address: [sender.address, ...recipients.map((r) => r.address), 'E4ADWjgjm7q25MvG89xRhyqHyFD'],
    did: [sender.did, recipients[0]!.did, 'did:ledger:testnet:2WRXAwiHCW7rvEpkN1nPmFY5hiUC', 'did:ledger:other:2WRXAwiHCW7rvEpkN1nPmFY5hiUC', 'did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw'],
    txHash: [...seeded, '0'.repeat(64), 'f'.repeat(64)],
    credentialId: ['urn:ledger:credential:0f8fad5b-d9cb-469f-a165-70867728950e', '0f8fad5b-d9cb-469f-a165-70867728950e'],
    txJson: txVectors.slice(0, 4).map((v) => fuzzText(v)),
  };

  const tally = new Tally();
  const failures: Failure[] = [];
  const record = (c: HttpCase, index: number, problems: string[]) => {
    const body = typeof c.body === 'string' ? c.body : c.body === undefined ? '' : `hex ${Buffer.from(c.body).toString('hex')}`;
    if (problems.length > 0) failures.push({ category: c.category, index, label: c.label, problems, body: body.slice(0, 800) });
  };
  const run = async (c: HttpCase, index: number) => {
    tally.add('cases', c.category);
    let verdict;
    try {
      const answer = await send(node.url, c);
      tally.add('status', answer.status);
      verdict = judge(c, answer);
    } catch (err) {
      record(c, index, [`no HTTP answer: ${(err as Error).message}`]);
      return undefined;
    }
    for (const code of verdict.codes) tally.add('codes', code);
    if (c.category !== 'http') tally.add('answers', `${c.category} ${verdict.results > 0 ? 'with a result' : 'error only'}`);
    record(c, index, verdict.problems);
    return verdict;
  };

  const recipientBytes = recipients.map((x) => parseAddress(x.address));
  /** Sends a race batch; returns how many distinct transactions were admitted. */
  const race = async (rc: RaceCase, nonce: bigint, index: number): Promise<number> => {
    const c: HttpCase = { category: 'tx', label: rc.label, body: fuzzText(rc.texts.map((text, id) => ({ jsonrpc: '2.0', id, method: 'ledger_sendTransaction', params: [text] }))) };
    tally.add('tx', rc.label.split(' ').slice(0, 2).join(' '));
    const answers = (await run(c, index))?.batch ?? [];
    if (answers.some((a) => a.error?.code === -32010)) return new Set(answers.map((a) => a.result).filter((h) => typeof h === 'string')).size;
    const won = new Set<unknown>();
    const problems: string[] = [];
    for (const a of answers) {
      const tx = rc.txs[a.id as number]!;
      if (a.result === tx.hash) won.add(a.result);
      else if (a.result !== undefined) problems.push(`request ${a.id} admitted as ${String(a.result)}, not ${tx.hash}`);
      // a run may meet a nonce an earlier gapped case holds; the same nonce twice is a taken nonce
      else if (a.error?.data?.code !== 'NONCE_TAKEN' && a.error?.data?.code !== 'ALREADY_KNOWN') problems.push(`request ${a.id} refused with ${JSON.stringify(a.error)}`);
      else if (tx.nonce === nonce && !rc.label.includes('same-nonce')) problems.push(`the transaction at the next nonce ${nonce} was refused`);
    }
    if (rc.label.includes('same-nonce') && won.size !== 1) problems.push(`${won.size} transactions admitted at one nonce`);
    record(c, index, problems);
    return won.size;
  };

  // Transactions go one at a time from one funded key, each built on the nonce the node reports pending.
  const nTx = Math.round(COUNT * 0.3);
  const txRng = rng.fork();
  let admitted = 0;
  const sendTransactions = async () => {
    let nonce = await client.getNonce(sender.address, { pending: true });
    for (let i = 0; i < nTx; i++) {
      const r = txRng.fork();
      if (r.chance(0.05)) {
        const won = await race(raceCase(r, chainId, sender, nonce, recipientBytes), nonce, i);
        admitted += won;
        if (won > 0) nonce = await client.getNonce(sender.address, { pending: true });
        continue;
      }
      const kind = r.pick(['equivalent', 'equivalent', 'equivalent', 'broken', 'broken', 'broken', 'resigned', 'resigned', 'other-kind', 'other-kind'] as const);
      const toBytes = parseAddress(r.pick(recipients).address);
      let tc: TxCase;
      if (kind === 'equivalent') tc = equivalentCase(r, chainId, sender, nonce, toBytes, r.chance(0.1) ? 2n ** 53n + BigInt(r.int(1000)) : BigInt(1 + r.int(1_000_000)));
      else if (kind === 'broken') tc = brokenCase(r, chainId, sender, nonce, toBytes, txVectors);
      else if (kind === 'resigned') tc = resignedCase(r, chainId, sender, nonce, recipientBytes);
      else tc = otherKindCase(r, chainId, sender, nonce, txVectors);
      const c: HttpCase = { category: 'tx', label: tc.label, body: fuzzText({ jsonrpc: '2.0', id: i, method: 'ledger_sendTransaction', params: [tc.text] }), id: i };
      tally.add('tx', tc.label.split(' ').slice(0, tc.label.startsWith('kind') ? 2 : 1).join(' '));
      const verdict = await run(c, i);
      const result = verdict?.single?.result;
      if (typeof result === 'string') {
        admitted++;
        nonce = await client.getNonce(sender.address, { pending: true });
      }
      const busy = verdict?.single?.error?.code === -32010;
      if (tc.mustAdmit && result !== tc.mustAdmit && !busy) record(c, i, [`an equivalent form of a valid transaction was not admitted as ${tc.mustAdmit}: ${JSON.stringify(verdict?.single)}`]);
    }
  };

  const nMethod = Math.round(COUNT * 0.35);
  const nEnvelope = Math.round(COUNT * 0.15);
  const nRaw = Math.round(COUNT * 0.17);
  const nHttp = COUNT - nTx - nMethod - nEnvelope - nRaw;
  const caseRng = rng.fork();
  const cases: HttpCase[] = [
    ...Array.from({ length: nMethod }, () => methodCase(caseRng.fork(), methods, samples)),
    ...Array.from({ length: nEnvelope }, () => envelopeCase(caseRng.fork(), methods, samples)),
    ...Array.from({ length: nRaw }, () => rawCase(caseRng.fork(), methods, samples)),
    ...Array.from({ length: nHttp }, () => httpCase(caseRng.fork(), samples)),
    // one body over the 1 MiB limit: a 413, read to the end before the close
    { category: 'raw', label: 'oversize', body: `{"jsonrpc":"2.0","id":1,"method":"ledger_blockNumber","params":["${'x'.repeat(1024 * 1024)}"]}` },
  ];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      await run(cases[i]!, i);
    }
  };
  await Promise.all([sendTransactions(), ...Array.from({ length: CONCURRENCY }, worker)]);
  const fuzzMs = Date.now() - started;
  t.comment(`seed ${SEED}: ${COUNT + 1} cases in ${fuzzMs} ms, ${admitted} transactions admitted`);
  t.comment(`methods from the node's table (${methods.length}): ${methods.map((m) => m.name).join(', ')}`);
  for (const line of tally.lines()) t.comment(line);
  for (const f of failures.slice(0, 20)) t.comment(`FAILED seed ${SEED} ${f.category} #${f.index} (${f.label}): ${f.problems.join('; ')}\n  body: ${f.body}`);
  t.equal(failures.length, 0, `seed ${SEED}: every answer is a JSON-RPC response under 500 without -32603`);

  t.ok(node.proc.exitCode === null && node.proc.signalCode === null, 'the node process is still alive');
  const headAfterFuzz = (await client.canonHead())!.seq;
  // everything admitted in order commits: the committed nonce catches up with the pending one
  const pending = await client.getNonce(sender.address, { pending: true });
  await until('the admitted transactions to commit', async () => (await client.getNonce(sender.address)) === pending, 30_000, 200);
  const last = signAndEncode(chainId, buildTransfer({ senderPubkey: sender.publicKey, nonce: pending, to: recipients[0]!.address, amount: 1n }), sender.seed);
  await client.sendTransaction(last.json);
  t.equal((await waitForReceipt(client, last.hash, { timeoutMs: 20_000 })).status, 'success', 'a transfer still commits after the fuzzing');
  // the last transfer may have filled a nonce gap: what that made sendable commits before the count
  const settled = await client.getNonce(sender.address, { pending: true });
  await until('the transactions behind the gap to commit', async () => (await client.getNonce(sender.address)) === settled, 30_000, 200);
  const head = (await client.canonHead())!.seq;
  t.ok(head > headAfterFuzz && headAfterFuzz > headBefore, `blocks kept coming (seq ${headBefore}, ${headAfterFuzz} after the fuzzing, then ${head})`);

  const supply = await supplyAt(client, genesis, head);
  const after = (await client.canonHead())!.seq;
  let lateTxs = 0;
  for (let s = head + 1; s <= after; s++) lateTxs += (await client.getBlockBySeq(s))!.tx_count;
  t.equal(lateTxs, 0, 'no transaction committed while the balances were read');
  t.equal(supply.total - genesisTotal(genesis), 0n, `balances, stakes and unbonding of ${supply.accounts} accounts add up to the genesis total`);
  const transfers = supply.transfersBySender.get(sender.address) ?? 0;
  const minTransfers = Math.max(5, Math.floor(nTx / 20));
  t.ok(transfers >= minTransfers, `${transfers} transfers of the fuzzer committed (at least ${minTransfers}), so supply moved between accounts`);

  t.comment(`${transfers} transfers committed, ${supply.transactions} transactions in ${supply.blocks} blocks, ${supply.accounts} accounts counted`);
  const errors = node.stderr().split('\n').filter((l) => /"level":(50|60)/.test(l));
  t.same(errors.slice(0, 5), [], 'the node logged no error');
  t.equal(await node.stop(), 0, 'SIGTERM exits cleanly');
});
