import t from 'tap';
import { EvidenceRetention } from '../../../../plugins/kyc/verification/retention.js';
import { TERMINAL } from '../../../../plugins/kyc/verification/states.js';
import { finished, jpegImage, liveSession, serve, setup, type Setup } from './harness.js';

const DAY = 86_400_000;

/** The session ids in `ver-purge`, in key order. */
async function purgeIndex(h: Setup): Promise<string[]> {
  const out: string[] = [];
  for await (const [, id] of h.base.db.json<string>('ver-purge').entries()) out.push(id);
  return out;
}

t.test('a final session loses its images after the retention, not before; the record, checks, timeline stay; the routes answer 410', async (t) => {
  const h = await serve(t, { config: { evidenceRetentionDays: 2 } });
  const done = await liveSession(h, 'sk_live_a', { level: 2, frames: [jpegImage(96, 96), jpegImage(96, 96)] });
  const review = await liveSession(h, 'sk_live_a', { level: 1 });
  await h.sessions.decide(done.id, { outcome: 'pass' });
  const decidedAt = h.clock.now;
  const before = (await h.sessions.store.get(done.id))!;
  t.equal(before.status, 'completed');
  const retention = new EvidenceRetention(h.sessions.store, { retentionDays: 2 });

  t.equal(await retention.purgeDue(decidedAt + 2 * DAY - 1), 0, 'not due a millisecond before the retention ends');
  t.ok(await h.sessions.store.image(done.id, 'doc', done.documentIds[0]!), 'the image is still there');
  t.equal((await h.bytes(`/v1/verifications/${done.id}/evidence/frame_1`, { key: 'sk_live_a' })).status, 200);

  h.clock.now = decidedAt + 2 * DAY;
  t.equal(await retention.purgeDue(h.clock.now), 1, 'due at the end of the retention; the session in review is not');
  for (const d of done.documentIds) t.equal(await h.sessions.store.image(done.id, 'doc', d), undefined, `${d}'s bytes are deleted`);
  t.same(await h.sessions.store.frames(done.id), [], 'and the frames');
  t.ok(await h.sessions.store.image(review.id, 'doc', review.documentIds[0]!), 'a session in review keeps its image');
  t.same(await purgeIndex(h), [], 'the index entry went with the images');

  const after = (await h.sessions.store.get(done.id))!;
  const deletedAt = new Date(h.clock.now).toISOString();
  t.equal(after.evidenceDeletedAt, deletedAt);
  t.same({ ...after, evidenceDeletedAt: undefined }, { ...before, evidenceDeletedAt: undefined }, 'the rest of the record is unchanged');
  t.match(after.documents[0]!.checks, { sha256: /^[0-9a-f]{64}$/ }, 'the checks keep the image hash');
  t.match(after.liveness, { status: 'passed', frames: 2 });
  const timeline = await h.sessions.store.timelineOf(done.id);
  t.same(timeline.map((e) => e.type), ['created', 'document_uploaded', 'document_uploaded', 'liveness_submitted', 'processing', 'decided', 'completed', 'evidence_deleted']);
  t.same(timeline.at(-1), { at: deletedAt, type: 'evidence_deleted', actor: { kind: 'system' }, detail: { documents: 2, frames: 2 } });
  t.equal((await h.req('GET', `/v1/verifications/${done.id}`, { key: 'sk_live_a' })).body.session.evidenceDeletedAt, deletedAt, 'the session view says when');

  for (const path of [`/v1/verifications/${done.id}/evidence/${done.documentIds[0]}`, `/v1/verifications/${done.id}/evidence/frame_0`]) {
    const res = await h.req('GET', path, { key: 'sk_live_a' });
    t.equal(res.status, 410, path);
    t.match(res.body, { status: 410, code: 'EVIDENCE_DELETED', detail: new RegExp(`deleted at ${deletedAt}`) });
    t.equal(res.headers.get('x-evidence-deleted-at'), deletedAt);
  }
  for (const path of [`/v1/review/sessions/${done.id}/evidence/${done.documentIds[1]}`, `/v1/review/sessions/${done.id}/documents/${done.documentIds[1]}`]) {
    t.match(await h.req('GET', path, { operator: true }), { status: 410, body: { code: 'EVIDENCE_DELETED' } }, `the review desk too: ${path}`);
  }
  t.equal((await h.req('GET', `/v1/verifications/${done.id}/evidence/frame_2`, { key: 'sk_live_a' })).status, 404, 'an id the session never had is still a 404');

  const list = (await h.req('GET', `/v1/verifications/${done.id}/evidence`, { key: 'sk_live_a' })).body;
  t.equal(list.evidenceDeletedAt, deletedAt);
  t.same(list.documents.map((d: { deletedAt: string; checks: { sha256: string } }) => [d.deletedAt, d.checks.sha256]), before.documents.map((d) => [deletedAt, d.checks.sha256]));
  t.same(list.liveness.frames, [0, 1].map((index) => ({ evidenceId: `frame_${index}`, index, mediaType: null, bytes: null, deletedAt })), 'the frames are listed from the record');
  const kept = (await h.req('GET', `/v1/verifications/${review.id}/evidence`, { key: 'sk_live_a' })).body;
  t.same(kept.documents.map((d: { deletedAt: unknown }) => d.deletedAt), [null]);

  h.clock.now += 30 * DAY;
  t.equal(await retention.purgeDue(h.clock.now), 0, 'a second pass has nothing to do');
  t.equal((await h.sessions.store.timelineOf(done.id)).filter((e) => e.type === 'evidence_deleted').length, 1);
});

