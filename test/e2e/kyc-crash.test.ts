import t from 'tap';
import { testJpeg } from '../../bench/lib/kyc/images.js';
import { WebhookReceiver } from '../../bench/lib/kyc/receiver.js';
import { documentForm } from '../../bench/lib/kyc/client.js';
import { startKycNode, subjectOnChain } from './kyc/setup.js';

/**
 * The KYC service under load, killed with SIGKILL and restarted on the same data directory, a
 * few times while traffic flows: "committed or acknowledged data survives kill -9 at any
 * moment". Workers create level-1 sandbox sessions (pass, for subjects with a DID on chain, and
 * fail) and upload their final document; another registers accounts and creates API keys.
 * Clients retry on connection errors and count only 2xx answers as acknowledged. After the last
 * restart, once things settle:
 *
 * - every session whose creation was answered 201 exists, in a valid state;
 * - every session whose final upload was acknowledged is completed (pass, with a credential the
 *   chain reports valid) or failed (fail): none is left pending or processing;
 * - one credential per session: the issuer's registered credentials on chain are exactly the
 *   completed sessions' credentials;
 * - the receiver got verification.completed and credential.issued (naming the issuer) for each
 *   passed session, verification.failed for each failed one, one event id per event;
 * - every acknowledged account and API key still authenticates.
 *
 * A kill also loses what lived only in memory: the validator's queued attestations and the
 * mempool. At start the attester attests every request still pending that it owes, and the
 * issuer sends its stored transactions again, so credentials requested just before a kill are
 * registered soon after the restart.
 */

t.setTimeout(600_000);

const KILLS = 3;
const PASS_WORKERS = 4;
const FAIL_WORKERS = 1;
const SUBJECTS = 3;
const PASSWORD = 'a long enough passphrase';
const STATES = new Set(['pending', 'processing', 'completed', 'failed', 'expired']);

interface Answer {
  status: number;
  body: any;
}

interface Tracked {
  id: string;
  outcome: 'pass' | 'fail';
  /** the final document upload was answered 201 */
  uploaded: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('kill -9 under load loses no acknowledged session, upload, credential, webhook or key', async (t) => {
  const n = await startKycNode(t);
  const receiver = new WebhookReceiver();
  const hookUrl = await receiver.start();
  t.teardown(() => receiver.close());

  /** while the node restarts: requests wait for it */
  let restarting: Promise<void> | null = null;
  let reconnects = 0;

  /** One request, sent again on a connection error (the node died under it) until answered. */
  async function call(method: string, path: string, o: { json?: unknown; form?: () => FormData; headers?: Record<string, string> } = {}): Promise<Answer> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      await restarting;
      const headers: Record<string, string> = { ...o.headers };
      let body: string | FormData | undefined;
      if (o.form) body = o.form();
      else if (o.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(o.json);
      }
      let answered: { status: number; text: string };
      try {
        const res = await fetch(`${n.kyc}${path}`, { method, headers, body, signal: AbortSignal.timeout(60_000) });
        answered = { status: res.status, text: await res.text() };
      } catch (err) {
        if (Date.now() > deadline) throw err;
        reconnects++;
        await sleep(50);
        continue;
      }
      return { status: answered.status, body: answered.text === '' ? null : JSON.parse(answered.text) };
    }
  }

  // the organization that runs the sessions, and its webhook endpoint
  const reg = await call('POST', '/v1/auth/register', { json: { email: 'crash@example.org', password: PASSWORD, name: 'Crash Owner' } });
  t.equal(reg.status, 201);
  const jwt = { authorization: `Bearer ${reg.body.token}` };
  const created = await call('POST', '/v1/api-keys', { json: { name: 'load', mode: 'sandbox' }, headers: jwt });
  t.equal(created.status, 201);
  const key = { 'x-api-key': created.body.key as string };
  const hook = await call('POST', '/v1/webhooks', { json: { url: hookUrl, events: ['verification.completed', 'verification.failed', 'credential.issued'] }, headers: jwt });
  t.equal(hook.status, 201);
  receiver.secret = hook.body.secret;

  const subjects: string[] = [];
  for (let i = 0; i < SUBJECTS; i++) subjects.push((await subjectOnChain(n, i)).did);
  let issuerDid = '';
  for (const end = Date.now() + 60_000; ; await sleep(200)) {
    const health = await call('GET', '/v1/health');
    if (health.body?.issuer?.didActive) {
      issuerDid = health.body.issuer.did;
      break;
    }
    if (Date.now() > end) throw new Error(`the issuer DID was not created: ${JSON.stringify(health.body)}`);
  }

  const images = Array.from({ length: 6 }, (_, i) => testJpeg(480, 320, i + 1));
  const sessions: Tracked[] = [];
  const accounts: Array<{ email: string; jwt: string; key?: string }> = [];
  let running = true;

