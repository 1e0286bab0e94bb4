import { createHash, randomBytes } from 'node:crypto';
import { LedgerError } from '../../../node/errors.js';
import { key, prefix, type Batch, type PluginDb, type Table } from '../../common/store/tables.js';

/**
 * Guardian invites and recovery requests (docs/wallet.md, "Guardians and recovery").
 *
 * Tables (json, in the wallet's namespace):
 *   guardians              <id> -> GuardianRecord
 *   guardians-by-owner     <ownerUserId> SEP <id> -> id     (while not removed)
 *   guardians-by-did       <guardianDid> SEP <id> -> id     (while not removed)
 *   guardians-by-email     <email> SEP <id> -> id           (while not removed)
 *   guardians-by-token     <sha256(token)> -> id            (while invited: a token works once)
 *   recovery-requests      <requestId> -> RecoveryRequest
 *   recovery-by-guardian   <guardianDid> SEP <requestId> -> requestId   (while open)
 *   recovery-by-subject    <subjectDid> SEP <newPublicKey> -> requestId (while open or submitted)
 *
 * Which index entries a record has follows from the record alone (`guardianKeys`,
 * `requestKeys`), so every change writes the record and the difference of its index entries in
 * one batch: an index never points at a record that says otherwise.
 */

export type GuardianStatus = 'invited' | 'active' | 'removed';

export interface GuardianRecord {
  /** `gdn_` + 24 hex */
  id: string;
  ownerUserId: string;
  ownerDid: string;
  /** the invited DID, or for an email invite the DID of the user who confirmed it */
  guardianDid: string | null;
  /** lowercase */
  guardianEmail: string | null;
  guardianName: string | null;
  status: GuardianStatus;
  /** hex SHA-256 of the invite token; the token itself is only in the invite's answer (and mail) */
  tokenHash: string;
  invitedAt: string;
  acceptedAt: string | null;
  /** until when the invite can be confirmed */
  expiresAt: string;
}

export interface Approval {
  guardianDid: string;
  /** 128 hex: Ed25519 over the canonical recovery message */
  signature: string;
  approvedAt: string;
}

/**
 * `open` collects approvals; `submitted` once a DidRecover was relayed; `expired` past expiresAt
 * unsubmitted (or stale: a newer request for the same key took its place); `superseded` when a
 * start that proved more took its slot (`supersededBy`)
 */
export type StoredRequestStatus = 'open' | 'submitted' | 'expired' | 'superseded';

export interface RecoveryRequest {
  /** a random v4 UUID: the only handle on a request, polled without a session */
  requestId: string;
  subjectDid: string;
  /** 64 hex */
  newPublicKey: string;
  /** the DID document's versionId at initiation: what the guardians sign */
  versionId: number;
  /** the on-chain policy at initiation */
  guardians: string[];
  threshold: number;
  delayBlocks: number;
  approvals: Approval[];
  status: StoredRequestStatus;
  createdAt: string;
  expiresAt: string;
  txHash: string | null;
  submittedAt: string | null;
  /** the leading zero bits of the initiation's proof of work (0: started by a guardian's approval); absent in older records */
  proofBits?: number;
  supersededBy?: string;
}

export const GUARDIAN_ID_PATTERN = /^gdn_[0-9a-f]{24}$/;

export const newGuardianId = (): string => `gdn_${randomBytes(12).toString('hex')}`;

/** 32 random bytes, base64url: the one-time invite token */
export const newInviteToken = (): string => randomBytes(32).toString('base64url');

export const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

type IndexName = 'byOwner' | 'byDid' | 'byEmail' | 'byToken' | 'byGuardian' | 'bySubject';
/** index entries of a record: [index, key, value] */
type Keys = Array<[IndexName, string, string]>;

export class GuardianStore {
  private readonly guardians: Table<GuardianRecord>;
  private readonly requests: Table<RecoveryRequest>;
  private readonly index: Record<IndexName, Table<string>>;

  constructor(private readonly db: PluginDb) {
    this.guardians = db.json<GuardianRecord>('guardians');
    this.requests = db.json<RecoveryRequest>('recovery-requests');
    this.index = {
      byOwner: db.json<string>('guardians-by-owner'),
      byDid: db.json<string>('guardians-by-did'),
      byEmail: db.json<string>('guardians-by-email'),
      byToken: db.json<string>('guardians-by-token'),
      byGuardian: db.json<string>('recovery-by-guardian'),
      bySubject: db.json<string>('recovery-by-subject'),
    };
  }

  // ---- guardians ----

  get(id: string): Promise<GuardianRecord | undefined> {
    return this.guardians.get(id);
  }

  async byTokenHash(hash: string): Promise<GuardianRecord | undefined> {
    const id = await this.index.byToken.get(hash);
    return id === undefined ? undefined : this.guardians.get(id);
  }

  /** the owner's guardians and invites, oldest first (removed ones are not listed) */
  ofOwner(ownerUserId: string): Promise<GuardianRecord[]> {
    return this.list('byOwner', ownerUserId);
  }

