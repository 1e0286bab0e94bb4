import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../node/state/db.js';
import { createLevelRelayStore } from '../../plugins/relay/store/level.js';
import { verifyWebhookSignature } from '../../plugins/common/webhooks/signature.js';
import { testSecrets } from '../plugins/relay/store/contract/backend.js';
import { TestAgent, TestResolver } from '../plugins/relay/didcomm-client.js';
import { startOidcProvider } from '../plugins/common/auth/oidc-provider.js';
import { receiver, until } from '../plugins/common/webhooks/receiver.js';
import { startNodeProcess } from './harness.js';

/**
 * A power cut, for real: the node's data directory is an ext4 filesystem on a loop device, mounted
 * with a 10-minute journal commit so that nothing reaches the device unless it is fsynced. The
 * node is SIGKILLed right after its last 202, and the device is copied at once, without the page
 * cache: the copy is what a disk would hold after the power went out. Every forward answered 202
 * must be in the relay store opened from the copy. Without the relay's fsync before the 202, the
 * copy lacks the last forwards (the LevelDB log stays in the page cache). Their `message.queued`
 * webhook events too: the tenant's webhook answers 503 until the cut, so no event is delivered
 * before it, and a node restarted on the copy must deliver the event of every forward answered
 * 202 (without the outbox's fsync before the 202, the last events stay in the page cache). Needs
 * root, losetup, mkfs.ext4 and mount; skipped with the reason otherwise.
 */

const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';
const FORWARDS = 300;
const SENDERS = 8;

const run = (cmd: string, args: string[]): string => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();

/** Why this machine cannot cut the power under a filesystem, or null when it can. */
function unsupported(): string | null {
  if (process.platform !== 'linux') return 'loop devices are Linux only';
  if (process.getuid?.() !== 0) return 'losetup and mount need root';
  for (const [cmd, arg] of [['losetup', '--version'], ['mkfs.ext4', '-V'], ['mount', '--version']] as const) {
    try {
      run(cmd, [arg]);
    } catch {
      return `${cmd} is not installed`;
    }
  }
  return null;
}

/** An ext4 filesystem on a loop device over `image`, mounted at `at`; unmounted and detached at teardown. */
function mountImage(t: Test, image: string, at: string, opts: string): string {
  const loop = run('losetup', ['-f', '--show', image]);
  t.teardown(() => {
    try {
      run('umount', [at]);
    } catch {
      // not mounted (the mount failed, or the test unmounted it)
    }
    run('losetup', ['-d', loop]);
  });
  run('mount', ['-o', opts, loop, at]);
  return loop;
}

