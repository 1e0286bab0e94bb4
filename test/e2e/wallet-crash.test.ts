import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RpcClient, transactionFromJson } from '../../node/client/index.js';
import { dataPaths } from '../../node/config/datadir.js';
import { freePortRange } from '../../node/devnet/ports.js';
import { parseJson } from '../../node/protocol/json.js';
import { transactionHash } from '../../node/protocol/transaction.js';
import { openDatabase } from '../../node/state/db.js';
import { PluginDb } from '../../plugins/common/store/tables.js';
import { runCli, startNodeProcess, tempDataDir, type NodeProcess } from './harness.js';
import { Phone, type Answer } from './wallet/phone.js';

/**
 * The wallet plugin under load, killed with SIGKILL and restarted on the same data directory and
 * ports, three times at random moments: acknowledged wallet data survives kill -9. Phones keep
 * registering with signed DidCreates; the first active ones loop prepare → sign → send to each
 * other. Only answers count: a request the kill cut off was not acknowledged.
 *
 * After each restart, before traffic resumes:
 * - every registration answered 201 before the kill still authenticates with the session cookie
 *   it got (the session secret and records survived) and its onboarding is still under way or done;
 * - every send answered 202 before the kill committed, or its nonce is still unused;
 * - each sending phone's committed nonce is 1 (its DidCreate) + its committed transfers;
 * - its history (GET /v1/transactions) lists each of its committed transactions exactly once:
 *   its DidCreate, its transfers out and in, and the sponsor's one funding.
 * After the last restart, once the load stops: every acknowledged registration reaches
 * `didStatus: 'active'` (the onboarding worker resumes; the sponsor's stored funding is sent
 * again), every acknowledged send has committed, and every phone's history is exact.
 *
 * The mempool is not durable: a 202 means admitted to the mempool, not committed, and a kill
 * drops what the mempool held. So, as a wallet app must, a phone that has no receipt for its
 * transaction after a restart (or after a few seconds) sends the same signed bytes again, same
 * nonce; it signs its next transfer only once the previous one has a receipt.
 *
 * Each kill lands a few milliseconds after a registration left, so some are cut off. The app
 * sends those again once the node is back: 201 if the service had not stored it, 409 DID_TAKEN
 * if it had, or 409 DID_EXISTS if it had and the restarted onboarding already put the DID on
 * chain (a DidCreate on chain is public, so it no longer signs anyone in: the app then signs in
 * with {did, proof}). A stored one was never acknowledged, but the service still owes it its DID: the
 * last assertion checks that (the user and its onboarding are one write, so a kill keeps both or
 * neither).
 */

t.setTimeout(300_000);

const KILLS = 3;

/** a registration sent again that the service had stored before the kill cut its answer off */
const storedBefore = (a: { status: number; body?: { code?: string } }): boolean => a.status === 409 && (a.body?.code === 'DID_TAKEN' || a.body?.code === 'DID_EXISTS');
/** how many of the first active phones send transfers (the others only register) */
const SENDERS = 8;
const REGISTER_GAP_MS = 350;
const AMOUNT = 1_000;
const FUND_AMOUNT = 100_000_000;
/** a transaction with no receipt after this long is sent again */
const RESEND_MS = 5_000;
const UNDER_WAY = new Set(['funding', 'submitted', 'active']);

interface Reg {
  phone: Phone;
  /** the cookie the 201 set */
  cookie: string;
  didTx: string;
  /** kills before the 201 */
  kills: number;
}

