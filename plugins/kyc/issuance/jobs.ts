import type { Credential, CredentialBody } from '../../../node/protocol/credential-document.js';
import { key, timeKey, type PluginDb, type Table } from '../../common/store/tables.js';
import type { VerificationSession } from '../types.js';
import type { KycBbsForm } from './bbs.js';

/**
 * The durable issuance jobs (tables `iss-jobs` by session id, `iss-open` the unfinished ones in
 * arrival order) and the issued credentials (`iss-credentials` by credential id). A job moves
 * queued → submitted (the signed request is stored before it is sent) → requested (included) →
 * done (registered, signed, offered, reported). A failed or expired request goes back to queued
 * and is prepared again with fresh counters.
 */

export const JOB_TABLE = 'iss-jobs';
export const OPEN_TABLE = 'iss-open';
export const CREDENTIAL_TABLE = 'iss-credentials';

export type JobState = 'queued' | 'submitted' | 'requested' | 'done';

/** What issuance needs of the session, copied when the job is made. */
export type SessionSnapshot = Pick<VerificationSession, 'id' | 'organizationId' | 'level' | 'sandbox' | 'subjectDid' | 'documents' | 'liveness'>;

export interface PreparedRequest {
  uuid: string;
  credentialId: string;
  body: CredentialBody;
  /** hex SHA-256 of the body (onChainHash) */
  hash: string;
  evidenceDigest: string;
  /** the BBS form, signed with the key the request registers (absent on jobs prepared before it existed) */
  bbs?: KycBbsForm;
  position: { list: number; index: number };
  nonce: string;
  txHash: string;
  txJson: string;
  submittedAt: number;
}

export interface IssuanceJob {
  sessionId: string;
  organizationId: string;
  session: SessionSnapshot;
  state: JobState;
  /** key of its `iss-open` entry while unfinished */
  order: string;
  createdAt: number;
  updatedAt: number;
  /** how many times it was prepared */
  attempts: number;
  lastError?: string;
  /** not before this time (a back-off after a failure) */
  notBefore?: number;
  prepared?: PreparedRequest;
  result?: { credentialId: string; txHash: string; credentialOfferUri: string };
}

export interface StoredCredential {
  credentialId: string;
  sessionId: string;
  organizationId: string;
  subjectDid: string;
  credential: Credential;
  /** for the holder only: it holds the date of birth, which is never on chain nor in a webhook */
  bbs?: KycBbsForm;
  txHash: string;
  issuedAt: number;
  revoked?: { at: number; reason: string; txHash: string };
}

export class JobStore {
  readonly jobs: Table<IssuanceJob>;
  readonly open: Table<string>;
  readonly credentials: Table<StoredCredential>;

  constructor(readonly db: PluginDb) {
    this.jobs = db.json<IssuanceJob>(JOB_TABLE);
    this.open = db.json<string>(OPEN_TABLE);
    this.credentials = db.json<StoredCredential>(CREDENTIAL_TABLE);
  }

  get(sessionId: string): Promise<IssuanceJob | undefined> {
    return this.jobs.get(sessionId);
  }

  /** Records a new job; false when the session already has one (the request is idempotent). */
  async add(session: SessionSnapshot, now: number): Promise<boolean> {
    if (await this.jobs.get(session.id)) return false;
    const order = key(timeKey(now), session.id);
    const job: IssuanceJob = { sessionId: session.id, organizationId: session.organizationId, session, state: 'queued', order, createdAt: now, updatedAt: now, attempts: 0 };
    await this.db.batch().put(this.jobs, session.id, job).put(this.open, order, session.id).write();
    return true;
  }

  /** The unfinished jobs, oldest first. */
  async unfinished(): Promise<IssuanceJob[]> {
    const ids: string[] = [];
    for await (const [, id] of this.open.entries()) ids.push(id);
    return (await this.jobs.getMany(ids)).filter((j): j is IssuanceJob => j !== undefined && j.state !== 'done');
  }

  async countUnfinished(): Promise<number> {
    let n = 0;
    for await (const _ of this.open.keys()) n++;
    return n;
  }

  put(job: IssuanceJob): Promise<void> {
    return this.jobs.put(job.sessionId, job);
  }
}