  const sessionWorker = async (w: number, outcome: 'pass' | 'fail') => {
    for (let i = 0; running; i++) {
      const body = { level: 1, sandbox: true, sandboxOutcome: outcome, subjectDid: subjects[(w + i) % SUBJECTS], metadata: { worker: String(w), i: String(i) } };
      const c = await call('POST', '/v1/verifications', { json: body, headers: key });
      if (c.status !== 201) {
        await sleep(100);
        continue;
      }
      const tracked: Tracked = { id: c.body.session.id, outcome, uploaded: false };
      sessions.push(tracked);
      const image = images[(w + i) % images.length]!;
      const up = await call('POST', `/v1/verifications/${tracked.id}/documents`, { form: () => documentForm(image, { type: 'passport', side: 'front', final: true }), headers: key });
      // 409: an earlier attempt went through but its answer was lost with the process
      tracked.uploaded = up.status === 201;
    }
  };
  const accountWorker = async () => {
    for (let i = 0; running; i++) {
      const email = `load-${i}-${Date.now()}@example.org`;
      const r = await call('POST', '/v1/auth/register', { json: { email, password: PASSWORD, name: `Load ${i}` } });
      if (r.status !== 201) {
        await sleep(100);
        continue;
      }
      const account: (typeof accounts)[number] = { email, jwt: r.body.token };
      accounts.push(account);
      const k = await call('POST', '/v1/api-keys', { json: { name: `key ${i}`, mode: i % 2 === 0 ? 'sandbox' : 'live' }, headers: { authorization: `Bearer ${account.jwt}` } });
      if (k.status === 201) account.key = k.body.key;
      await sleep(100);
    }
  };
  const workers = [
    ...Array.from({ length: PASS_WORKERS }, (_, w) => sessionWorker(w, 'pass')),
    ...Array.from({ length: FAIL_WORKERS }, (_, w) => sessionWorker(PASS_WORKERS + w, 'fail')),
    accountWorker(),
  ];

  const started = Date.now();
  for (let k = 0; k < KILLS; k++) {
    await sleep(2000 + Math.floor(Math.random() * 2500));
    let release!: () => void;
    restarting = new Promise<void>((r) => (release = r));
    const before = sessions.length;
    await n.restart({ kill9: true });
    release();
    restarting = null;
    t.comment(`kill ${k + 1}: ${before} sessions created so far; back on ${n.kyc}`);
  }
  await sleep(2000);
  running = false;
  await Promise.all(workers);
  const loadMs = Date.now() - started;

  // settle: every acknowledged upload reaches a final state
  const acked = sessions.filter((s) => s.uploaded);
  const finals = new Map<string, any>();
  const settleEnd = Date.now() + 240_000;
  for (const s of acked) {
    for (;;) {
      const r = await call('GET', `/v1/verifications/${s.id}`, { headers: key });
      if (r.status === 200 && (r.body.session.status === 'completed' || r.body.session.status === 'failed')) {
        finals.set(s.id, r.body.session);
        break;
      }
      if (Date.now() > settleEnd) {
        finals.set(s.id, r.body?.session ?? r.body);
        break;
      }
      await sleep(250);
    }
  }
  const settleMs = Date.now() - started - loadMs;
  // why the issuer prepared requests again since the last start (a stranded request: expired)
  const reasons = new Map<string, number>();
  for (const line of n.node.stderr().split('\n')) {
    const why = /KYC credential request prepared again: (.*?)"/.exec(line)?.[1]?.replace(/urn:ledger:credential:[0-9a-f-]+/g, '<id>').replace(/\d+/g, '#');
    if (why) reasons.set(why, (reasons.get(why) ?? 0) + 1);
  }
  const reprepared = [...reasons.values()].reduce((a, b) => a + b, 0);
  if (reprepared > 0) t.comment(`credential requests prepared again: ${[...reasons].map(([why, count]) => `${count} × ${why}`).join('; ')}`);
  t.comment(`${sessions.length} sessions created (${acked.length} uploads acknowledged), ${accounts.length} accounts, ${reconnects} requests sent again, ${reprepared} credential requests prepared again since the last restart; load ${loadMs} ms, settled in ${settleMs} ms`);
  t.ok(acked.filter((s) => s.outcome === 'pass').length >= 20, 'enough passed sessions to mean something');
  t.ok(acked.some((s) => s.outcome === 'fail'), 'and failed ones');