interface Signed {
  phone: Phone;
  to: string;
  nonce: number;
  hash: string;
  text: string;
  /** answered 202 at least once */
  acked: boolean;
  committed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

t.test('kill -9 under load loses no acknowledged registration, session or send, and the history stays exact', async (t) => {
  const dir = await tempDataDir(t);
  const init = await runCli(['init', '--data-dir', dir]);
  t.equal(init.code, 0, init.stderr);
  const sponsor: string = JSON.parse(init.stdout).service_accounts.find((s: { plugin: string }) => s.plugin === 'wallet').address;
  const port = await freePortRange(2);
  const wallet = `http://127.0.0.1:${port}`;
  await writeFile(join(dir, 'config.json'), JSON.stringify({ plugins: { wallet: { enabled: true, sponsor: { fundAmount: FUND_AMOUNT, perHour: 100_000 } } } }));
  const start = () => startNodeProcess(t, dir, { plugins: { wallet: port }, rpcPort: port + 1, logLevel: 'warn' });
  let node: NodeProcess = await start();
  t.equal(node.plugins.wallet, wallet);
  const rpc = new RpcClient(node.url, { timeoutMs: 30_000 });
  const chainId = (await rpc.chainInfo()).chain_id;

  /** closed while the node restarts and is checked: requests wait for it */
  let gate: Promise<void> | null = null;
  let kills = 0;
  /** aborted at each restart (and at the end): a wait for a 429 to pass ends early, the limit lived in memory */
  let wake = new AbortController();
  let running = true;
  /** set by the kill loop: called as soon as a registration is on its way, so a kill catches one in flight */
  let armed: (() => void) | undefined;
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const signal = wake.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });

  const regs: Reg[] = [];
  const senders: Reg[] = [];
  const signed: Signed[] = [];
  const anomalies: string[] = [];
  const n = { cut: 0, retried201: 0, storedUnanswered: [] as Phone[], limited: 0, resent: 0 };

  const hashOf = (text: string): string => transactionHash(chainId, transactionFromJson(parseJson(text)).tx);

  /** A GET for the checks, sent again when a connection dies (a pooled socket of the killed process). */
  async function get(path: string, cookie: string): Promise<{ status: number; body: any }> {
    for (let i = 0; ; i++) {
      try {
        const res = await fetch(`${wallet}${path}`, { headers: { cookie }, signal: AbortSignal.timeout(30_000) });
        const text = await res.text();
        return { status: res.status, body: text === '' ? null : JSON.parse(text) };
      } catch (err) {
        if (i >= 20) throw err;
        await sleep(100);
      }
    }
  }

  async function receipts(hashes: string[]): Promise<Map<string, { status: string }>> {
    const out = new Map<string, { status: string }>();
    for (let i = 0; i < hashes.length; i += 100) {
      const chunk = hashes.slice(i, i + 100);
      const answers = await rpc.batch(chunk.map((h) => ({ method: 'ledger_getReceipt', params: [h] })));
      answers.forEach((a, j) => {
        if (!a.ok) throw a.error;
        if (a.result) out.set(chunk[j]!, a.result as { status: string });
      });
    }
    return out;
  }

  /** polls for a receipt until `ms` pass or the node restarts */
  async function receiptOf(hash: string, ms: number): Promise<{ status: string } | undefined> {
    const epoch = kills;
    for (const end = Date.now() + ms; Date.now() < end && kills === epoch; await sleep(150)) {
      try {
        const r = await rpc.getReceipt(hash);
        if (r) return r;
      } catch {
        return undefined; // the node died: the caller sends again once it is back
      }
    }
    return undefined;
  }

  const registrar = async () => {
    while (running) {
      await gate;
      const phone = new Phone(wallet, chainId, 'testnet');
      const didCreate = phone.didCreate();
      const body = { signedDidCreate: didCreate.json };
      let a: Answer | undefined;
      try {
        const answer = phone.call('POST', '/v1/users/register', body);
        armed?.();
        armed = undefined;
        a = await answer;
      } catch {
        // cut off by the kill: not acknowledged. Once the node is back, the app tries again with the same bytes.
        n.cut++;
        await gate;
        try {
          a = await phone.call('POST', '/v1/users/register', body);
          if (a.status === 201) n.retried201++;
          else if (storedBefore(a)) n.storedUnanswered.push(phone);
        } catch {
          continue;
        }
      }
      if (a.status === 201) {
        if (a.body.didTx !== didCreate.hash) anomalies.push(`register ${phone.did}: didTx ${a.body.didTx}, not ${didCreate.hash}`);
        const reg: Reg = { phone, cookie: phone.cookie!, didTx: didCreate.hash, kills };
        regs.push(reg);
        if (regs.length <= SENDERS) void sender(reg);
      } else if (a.status === 429) {
        n.limited++;
        await nap(Number(a.headers.get('retry-after') ?? 5) * 1000);
        continue;
      } else if (!storedBefore(a)) anomalies.push(`register: ${a.status} ${JSON.stringify(a.body)}`);
      await nap(REGISTER_GAP_MS);
    }
  };