const reason = unsupported();
t.test('a forward answered 202 and its webhook event survive a power cut', { skip: reason ?? false }, async (t) => {
  const work = await mkdtemp(join(tmpdir(), 'relay-power-cut-'));
  t.teardown(() => rm(work, { recursive: true, force: true }));
  const disk = join(work, 'disk.img');
  const copy = join(work, 'copy.img');
  const live = join(work, 'live');
  const after = join(work, 'after');
  await Promise.all([mkdir(live), mkdir(after)]);
  run('truncate', ['-s', '256M', disk]);
  run('mkfs.ext4', ['-q', '-F', disk]);
  let loop: string;
  try {
    loop = mountImage(t, disk, live, 'commit=600');
  } catch (err) {
    t.plan(0, `skipped: this machine cannot mount a loop device (${(err as Error).message.split('\n')[0]})`);
    return;
  }
  const dataDir = join(live, 'data');
  // the webhook is set through the operator API, with a session from an OpenID provider
  const oidc = await startOidcProvider();
  t.teardown(() => oidc.close());
  await mkdir(dataDir);
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ plugins: { relay: { oidc: { issuer: oidc.issuer, audience: oidc.clientId } } } }));
  let powerBack = false;
  const hook = await receiver(t, () => (powerBack ? 204 : 503));
  const node = await startNodeProcess(t, dataDir, { plugins: { relay: 0 }, logLevel: 'error' });
  const base = node.plugins.relay!;
  const operator = async (method: string, path: string, token: string | null, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  // wire mediations belong to the tenant `default`
  const session = await operator('POST', '/v1/auth/session', null, { id_token: await oidc.idToken({ claims: { tenant: 'default' } }) });
  const webhook = await operator('PUT', '/v1/webhooks', session.body.token!, { url: hook.url, events: ['message.queued'] });
  t.equal(webhook.status, 201, 'the webhook is configured');
  const mediator = ((await (await fetch(`${base}/invite`)).json()) as { from: string }).from;
  const resolver = new TestResolver();
  const alice = new TestAgent(resolver);
  const bob = new TestAgent(resolver);
  t.equal((await alice.send(`${base}/didcomm`, mediator, `${MEDIATION}/mediate-request`, {})).message?.type, `${MEDIATION}/mediate-grant`);
  await alice.send(`${base}/didcomm`, mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: alice.did, action: 'add' }] });
  // the disk holds everything before the forwards (a fresh LevelDB's files are not fsynced when
  // made): what the copy lacks after the cut is then only what the forwards left unsynced
  run('sync', ['-f', dataDir]);

  const forwards: Array<{ tag: string; packed: string }> = [];
  for (let i = 0; i < FORWARDS; i++) {
    const inner = await bob.pack(bob.message('https://example.org/n', { i }), alice.did, { anon: true });
    forwards.push({ tag: (JSON.parse(inner) as { tag: string }).tag, packed: await bob.forward(mediator, alice.did, inner) });
  }
  const accepted: string[] = [];
  let next = 0;
  const sender = async () => {
    while (next < forwards.length) {
      const f = forwards[next++]!;
      if ((await bob.post(`${base}/didcomm`, f.packed)).status === 202) accepted.push(f.tag);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  await node.kill9();
  // the disk as the power cut leaves it: what reached the device, read past the page cache
  run('dd', [`if=${loop}`, `of=${copy}`, 'bs=4M', 'iflag=direct', 'status=none']);
  run('umount', [live]);
  mountImage(t, copy, after, 'rw');

  const db = await openDatabase(join(after, 'data', 'chain'));
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets });
  t.teardown(async () => {
    await store.close();
    await db.close();
  });
  /** tag -> message id, of the messages on the copy */
  const stored = new Map<string, string>();
  for (const rec of await store.messages.pending([alice.did], FORWARDS + 10)) {
    const body = await store.messages.body(rec.id);
    stored.set((JSON.parse(Buffer.from(body!).toString('utf8')) as { tag: string }).tag, rec.id);
  }
  t.equal(accepted.length, FORWARDS, 'every forward was answered 202');
  t.same(
    accepted.filter((tag) => !stored.has(tag)),
    [],
    `every forward answered 202 is on the disk after the power cut (${stored.size} stored)`,
  );
  await store.close();
  await db.close();

  // the power is back: a node on the copy sends what its outbox holds, to a receiver that now takes it
  powerBack = true;
  const sentBefore = hook.received.length;
  t.ok(sentBefore > 0, `attempts before the cut were refused (${sentBefore})`);
  const restarted = await startNodeProcess(t, join(after, 'data'), { plugins: { relay: 0 }, logLevel: 'error' });
  const delivered = new Set<string>();
  const owed = accepted.map((tag) => stored.get(tag)).filter((id) => id !== undefined);
  let read = sentBefore;
  await until(
    () => {
      for (const r of hook.received.slice(read)) {
        const event = JSON.parse(r.body.toString('utf8')) as { type: string; data: { messageId: string } };
        if (event.type === 'message.queued' && verifyWebhookSignature(r.headers['ledger-signature'], r.body, webhook.body.secret!)) delivered.add(event.data.messageId);
      }
      read = hook.received.length;
      return owed.every((id) => delivered.has(id));
    },
    60_000,
    'the webhook events of the forwards answered 202',
  ).catch(() => undefined);
  await restarted.stop();
  t.same(
    owed.filter((id) => !delivered.has(id)),
    [],
    `the message.queued event of every forward answered 202 is delivered after the power cut (${delivered.size} delivered)`,
  );
});
