import { readCredential, readIssuerCounter } from '../execution/credential-state.js';
import type { StateReader } from '../execution/overlay.js';
import { concatBytes } from '../protocol/bytes.js';
import { CREDENTIAL_ID_LENGTH } from '../protocol/credential-id.js';
import { revocationListKey, type CredentialRecord } from '../protocol/credential-records.js';
import { STATE_PREFIX } from '../protocol/records.js';
import { REVOCATION_LIST_ENTRIES, RevocationList } from '../protocol/revocation-list.js';
import type { BinarySublevel } from './db.js';

/** The keys that start with `prefix`: the smallest key above them all is the prefix plus one, carrying (a type byte never overflows). */
export function prefixRange(prefix: Uint8Array): { gte: Uint8Array; lt: Uint8Array } {
  const upper = Uint8Array.from(prefix);
  let i = upper.length - 1;
  while (upper[i] === 0xff) upper[i--] = 0;
  upper[i]!++;
  return { gte: prefix, lt: upper };
}

/** Credential state as the node reads it: by id, by issuer and subject (prefix scans of committed state), and revocation lists. */
export class CredentialRepository {
  constructor(
    private readonly state: StateReader,
    private readonly stateDb: BinarySublevel,
  ) {}

  get(id: Uint8Array): Promise<CredentialRecord | undefined> {
    return readCredential(this.state, id);
  }

  /** Every record the issuer requested (any status), in id order. */
  byIssuer(issuer: Uint8Array): Promise<CredentialRecord[]> {
    return this.scan(concatBytes(Uint8Array.of(STATE_PREFIX.credentialByIssuer), issuer));
  }

  bySubject(subject: Uint8Array): Promise<CredentialRecord[]> {
    return this.scan(concatBytes(Uint8Array.of(STATE_PREFIX.credentialBySubject), subject));
  }

  /** The issuer's next revocation position: the one its next CredentialRequest must name. */
  async nextPosition(issuer: Uint8Array): Promise<{ list: number; index: number }> {
    const next = await readIssuerCounter(this.state, issuer);
    return { list: Math.floor(next / REVOCATION_LIST_ENTRIES), index: next % REVOCATION_LIST_ENTRIES };
  }

  /** A list the issuer has allocated positions in (all clear until a revocation), or undefined. */
  async revocationList(issuer: Uint8Array, list: number): Promise<RevocationList | undefined> {
    const allocated = await readIssuerCounter(this.state, issuer);
    if (list * REVOCATION_LIST_ENTRIES >= allocated) return undefined;
    const stored = await this.state.get(revocationListKey(issuer, list));
    return stored ? RevocationList.fromChain(stored) : RevocationList.empty();
  }

  private async scan(prefix: Uint8Array): Promise<CredentialRecord[]> {
    const out: CredentialRecord[] = [];
    for await (const key of this.stateDb.keys(prefixRange(prefix))) {
      const record = await this.get(key.subarray(key.length - CREDENTIAL_ID_LENGTH));
      if (record) out.push(record);
    }
    return out;
  }
}