  const loops: Array<Promise<void>> = [];
  let stopBy = Number.POSITIVE_INFINITY;
  const sender = (reg: Reg) => {
    const loop = (async () => {
      const p = reg.phone;
      for (;;) {
        if (!running) return;
        await gate;
        const me = await p.call('GET', '/v1/users/me').catch(() => undefined);
        if (me?.body?.didStatus === 'active') break;
        await nap(300);
      }
      senders.push(reg);
      let pending: Signed | undefined;
      let next = 1;
      while ((running || pending) && Date.now() < stopBy) {
        await gate;
        if (!pending) {
          const others = senders.filter((r) => r !== reg);
          if (others.length === 0) {
            await nap(200);
            continue;
          }
          const to = pick(others).phone.address;
          const prep = await p.call('POST', '/v1/transactions/prepare', { chain: 'ledger', kind: 'send', assetId: 'lgr', amount: AMOUNT, toAddress: to }).catch(() => undefined);
          if (!prep) continue;
          if (prep.status !== 200 || prep.body.nonce !== next) {
            anomalies.push(`prepare for ${p.address}, next nonce ${next}: ${prep.status} ${JSON.stringify(prep.body).slice(0, 200)}`);
            await nap(500);
            continue;
          }
          const text = JSON.stringify(p.signPrepared(prep.body));
          pending = { phone: p, to, nonce: next, hash: hashOf(text), text, acked: false, committed: false };
          signed.push(pending);
        } else n.resent++;
        const s = pending;
        const a = await p.call('POST', '/v1/transactions/send', undefined, s.text).catch(() => undefined);
        if (!a) continue; // cut off: sent again once the node is back
        if (a.status === 202) {
          if (a.body.hash !== s.hash) anomalies.push(`send: hash ${a.body.hash}, the phone computed ${s.hash}`);
          s.acked = true;
        } else if (!(a.status === 409 && ['ALREADY_KNOWN', 'NONCE_TAKEN', 'NONCE_TOO_LOW'].includes(a.body?.code)) && a.status !== 503) {
          anomalies.push(`send ${s.hash}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`);
        }
        const receipt = await receiptOf(s.hash, RESEND_MS);
        if (receipt) {
          if (receipt.status !== 'success') anomalies.push(`${s.hash}: ${receipt.status}`);
          s.committed = true;
          pending = undefined;
          next = s.nonce + 1;
        }
      }
    })();
    loops.push(loop);
  };