  /** records naming this guardian DID (invited to it, or confirmed by it) */
  forDid(did: string): Promise<GuardianRecord[]> {
    return this.list('byDid', did);
  }

  forEmail(email: string): Promise<GuardianRecord[]> {
    return this.list('byEmail', email.toLowerCase());
  }

  async create(record: GuardianRecord): Promise<GuardianRecord> {
    const batch = this.db.batch().put(this.guardians, record.id, record);
    this.moveKeys(batch, [], this.guardianKeys(record));
    await batch.write();
    return record;
  }

  /** Writes `change(record)` and moves its index entries; callers serialize changes per owner. */
  async update(id: string, change: (g: GuardianRecord) => GuardianRecord): Promise<GuardianRecord> {
    const before = await this.guardians.get(id);
    if (!before) throw new LedgerError('GUARDIAN_NOT_FOUND', `no guardian ${id}`, 'not_found');
    const after = { ...change(structuredClone(before)), id };
    const batch = this.db.batch().put(this.guardians, id, after);
    this.moveKeys(batch, this.guardianKeys(before), this.guardianKeys(after));
    await batch.write();
    return after;
  }

  // ---- recovery requests ----

  getRequest(requestId: string): Promise<RecoveryRequest | undefined> {
    return this.requests.get(requestId);
  }

  async createRequest(r: RecoveryRequest): Promise<RecoveryRequest> {
    const batch = this.db.batch().put(this.requests, r.requestId, r);
    this.moveKeys(batch, [], this.requestKeys(r));
    await batch.write();
    return r;
  }

  /** Writes `change(request)`; callers serialize changes per request. */
  async updateRequest(requestId: string, change: (r: RecoveryRequest) => RecoveryRequest): Promise<RecoveryRequest> {
    const before = await this.requests.get(requestId);
    if (!before) throw new LedgerError('RECOVERY_NOT_FOUND', `no recovery request ${requestId}`, 'not_found');
    const after = { ...change(structuredClone(before)), requestId };
    const batch = this.db.batch().put(this.requests, requestId, after);
    this.moveKeys(batch, this.requestKeys(before), this.requestKeys(after));
    await batch.write();
    return after;
  }

  /** open requests that name this DID as a guardian */
  requestsForGuardian(did: string): Promise<RecoveryRequest[]> {
    return this.listRequests('byGuardian', did);
  }

  /** the open or submitted requests to recover `subjectDid`, one per new key */
  requestsOf(subjectDid: string): Promise<RecoveryRequest[]> {
    return this.listRequests('bySubject', subjectDid);
  }

  /** the open or submitted request to move `subjectDid` to `newPublicKey`, if any */
  async requestFor(subjectDid: string, newPublicKey: string): Promise<RecoveryRequest | undefined> {
    const id = await this.index.bySubject.get(key(subjectDid, newPublicKey));
    return id === undefined ? undefined : this.requests.get(id);
  }

  private async listRequests(index: 'byGuardian' | 'bySubject', part: string): Promise<RecoveryRequest[]> {
    const ids: string[] = [];
    for await (const [, id] of this.index[index].entries(prefix(part))) ids.push(id);
    return (await this.requests.getMany(ids)).filter((r): r is RecoveryRequest => r !== undefined);
  }

  private async list(index: IndexName, part: string): Promise<GuardianRecord[]> {
    const ids: string[] = [];
    for await (const [, id] of this.index[index].entries(prefix(part))) ids.push(id);
    const found = await this.guardians.getMany(ids);
    return found.filter((g): g is GuardianRecord => g !== undefined).sort((a, b) => a.invitedAt.localeCompare(b.invitedAt) || a.id.localeCompare(b.id));
  }

  private guardianKeys(g: GuardianRecord): Keys {
    if (g.status === 'removed') return [];
    const keys: Keys = [['byOwner', key(g.ownerUserId, g.id), g.id]];
    if (g.guardianDid) keys.push(['byDid', key(g.guardianDid, g.id), g.id]);
    if (g.guardianEmail) keys.push(['byEmail', key(g.guardianEmail, g.id), g.id]);
    if (g.status === 'invited') keys.push(['byToken', g.tokenHash, g.id]);
    return keys;
  }

  private requestKeys(r: RecoveryRequest): Keys {
    const keys: Keys = r.status === 'open' ? r.guardians.map((g) => ['byGuardian', key(g, r.requestId), r.requestId]) : [];
    if (r.status === 'open' || r.status === 'submitted') keys.push(['bySubject', key(r.subjectDid, r.newPublicKey), r.requestId]);
    return keys;
  }

  private moveKeys(batch: Batch, before: Keys, after: Keys): void {
    const id = ([index, k, v]: [IndexName, string, string]) => `${index}\x00${k}\x00${v}`;
    const kept = new Set(after.map(id));
    for (const entry of before) if (!kept.has(id(entry))) batch.del(this.index[entry[0]], entry[1]);
    const had = new Set(before.map(id));
    for (const entry of after) if (!had.has(id(entry))) batch.put(this.index[entry[0]], entry[1], entry[2]);
  }
}
