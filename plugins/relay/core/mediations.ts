import { randomBytes } from 'node:crypto';
import { LedgerError } from '../../../node/errors.js';
import type { Logger } from '../../../node/logging.js';
import type { KeylistEntry, Mediation, RelayStore } from '../store/types.js';
import type { RelayEvents } from './events.js';
import type { GateService, GateVerdict, Presentation } from './gates.js';
import { operatorTransition, requestTransition, type OperatorAction } from './mediation-states.js';
import { WIRE_TENANT, type SettingsService } from './settings.js';

/**
 * Mediations and their keylists: what an agent asks for over the wire (mediate-request,
 * keylist-update) and what an operator does (grant, deny, revoke, remove a key). The state
 * machine itself is `mediation-states.ts`; this module adds storage, gates and events.
 */

export const MAX_KEYLIST = 1000;
export const MAX_UPDATES = 100;
const MAX_KEY_LENGTH = 4096;

export type KeylistAction = 'add' | 'remove';
export type KeylistResult = 'success' | 'no_change' | 'client_error' | 'server_error';

export interface KeylistUpdate {
  recipient_did: string;
  action: KeylistAction;
}

/** Checks a key before it routes anything: the DID is active (did:ledger), or well formed. */
export type KeyCheck = (key: string) => Promise<string | null>;

export class MediationService {
  constructor(
    private readonly deps: {
      store: RelayStore;
      settings: SettingsService;
      gates: GateService;
      events: RelayEvents;
      log: Logger;
      now: () => number;
      checkKey: KeyCheck;
      /** called after a revoke: fail what is queued for the mediation's keys */
      onRevoked: (m: Mediation, keys: string[]) => Promise<void>;
    },
  ) {}

  private newId(): string {
    return `med_${randomBytes(10).toString('hex')}`;
  }

  /** A mediate-request from `recipientDid` (the authenticated sender). */
  async request(recipientDid: string, presentation: Presentation | undefined): Promise<{ mediation: Mediation; verdict: GateVerdict | null }> {
    const { store, settings, gates, events, now } = this.deps;
    const existing = await store.mediations.byRecipient(recipientDid);
    const tenantId = existing?.tenantId ?? WIRE_TENANT;
    const from = existing?.state;
    const decides = from === undefined || from === 'denied';
    const verdict = decides ? await gates.enforce(tenantId, 'mediation', presentation, recipientDid) : null;
    const next = requestTransition(from, { manualApproval: (await settings.get(tenantId)).manualApproval, gatePassed: verdict?.pass ?? true });
    const at = now();
    const mediation: Mediation = existing
      ? { ...existing, state: next, updatedAt: at }
      : { id: this.newId(), tenantId, recipientDid, state: next, reason: null, gate: null, createdAt: at, updatedAt: at, grantedAt: null };
    if (decides) {
      mediation.gate = verdict ? { policy: verdict.policy, state: verdict.pass ? 'pass' : 'blocked' } : null;
      mediation.reason = verdict && !verdict.pass ? verdict.reason : null;
      if (next === 'granted') mediation.grantedAt = at;
    }
    if (!existing || existing.state !== next || decides) await store.mediations.put(mediation);
    if (decides && verdict && !verdict.pass) {
      await events.emit(tenantId, 'gate.blocked', { stage: 'mediation', recipientDid, policy: verdict.policy, reason: verdict.reason });
    }
    if (decides && next === 'granted') await events.emit(tenantId, 'mediation.granted', { mediationId: mediation.id, recipientDid, by: 'auto' });
    if (decides && next === 'denied') await events.emit(tenantId, 'mediation.denied', { mediationId: mediation.id, recipientDid, reason: mediation.reason });
    return { mediation, verdict };
  }

  async get(tenantId: string, id: string): Promise<Mediation> {
    const m = await this.deps.store.mediations.get(id);
    if (!m || m.tenantId !== tenantId) throw new LedgerError('MEDIATION_NOT_FOUND', `no mediation ${id}`, 'not_found', { id });
    return m;
  }