t.test('the purge index is written in the batch that makes the session final', async (t) => {
  const h = await setup(t);
  const root = h.base.db.root as unknown as { batch: (ops: unknown) => Promise<void> };
  const write = root.batch.bind(root);
  const states: Array<[boolean, boolean]> = [];
  let watched: string | undefined;
  root.batch = async (ops) => {
    await write(ops);
    const s = watched && (await h.sessions.store.get(watched));
    if (s) states.push([TERMINAL.has(s.status), (await purgeIndex(h)).includes(s.id)]);
  };
  const { session } = await h.sessions.create({ organizationId: 'org_a', apiKey: { id: 'key_sandbox_a', mode: 'sandbox' } }, { level: 1, sandbox: true, metadata: {} });
  watched = session.id as string;
  await h.sessions.uploadDocument({ token: session.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: jpegImage(300, 300) });
  t.ok(states.length >= 1);
  t.same(states.filter(([final, indexed]) => final !== indexed), [], 'after every write, final and indexed agree');
  t.same(states.at(-1), [true, true]);
});

t.test('sessions final before the index existed are indexed once, on the first pass', async (t) => {
  const h = await setup(t);
  const ids = [await finished(h), await finished(h), await finished(h)];
  // as a store written before the index: no entries, no mark
  const purge = h.base.db.json<string>('ver-purge');
  for await (const k of purge.keys()) await purge.del(k);
  const retention = new EvidenceRetention(h.sessions.store, { retentionDays: 1, batch: 2 });
  t.equal(await retention.indexExisting(h.clock.now), 3);
  t.same((await purgeIndex(h)).sort(), [...ids].sort());
  t.ok(await h.sessions.store.purgeMark(), 'the mark is set');
  t.equal(await new EvidenceRetention(h.sessions.store, { retentionDays: 1 }).indexExisting(h.clock.now), 0, 'another start does not scan again');
  t.equal(await retention.purgeDue(h.clock.now + DAY - 1), 0, 'indexed at the time they became final');
  t.equal(await retention.purgeDue(h.clock.now + DAY), 3);
  for (const id of ids) t.ok((await h.sessions.store.get(id))!.evidenceDeletedAt);
});

t.test('batches are bounded; null keeps the images', async (t) => {
  const h = await setup(t);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await finished(h));
  const keep = new EvidenceRetention(h.sessions.store, { retentionDays: null, batch: 2 });
  t.equal(await keep.purgeDue(h.clock.now + 3650 * DAY), 0, 'null: nothing is ever due');
  t.equal((await purgeIndex(h)).length, 5, 'the index is kept, for a retention set later');
  const retention = new EvidenceRetention(h.sessions.store, { retentionDays: 1, batch: 2 });
  const at = h.clock.now + DAY;
  t.same([await retention.purgeBatch(at), await retention.purgeBatch(at), await retention.purgeBatch(at), await retention.purgeBatch(at)], [2, 2, 1, 0]);
  for (const id of ids) t.same(await h.sessions.store.image(id, 'doc', (await h.sessions.store.get(id))!.documents[0]!.id), undefined);
});
