import t from 'tap';
import { SettingsService, defaultSettings, type TenantSettings } from '../../../../plugins/relay/core/settings.js';
import type { DocumentRepo } from '../../../../plugins/relay/store/types.js';

/**
 * The settings cache (read on every forward) against a document store whose reads can be held:
 * a read that the store answered before an update landed never replaces the update in the cache.
 */

function docs() {
  const stored = new Map<string, unknown>();
  const held: Array<() => void> = [];
  const state = { hold: false, failPut: false, reads: 0 };
  const repo = {
    async get<T>(tenantId: string): Promise<T | undefined> {
      state.reads++;
      const value = stored.get(tenantId) as T | undefined;
      if (state.hold) await new Promise<void>((r) => held.push(r));
      return value;
    },
    async put(tenantId: string, _kind: string, _id: string, value: unknown): Promise<void> {
      stored.set(tenantId, structuredClone(value));
      if (state.failPut) throw new Error('the disk said no after writing');
    },
  } as unknown as DocumentRepo;
  return { repo, stored, state, release: () => held.splice(0).forEach((r) => r()) };
}

t.test('a read under way while an update lands does not cache the old settings', async (t) => {
  const d = docs();
  const settings = new SettingsService(d.repo, defaultSettings());
  d.state.hold = true;
  const before = settings.get('tenant-a');
  d.state.hold = false;
  await settings.update('tenant-a', { retentionSeconds: 120 });
  d.release();
  t.equal((await before).retentionSeconds, defaultSettings().retentionSeconds, 'the read answers what it read');
  t.equal((await settings.get('tenant-a')).retentionSeconds, 120, 'the next read sees the update');
});

t.test('reads are served from the cache; an update replaces it', async (t) => {
  const d = docs();
  const settings = new SettingsService(d.repo, defaultSettings());
  await settings.get('tenant-a');
  await settings.get('tenant-a');
  t.equal(d.state.reads, 1, 'read once');
  await settings.update('tenant-a', { purgeOnAck: false });
  t.match(await settings.get('tenant-a'), { purgeOnAck: false });
  t.equal(d.state.reads, 1, 'the update wrote the cache');
});

t.test('after a failed update the next read reads the store', async (t) => {
  const d = docs();
  const settings = new SettingsService(d.repo, defaultSettings());
  await settings.get('tenant-a');
  d.state.failPut = true;
  await t.rejects(settings.update('tenant-a', { rateLimitPerDidPerMin: 5 }));
  d.state.failPut = false;
  t.equal((await settings.get('tenant-a')).rateLimitPerDidPerMin, (d.stored.get('tenant-a') as TenantSettings).rateLimitPerDidPerMin, 'what the store holds');
});
