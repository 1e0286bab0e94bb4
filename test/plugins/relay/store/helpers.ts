import type { Test } from 'tap';
import { openDatabase, type BinarySublevel, type Database } from '../../../../node/state/db.js';
import { createLevelRelayStore, type LevelRelayStoreOptions } from '../../../../plugins/relay/store/level.js';
import { MESSAGE_STATES, type MessageRecord, type RelayStore } from '../../../../plugins/relay/store/types.js';

import { testSecrets } from './contract/backend.js';

export { body, newMessage, testSecrets } from './contract/backend.js';

export async function memoryStore(t: Test, opts: Partial<LevelRelayStoreOptions> = {}): Promise<{ db: Database; ns: BinarySublevel; store: RelayStore }> {
  const db = await openDatabase('memory');
  const ns = db.pluginStore('relay');
  const store = createLevelRelayStore(ns, { secrets: testSecrets, ...opts });
  t.teardown(async () => {
    await store.close();
    await db.close();
  });
  return { db, ns, store };
}

const PENDING = new Set(['queued', 'delivered', 'live-delivered']);

/**
 * Reads the namespace's raw layout and returns every broken invariant: pending index, pending
 * counts, state counts, listing entries, expiry index and prune index against the message records.
 */
export async function inconsistencies(ns: BinarySublevel): Promise<string[]> {
  const sub = (name: string, valueEncoding: 'json' | 'utf8' | 'view') => ns.sublevel<string, any>(name, { keyEncoding: 'utf8', valueEncoding });
  const all = async (name: string, enc: 'json' | 'utf8' | 'view') => new Map<string, any>(await sub(name, enc).iterator().all());
  const [m, b, q, tl, x, p, n, sc] = await Promise.all([
    all('m', 'json'),
    all('b', 'view'),
    all('q', 'utf8'),
    all('t', 'json'),
    all('x', 'utf8'),
    all('p', 'utf8'),
    all('n', 'json'),
    all('sc', 'json'),
  ]);
  const problems: string[] = [];
  const pending = new Map<string, number>();
  const states = new Map<string, number>();
  const expected = { q: new Set<string>(), t: new Set<string>(), x: new Set<string>(), p: new Set<string>() };
  for (const rec of m.values() as Iterable<MessageRecord>) {
    states.set(`${rec.tenantId}\x00${rec.state}`, (states.get(`${rec.tenantId}\x00${rec.state}`) ?? 0) + 1);
    const qk = `${rec.recipient}\x00${rec.id}`;
    if (PENDING.has(rec.state)) {
      pending.set(rec.recipient, (pending.get(rec.recipient) ?? 0) + 1);
      expected.q.add(qk);
      if (!q.has(qk)) problems.push(`${rec.id} pending without a q entry`);
      if (!b.has(rec.id)) problems.push(`${rec.id} pending without a body`);
    }
    const tk = `${rec.tenantId}\x00${rec.id}`;
    expected.t.add(tk);
    const summary = tl.get(tk);
    if (JSON.stringify(summary) !== JSON.stringify([rec.state, rec.protocol, rec.recipient])) problems.push(`${rec.id} listing ${JSON.stringify(summary)}`);
    const xk = `${String(rec.expiresAt).padStart(13, '0')}\x00${rec.id}`;
    if (b.has(rec.id)) {
      expected.x.add(xk);
      if (!x.has(xk)) problems.push(`${rec.id} body without an expiry entry`);
    }
    if (!PENDING.has(rec.state)) {
      expected.p.add(xk);
      if (!p.has(xk)) problems.push(`${rec.id} final without a prune entry`);
    }
  }
  for (const k of q.keys()) if (!expected.q.has(k)) problems.push(`stale q ${JSON.stringify(k)}`);
  for (const k of tl.keys()) if (!expected.t.has(k)) problems.push(`stale t ${JSON.stringify(k)}`);
  for (const k of x.keys()) if (!expected.x.has(k)) problems.push(`stale x ${JSON.stringify(k)}`);
  for (const k of p.keys()) if (!expected.p.has(k)) problems.push(`stale p ${JSON.stringify(k)}`);
  for (const k of b.keys()) if (!m.has(k)) problems.push(`body without record ${k}`);
  const same = (what: string, want: Map<string, number>, got: Map<string, number>) => {
    for (const k of new Set([...want.keys(), ...got.keys()])) {
      if ((want.get(k) ?? 0) !== (got.get(k) ?? 0)) problems.push(`${what} ${JSON.stringify(k)}: stored ${got.get(k) ?? 0}, records ${want.get(k) ?? 0}`);
    }
  };
  same('n', pending, n);
  same('sc', states, sc);
  for (const k of sc.keys()) if (!MESSAGE_STATES.includes(k.split('\x00')[1] as never)) problems.push(`sc bad state ${k}`);
  return problems;
}