  async act(tenantId: string, id: string, action: OperatorAction, reason: string | null): Promise<Mediation> {
    const m = await this.get(tenantId, id);
    const t = operatorTransition(m.state, action);
    if (!t.ok) throw new LedgerError('MEDIATION_STATE', t.reason, 'conflict', { id, state: m.state, action });
    const at = this.deps.now();
    const next: Mediation = { ...m, state: t.next, updatedAt: at, reason: action === 'grant' ? null : reason, grantedAt: action === 'grant' ? at : m.grantedAt };
    await this.deps.store.mediations.put(next);
    if (action === 'grant') await this.deps.events.emit(tenantId, 'mediation.granted', { mediationId: id, recipientDid: m.recipientDid, by: 'operator' });
    if (action === 'deny') await this.deps.events.emit(tenantId, 'mediation.denied', { mediationId: id, recipientDid: m.recipientDid, reason });
    if (action === 'revoke') {
      const { keys } = await this.deps.store.mediations.keylist(id, { limit: MAX_KEYLIST });
      await this.deps.onRevoked(next, keys.map((k) => k.key));
    }
    return next;
  }

  /** keylist-update: each entry answered on its own, as Coordinate Mediation 2.0 asks. */
  async updateKeylist(m: Mediation, updates: readonly KeylistUpdate[]): Promise<Array<KeylistUpdate & { result: KeylistResult }>> {
    const { store, now, checkKey, log } = this.deps;
    const { keys, total } = await store.mediations.keylist(m.id, { limit: MAX_KEYLIST });
    const mine = new Set(keys.map((k) => k.key));
    let size = total;
    const add: string[] = [];
    const remove: string[] = [];
    const results: Array<KeylistUpdate & { result: KeylistResult }> = [];
    for (const u of updates) {
      const key = u.recipient_did;
      if (typeof key !== 'string' || !key.startsWith('did:') || key.length > MAX_KEY_LENGTH || (u.action !== 'add' && u.action !== 'remove')) {
        results.push({ ...u, result: 'client_error' });
        continue;
      }
      if (u.action === 'remove') {
        if (mine.has(key) && !remove.includes(key)) {
          remove.push(key);
          mine.delete(key);
          size--;
          results.push({ ...u, result: 'success' });
        } else results.push({ ...u, result: 'no_change' });
        continue;
      }
      if (mine.has(key) || add.includes(key)) {
        results.push({ ...u, result: 'no_change' });
        continue;
      }
      const owner = await store.mediations.byKey(key);
      const problem = owner ? 'the key routes for another mediation' : size >= MAX_KEYLIST ? `the keylist is full (${MAX_KEYLIST})` : await checkKey(key);
      if (problem) {
        log.debug({ key, problem }, 'keylist add refused');
        results.push({ ...u, result: 'client_error' });
        continue;
      }
      add.push(key);
      mine.add(key);
      size++;
      results.push({ ...u, result: 'success' });
    }
    if (add.length > 0 || remove.length > 0) await store.mediations.updateKeys(m.id, add, remove, now());
    return results;
  }

  async removeKey(tenantId: string, id: string, key: string): Promise<void> {
    await this.get(tenantId, id);
    const entry = await this.deps.store.mediations.byKey(key);
    if (!entry || entry.mediationId !== id) throw new LedgerError('KEY_NOT_FOUND', `${key} is not in the keylist of ${id}`, 'not_found', { id, key });
    await this.deps.store.mediations.updateKeys(id, [], [key], this.deps.now());
  }

  /** The granted mediation that routes `next` (a DID or a DID URL), if any. */
  async route(next: string): Promise<{ mediation: Mediation; entry: KeylistEntry } | { refused: string }> {
    const { store } = this.deps;
    const cut = next.search(/[#?]/);
    const entry = (await store.mediations.byKey(next)) ?? (cut > 0 ? await store.mediations.byKey(next.slice(0, cut)) : undefined);
    if (!entry) return { refused: `${next.slice(0, 200)} is not in any keylist of this mediator` };
    const mediation = await store.mediations.get(entry.mediationId);
    if (!mediation || mediation.state !== 'granted') return { refused: `the mediation for ${next.slice(0, 200)} is ${mediation?.state ?? 'gone'}` };
    return { mediation, entry };
  }
}