  await t.test('every session answered 201 exists in a valid state', async (t) => {
    const bad: string[] = [];
    for (const s of sessions) {
      const r = await call('GET', `/v1/verifications/${s.id}`, { headers: key });
      if (r.status !== 200 || !STATES.has(r.body.session.status)) bad.push(`${s.id}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    t.same(bad, [], `${sessions.length} sessions read back`);
  });

  await t.test('every acknowledged upload reached its outcome: none stuck', async (t) => {
    const wrong: string[] = [];
    for (const s of acked) {
      const f = finals.get(s.id);
      const want = s.outcome === 'pass' ? 'completed' : 'failed';
      if (f?.status !== want) wrong.push(`${s.id} (${s.outcome}): ${f?.status ?? JSON.stringify(f)}`);
      else if (s.outcome === 'pass' && typeof f.credentialId !== 'string') wrong.push(`${s.id}: completed without a credentialId`);
    }
    t.same(wrong, [], `${acked.length} sessions in their final state`);
    const invalid: string[] = [];
    for (const s of acked.filter((x) => x.outcome === 'pass')) {
      const id = finals.get(s.id)?.credentialId;
      if (typeof id !== 'string') continue;
      const v = await n.rpc.credentialVerify(id);
      if (!v?.valid) invalid.push(`${s.id}: ${id} ${JSON.stringify(v)}`);
    }
    t.same(invalid, [], 'each credential is valid on chain');
  });

  await t.test('one credential per session', async (t) => {
    // every completed session of the organization, acknowledged or not
    const completed: Array<{ id: string; credentialId: string | null }> = [];
    for (let offset = 0; ; offset += 100) {
      const page = await call('GET', `/v1/verifications?status=completed&limit=100&offset=${offset}`, { headers: key });
      t.equal(page.status, 200);
      completed.push(...page.body.sessions);
      if (page.body.sessions.length < 100) break;
    }
    const bySessions = completed.map((s) => s.credentialId);
    t.ok(bySessions.every((c) => typeof c === 'string'), 'every completed session carries its credential');
    t.equal(new Set(bySessions).size, bySessions.length, 'no credential is shared by two sessions');
    const onChain = await n.rpc.credentialsByIssuer(issuerDid);
    t.equal(onChain.length, completed.length, `${onChain.length} credentials registered by the issuer for ${completed.length} completed sessions`);
    t.same(new Set(onChain.map((c) => c.id)), new Set(bySessions), 'and they are the same credentials');
  });

  await t.test('webhooks: each outcome delivered, signed, with one event id', async (t) => {
    const deadline = Date.now() + 60_000;
    const missing = () => {
      const out: string[] = [];
      for (const s of acked) {
        const f = finals.get(s.id);
        if (s.outcome === 'pass') {
          if (!receiver.events.some((e) => e.type === 'verification.completed' && e.data.verificationId === s.id)) out.push(`${s.id}: verification.completed`);
          if (!receiver.events.some((e) => e.type === 'credential.issued' && e.data.credentialId === f?.credentialId)) out.push(`${s.id}: credential.issued`);
        } else if (!receiver.events.some((e) => e.type === 'verification.failed' && e.data.verificationId === s.id)) out.push(`${s.id}: verification.failed`);
      }
      return out;
    };
    while (missing().length > 0 && Date.now() < deadline) await sleep(250);
    t.same(missing(), [], `${receiver.events.length} events received for ${acked.length} sessions`);
    const issued = receiver.events.filter((e) => e.type === 'credential.issued');
    t.ok(issued.every((e) => e.data.issuer === issuerDid), 'credential.issued names the issuer DID');
    // a delivery repeated after a crash carries the event id it had the first time
    const ids = new Map<string, Set<string>>();
    for (const e of receiver.events) {
      const what = `${e.type} ${String(e.data.verificationId ?? e.data.credentialId)}`;
      ids.set(what, (ids.get(what) ?? new Set()).add(e.id));
    }
    t.same([...ids].filter(([, s]) => s.size > 1).map(([w, s]) => `${w}: ${[...s].join(', ')}`), [], 'one event id per event');
    t.equal(receiver.rejected, 0, 'every delivery carried a valid signature');
  });

  await t.test('acknowledged accounts and API keys still authenticate', async (t) => {
    t.ok(accounts.length > 0, `${accounts.length} accounts acknowledged`);
    const failures: string[] = [];
    for (const a of accounts) {
      const me = await call('GET', '/v1/auth/me', { headers: { authorization: `Bearer ${a.jwt}` } });
      if (me.status !== 200 || me.body.user.email !== a.email) failures.push(`${a.email}: /auth/me ${me.status}`);
      if (a.key) {
        const list = await call('GET', '/v1/verifications', { headers: { 'x-api-key': a.key } });
        if (list.status !== 200) failures.push(`${a.email}: key ${list.status}`);
      }
    }
    const login = await call('POST', '/v1/auth/login', { json: { email: accounts.at(-1)!.email, password: PASSWORD } });
    t.equal(login.status, 200, 'the last acknowledged account logs in with its password');
    t.same(failures, [], `${accounts.filter((a) => a.key).length} keys checked`);
  });

  await n.node.stop();
});
