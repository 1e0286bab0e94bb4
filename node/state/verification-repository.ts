import type { StateReader } from '../execution/overlay.js';
import { readVerification } from '../execution/verification.js';
import { concatBytes } from '../protocol/bytes.js';
import { STATE_PREFIX } from '../protocol/records.js';
import { requestKeyOf, type VerificationRecord } from '../protocol/verification-records.js';
import { prefixRange } from './credential-repository.js';
import type { BinarySublevel } from './db.js';

/** Verification requests as the node reads them: by request id, and a subject's (a prefix scan of committed state). */
export class VerificationRepository {
  constructor(
    private readonly state: StateReader,
    private readonly stateDb: BinarySublevel,
  ) {}

  get(requestId: string): Promise<VerificationRecord | undefined> {
    return readVerification(this.state, requestKeyOf(requestId));
  }

  /** The subject's requests, newest first, at most `limit` of those `keep` accepts. */
  async bySubject(subject: Uint8Array, keep: (v: VerificationRecord) => boolean, limit: number): Promise<VerificationRecord[]> {
    const out: VerificationRecord[] = [];
    for await (const key of this.stateDb.keys(prefixRange(concatBytes(Uint8Array.of(STATE_PREFIX.verificationBySubject), subject)))) {
      const v = await readVerification(this.state, key.subarray(key.length - 32));
      if (v && keep(v)) out.push(v);
    }
    return out.sort((a, b) => b.requestHeight - a.requestHeight).slice(0, limit);
  }
}