  async function history(cookie: string): Promise<any[]> {
    const rows: any[] = [];
    let cursor: string | null = null;
    do {
      const a = await get(`/v1/transactions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, cookie);
      if (a.status !== 200) throw new Error(`history: ${a.status} ${JSON.stringify(a.body)}`);
      rows.push(...a.body.items);
      cursor = a.body.nextCursor;
    } while (cursor);
    return rows;
  }

  /** The chain and the history of `scope`, against what the phones signed: the problems found. */
  async function auditOnce(scope: Reg[]): Promise<string[]> {
    const out: string[] = [];
    const all = [...signed];
    const rc = await receipts([...all.map((s) => s.hash), ...scope.map((r) => r.didTx)]);
    for (const r of scope) {
      const p = r.phone;
      const own = all.filter((s) => s.phone === p);
      const committed = own.filter((s) => rc.has(s.hash));
      const didOn = rc.has(r.didTx);
      const nonce = Number(await rpc.getNonce(p.address));
      if (nonce !== (didOn ? 1 : 0) + committed.length) out.push(`${p.address}: nonce ${nonce}, but ${committed.length} committed transfers${didOn ? ' + its DidCreate' : ''}`);
      for (const s of own) if (s.acked && !rc.has(s.hash) && nonce > s.nonce) out.push(`${s.hash}: answered 202, not committed, and its nonce ${s.nonce} was used`);
      const want = new Set([...(didOn ? [r.didTx] : []), ...all.filter((s) => (s.phone === p || s.to === p.address) && rc.has(s.hash)).map((s) => s.hash)]);
      const rows = await history(r.cookie);
      const hashes = rows.map((x) => x.hash as string);
      const dups = hashes.filter((h, i) => hashes.indexOf(h) !== i);
      if (dups.length > 0) out.push(`${p.address}: history rows listed twice: ${dups.join(', ')}`);
      const funding = rows.filter((x) => x.from === sponsor);
      if (funding.length !== 1 || funding[0].amount !== String(FUND_AMOUNT)) out.push(`${p.address}: ${funding.length} sponsor rows, not one funding of ${FUND_AMOUNT}`);
      const listed = new Set(rows.filter((x) => x.from !== sponsor).map((x) => x.hash as string));
      const missing = [...want].filter((h) => !listed.has(h));
      const extra = [...listed].filter((h) => !want.has(h));
      if (missing.length > 0 || extra.length > 0) out.push(`${p.address}: history misses ${missing.length} committed (${missing.slice(0, 3).join(', ')}), lists ${extra.length} others (${extra.slice(0, 3).join(', ')})`);
      const failed = rows.filter((x) => x.status !== 'success');
      if (failed.length > 0) out.push(`${p.address}: ${failed.length} rows not success`);
    }
    return out;
  }

  /** auditOnce until it finds nothing (the index may still be catching up) or `ms` pass: the last problems */
  async function audit(scope: Reg[], ms: number): Promise<string[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const problems = await auditOnce(scope).catch((err: Error) => [`the audit could not read: ${err.message}`]);
      if (problems.length === 0 || Date.now() > deadline) return problems.slice(0, 20);
      await sleep(300);
    }
  }

  /** every registration acknowledged before kill `k`: its cookie still works, its onboarding is under way or done */
  async function sessionsSurvived(k: number): Promise<{ problems: string[]; statuses: Map<string, number> }> {
    const problems: string[] = [];
    const statuses = new Map<string, number>();
    for (const r of regs.filter((x) => x.kills < k)) {
      const me = await get('/v1/users/me', r.cookie);
      if (me.status !== 200 || me.body.did !== r.phone.did || !UNDER_WAY.has(me.body.didStatus)) problems.push(`${r.phone.did}: ${me.status} ${JSON.stringify(me.body).slice(0, 200)}`);
      else statuses.set(me.body.didStatus, (statuses.get(me.body.didStatus) ?? 0) + 1);
    }
    return { problems: problems.slice(0, 20), statuses };
  }

  const started = Date.now();
  loops.push(registrar());
  for (const end = Date.now() + 90_000; senders.length < 3 || signed.filter((s) => s.committed).length < 5; await sleep(200)) {
    if (Date.now() > end) throw new Error(`no three phones sending after 90 s: ${regs.length} registered, ${senders.length} active`);
  }
  const restarts: number[] = [];
  for (let k = 1; k <= KILLS; k++) {
    // a random moment in the load, just after a registration left (if one leaves within 3 s)
    await sleep(4_000 + Math.floor(Math.random() * 5_000));
    await Promise.race([new Promise<void>((r) => (armed = r)), sleep(3_000)]);
    armed = undefined;
    await sleep(Math.floor(Math.random() * 8));
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    kills = k;
    const atKill = { regs: regs.length, acked: signed.filter((s) => s.acked).length, cut: n.cut };
    const t0 = Date.now();
    await node.kill9();
    node = await start();
    restarts.push(Date.now() - t0);
    wake.abort();
    wake = new AbortController();
    t.equal(node.plugins.wallet, wallet, `kill ${k}: the wallet is back on its port`);
    const survived = await sessionsSurvived(k);
    t.same(survived.problems, [], `kill ${k}: the ${regs.filter((x) => x.kills < k).length} registrations answered 201 before it still authenticate, onboarding under way`);
    t.same(await audit([...senders], 30_000), [], `kill ${k}: ${atKill.acked} sends answered 202 before it committed or left their nonce unused; ${senders.length} senders' nonces and histories exact`);
    const waiting = signed.filter((s) => s.acked && !s.committed);
    const dropped = waiting.length - (await receipts(waiting.map((s) => s.hash))).size;
    t.comment(`kill ${k}: ${atKill.regs} registrations and ${atKill.acked} sends acknowledged so far, ${n.cut - atKill.cut} registrations cut off, ${dropped} sends answered 202 but lost with the mempool (sent again), onboardings after the restart: ${[...survived.statuses].map(([st, c]) => `${c} ${st}`).join(', ')}; restart took ${restarts.at(-1)} ms`);
    release();
    gate = null;
  }
  await sleep(3_000);
  running = false;
  stopBy = Date.now() + 60_000;
  wake.abort();
  await Promise.all(loops);
  const loadMs = Date.now() - started;

  // after the last restart: every acknowledged registration gets its DID on chain
  const settleStart = Date.now();
  const notActive = async () => {
    const out: string[] = [];
    for (const r of regs) {
      const me = await get('/v1/users/me', r.cookie);
      if (me.status !== 200 || me.body.didStatus !== 'active') out.push(`${r.phone.did}: ${me.status} ${me.body?.didStatus ?? JSON.stringify(me.body)} ${me.body?.didStatusReason ?? ''}`);
    }
    return out;
  };
  let stuck: string[] = [];
  for (const end = Date.now() + 120_000; ; await sleep(500)) {
    stuck = await notActive();
    if (stuck.length === 0 || Date.now() > end) break;
  }
  const settleMs = Date.now() - settleStart;
  const acked = signed.filter((s) => s.acked);
  t.comment(`${regs.length} registrations acknowledged (${n.cut} cut off by a kill: ${n.retried201} answered 201 when sent again, ${n.storedUnanswered.length} had been stored; ${n.limited} waits for the rate limit), ${signed.length} transfers signed by ${senders.length} phones, ${acked.length} answered 202, ${n.resent} sent again; ${KILLS} kills, restarts took ${restarts.join(', ')} ms; load ${loadMs} ms, onboarding settled in ${settleMs} ms`);

  t.same(stuck, [], `every one of the ${regs.length} acknowledged registrations is active`);
  t.ok(regs.length >= 20 && acked.length >= 50, 'enough registrations and sends to mean something');
  t.same(anomalies.slice(0, 20), [], 'no unexpected answer during the load');
  const lost = acked.filter((s) => !s.committed).map((s) => `${s.phone.address} nonce ${s.nonce}: ${s.hash}`);
  t.same(lost, [], 'every send answered 202 committed once the phones had sent it again');
  t.same(await audit(regs, 60_000), [], `nonces and histories of all ${regs.length} phones are exact`);

  // Registrations whose answer a kill cut off but that the service had stored (a second try
  // answered 409 DID_TAKEN or DID_EXISTS) were not acknowledged; still, the service owes them their DID too.
  const offChain = async () => {
    const out: Phone[] = [];
    for (const p of n.storedUnanswered) if (!(await rpc.call('ledger_didResolve', [p.did]).catch(() => null))) out.push(p);
    return out;
  };
  let stranded = await offChain();
  for (const end = Date.now() + 45_000; stranded.length > 0 && Date.now() < end; await sleep(500)) stranded = await offChain();
  await node.stop();
  // what the store holds for them: the user, and the onboarding record the worker needs
  const db = await openDatabase(dataPaths(dir).chainDb);
  const store = new PluginDb(db.pluginStore('wallet'));
  const held: string[] = [];
  for (const p of stranded) {
    const user = await store.json<string>('user-by-did').get(p.did);
    const onboarding = await store.json<{ status: string; reason: string | null }>('onboarding').get(p.address);
    held.push(`${p.did}: user ${user ?? 'none'}, onboarding ${onboarding ? `${onboarding.status} (${onboarding.reason ?? ''})` : 'none'}`);
  }
  await db.close();
  t.same(held, [], `the ${n.storedUnanswered.length} registrations stored but left unanswered by a kill reach the chain too`);
});
